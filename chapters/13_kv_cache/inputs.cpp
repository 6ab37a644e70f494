#include "chapters/13_kv_cache/inputs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chapters/13_kv_cache/math.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--prefill", f.prefill, "tokens of the prompt, computed at once (default: 7, at most n − 1)",
                  Range{0, 100000})
        .without_default();
    lesson.option("--window", f.window, "w of the window step: each token sees its last w tokens", Range{1, 100000});
    lesson.flag("--measure", f.measure, "also time a token with and without the cache (output varies)");
}

Inputs load_inputs(const std::string& input, const Flags& flags) {
    Inputs in{load_sequence(input, default_sentence, square_matrices_held), read_data_file("projections/W_Q.csv"),
              read_data_file("projections/W_K.csv"), read_data_file("projections/W_V.csv"),
              read_data_file("kv_cache_models.csv")};
    require_projects(in.W_Q, in.seq, input.empty() ? data_path("embeddings.csv") : input);
    const std::size_t n = rows(in.seq.X);
    in.prefill = flags.prefill_given ? flags.prefill : std::min(default_prefill, n - 1);
    if (in.prefill >= n)
        throw InputError(fmt::format("--prefill {}: the sequence has {} token{}, so the prompt may hold at most {} "
                                     "(one token must be decoded)",
                                     in.prefill, n, n == 1 ? "" : "s", n - 1));
    return in;
}
