#include "chapters/08_cross_attention/checks.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/lesson/attention_tolerance.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

// The French word → the English word it translates, for the alignment self-check.
const std::map<std::string, std::string> translation_of = {
    {"le", "the"},     {"chat", "cat"},   {"chien", "dog"},
    {"noir", "black"}, {"blanc", "white"}, {"assis", "sat"}};

// The words between single quotes in `text`.
std::vector<std::string> quoted_words(const std::string& text) {
    std::vector<std::string> words;
    for (std::size_t open = text.find('\''); open != std::string::npos; open = text.find('\'', open + 1)) {
        const std::size_t close = text.find('\'', open + 1);
        if (close == std::string::npos) break;
        words.push_back(text.substr(open + 1, close - open - 1));
        open = close;
    }
    return words;
}

}  // namespace

void check_cross_attention(SelfChecks& check, const Labels& english, const Labels& french, bool own_states,
                           const CrossAttention& r, const std::string& alignment_text) {
    const std::size_t m = french.size(), n = english.size(), d_k = cols(r.Q), d_v = cols(r.V);
    const AttentionSteps& steps = r.steps;
    check.that(fmt::format("the shapes: Q ({0} × {2}), K ({1} × {2}), V ({1} × {3}), weights ({0} × {1}), "
                           "output ({0} × {3})",
                           m, n, d_k, d_v),
               rows(r.Q) == m && rows(r.K) == n && cols(r.K) == d_k && rows(r.V) == n && rows(steps.weights) == m &&
                   cols(steps.weights) == n && rows(steps.output) == m && cols(steps.output) == d_v);
    check.close("every row of weights sums to 1", worst_row_sum_error(steps.weights), row_sum_tolerance(n));
    // The loop of the papers, one decoder token at a time over every encoder token, in
    // double (common/reference): it differs from the float matrix form by the latter's
    // rounding (common/lesson/attention_tolerance.hpp).
    const AttentionByLoops loops = attention_by_loops(r.Q, r.K, r.V);
    const AttentionTolerance tolerance = attention_tolerance(r.Q, r.K, r.V);
    check.close("a loop over decoder and encoder tokens gives the same weights",
                max_abs_difference(loops.weights, steps.weights), tolerance.weights);
    check.close("a loop over decoder and encoder tokens gives the same output",
                max_abs_difference(loops.output, steps.output), tolerance.output);
    // The alignment of every French word whose English translation is in the source once.
    // It is built into the states and projections of data/translation/, so it is a
    // claim about words looked up there, not about states from --encoder/--decoder.
    const std::string alignment_claim = "each French word looks most at its translation";
    std::vector<std::string> pairs;
    bool aligned = true;
    for (std::size_t i = 0; i < m; ++i) {
        const auto found = translation_of.find(french[i]);
        if (found == translation_of.end() || std::count(english.begin(), english.end(), found->second) != 1) continue;
        aligned = aligned && english[r.looks_at[i]] == found->second;
        pairs.push_back(french[i] + "→" + found->second);
    }
    if (own_states)
        check.skip(alignment_claim, "states from --encoder/--decoder: the alignment is built into "
                                    "data/translation/ only");
    else if (!pairs.empty())
        check.that(fmt::format("{}: {}", alignment_claim, fmt::join(pairs, ", ")), aligned);
    bool named = true;
    for (const std::string& word : quoted_words(alignment_text))
        named = named && (index_of(english, word) < n || index_of(french, word) < m);
    check.that("the alignment's text names only words of the two sentences", named);
    check.close("reversing the encoder reverses the columns of weights",
                max_abs_difference(r.reversed.weights, permute_columns(steps.weights, r.order)), 1e-6);
    check.close("reversing the encoder leaves the output unchanged", max_abs_difference(r.reversed.output, steps.output),
                scaled_tolerance(1e-6, steps.output));
}
