#include "chapters/14_rotary_positions/inputs.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "common/math/input_error.hpp"

namespace {

// data/projections/<name>.csv, or the learner's own file.
LabelledMatrix read_projection(const std::string& path, const std::string& name) {
    return path.empty() ? read_data_file("projections/" + name + ".csv") : read_labelled_csv(path);
}

std::string not_a_base(std::string& text) {
    const double v = std::strtod(text.c_str(), nullptr);  // a finite number: the frame checked it (FLOAT)
    return v > 1.0 && v <= 1e9 ? std::string() : std::string("expected a number > 1 and at most 1e9");
}

}  // namespace

void add_options(CLI::App& cli, Options& o) {
    cli.add_option("--offset", o.offset, "P: token t stands at position P + t")
        ->capture_default_str()->check(CLI::Range(std::size_t{0}, std::size_t{1000000}));
    cli.add_option("--base", o.base, "the base of θ_i = base^(−2i/d_k): > 1, at most 1e9")
        ->capture_default_str()->check(CLI::Validator(not_a_base, "BASE"));
    cli.add_option("--max-distance", o.max_distance, "the longest distance of the decay step")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
    cli.add_option("--w-q", o.w_q_path, "your own W_Q (d_model × d_k, d_k even) instead of data/projections/W_Q.csv")
        ->type_name("PATH");
    cli.add_option("--w-k", o.w_k_path, "your own W_K (d_model × d_k, d_k even) instead of data/projections/W_K.csv")
        ->type_name("PATH");
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
