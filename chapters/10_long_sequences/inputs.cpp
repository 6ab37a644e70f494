#include "chapters/10_long_sequences/inputs.hpp"

#include <cstddef>

#include "common/lesson/lesson.hpp"

void add_flags(Lesson& lesson, Settings& s) {
    lesson.option("--max-n", s.max_n, "the longest sequence measured (the time budget may stop earlier)",
                  Range{256, 1 << 30});
    lesson.option("--d", s.d, "width of queries, keys and values (one head)", Range{1, 4096});
    lesson.option("--block-q", s.blocks.q, "queries per tile of streaming attention", Range{1, 65536});
    lesson.option("--block-k", s.blocks.k, "keys per tile of streaming attention", Range{1, 65536});
    lesson.option("--window", s.window, "keys each query sees in sliding-window attention", Range{1, 1 << 30});
    lesson.option("--pairs", s.pairs_flag, "LongNet's (segment w : dilation r) pairs, comma-separated");
    lesson.option("--budget-s", s.budget_s, "seconds the length sweeps may take (about; the whole run takes more)",
                  Range{0.1, 3600});
    lesson.flag("--streaming-only", s.streaming_only,
                "measure streaming attention alone at --max-n (its time and peak memory), nothing else");
}
