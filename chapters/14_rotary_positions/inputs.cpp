#include "chapters/14_rotary_positions/inputs.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

namespace {

// data/projections/<name>.csv, or the learner's own file.
LabelledMatrix read_projection(const std::string& path, const std::string& name) {
    return path.empty() ? read_data_file("projections/" + name + ".csv") : read_labelled_csv(path);
}

}  // namespace

void add_options(Lesson& lesson, Options& o) {
    lesson.option("--offset", o.offset, "P: token t stands at position P + t", Range{0, 1000000});
    lesson.option("--base", o.base, "the base of θ_i = base^(−2i/d_k)", Range{1, 1e9, Range::low_excluded});
    lesson.option("--max-distance", o.max_distance, "the longest distance of the decay step", Range{1, 10000});
    lesson.option("--w-q", o.w_q_path, "your own W_Q (d_model × d_k, d_k even) instead of data/projections/W_Q.csv",
                  Text::path);
    lesson.option("--w-k", o.w_k_path, "your own W_K (d_model × d_k, d_k even) instead of data/projections/W_K.csv",
                  Text::path);
}

Projections read_projections(const std::string& w_q_path, const std::string& w_k_path) {
    return {read_projection(w_q_path, "W_Q"), read_projection(w_k_path, "W_K")};
}

void require_fit(const Projections& W, const Sequence& seq, const std::string& input) {
    // W_Q and W_K read the sequence's dimensions and share one even width d_k.
    for (const LabelledMatrix* w : {&W.W_Q, &W.W_K})
        require_projects(*w, seq, input.empty() ? data_path("embeddings.csv") : input);
    if (cols(W.W_Q.values) % 2 != 0 || cols(W.W_K.values) != cols(W.W_Q.values))
        throw InputError(fmt::format("{} and {}: W_Q has {} columns and W_K {}; RoPE needs one even d_k (it turns "
                                     "pairs of dimensions)",
                                     W.W_Q.source, W.W_K.source, cols(W.W_Q.values), cols(W.W_K.values)));
}
