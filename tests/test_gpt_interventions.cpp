// A head's output replaced in the GPT's forward pass (HeadReplacement: chapter 23's removals,
// mean ablations and patches) against the same model written as loops in double
// (common/reference/gpt_by_loops.hpp); and what a replacement refuses.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/gpt/gpt_model.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"
#include "common/reference/gpt_by_loops.hpp"
#include "tests/shaken_gpt.hpp"

namespace {

const GptConfig small_gpt{9, 6, 2, 2, 8};  // V, T, L, H, d

double largest_difference(const Mat<double>& a, const Mat<double>& b) {
    double e = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) e = std::max(e, std::abs(a.data()[k] - b.data()[k]));
    return e;
}

Mat<double> random_rows(Random& rng, std::size_t n, std::size_t m) {
    Mat<double> r = Mat<double>::from_shape({n, m});
    for (double& x : r) x = rng.normal();
    return r;
}

}  // namespace

TEST_CASE("a head replaced in the forward pass = the loops in double with that head replaced") {
    const Gpt<float> m = shaken_gpt(small_gpt, 3);
    const Gpt<double> exact = gpt_in_double(m);
    const Tokens ids{4, 1, 8, 1, 0, 7};
    Random rng(5);
    const Mat<double> none = gpt_forward(exact, std::vector<Tokens>{ids}).logits;
    CHECK(largest_difference(none, gpt_by_loops(m, ids).logits) < 1e-9);
    const std::vector<std::vector<HeadReplacement<double>>> cases{
        {{0, 1, Mat<double>::from_shape({1, 4}) * 0.0}},                    // removed
        {{1, 0, random_rows(rng, 1, 4)}},                                   // a mean
        {{1, 1, random_rows(rng, 6, 4)}, {0, 0, random_rows(rng, 6, 4)}},  // patches, one row a token
    };
    for (const std::vector<HeadReplacement<double>>& replaced : cases) {
        const Mat<double> fast = gpt_forward(exact, std::vector<Tokens>{ids}, replaced).logits;
        const GptByLoops loops = gpt_by_loops(m, ids, replaced);
        CHECK(largest_difference(fast, loops.logits) < 1e-9);
        CHECK(largest_difference(fast, none) > 1e-3);  // the replacement changed something
        const Mat<double>& z = loops.heads[replaced[0].layer * 2 + replaced[0].head];
        CHECK(z(5, 3) == replaced[0].rows(replaced[0].rows.shape(0) == 1 ? 0 : 5, 3));
    }
}

TEST_CASE("a head replaced by its own output changes nothing, and a batch replaces row by row") {
    const Gpt<float> m = shaken_gpt(small_gpt, 4);
    const std::vector<Tokens> batch{{1, 2, 3, 4}, {5, 6, 7, 8}};
    const GptForward<float> f = gpt_forward(m, batch);
    Mat<float> own = Mat<float>::from_shape({8, 4});  // head 1 of block 1: columns 4 … 7
    for (std::size_t i = 0; i < 8; ++i)
        for (std::size_t k = 0; k < 4; ++k) own(i, k) = f.blocks[1].heads(i, 4 + k);
    const GptForward<float> same = gpt_forward(m, batch, {{1, 1, own}});
    CHECK(std::equal(same.logits.begin(), same.logits.end(), f.logits.begin()));
}

TEST_CASE("a replacement of a head the model lacks, or of rows of another shape, is refused") {
    const Gpt<float> m = shaken_gpt(small_gpt, 5);
    const std::vector<Tokens> batch{{1, 2, 3}};
    const Mat<float> row = Mat<float>::from_shape({1, 4});
    CHECK_THROWS_AS(gpt_forward(m, batch, {{2, 0, row}}), InputError);  // block 2 of 2
    CHECK_THROWS_AS(gpt_forward(m, batch, {{0, 2, row}}), InputError);  // head 2 of 2
    CHECK_THROWS_AS(gpt_forward(m, batch, {{0, 0, Mat<float>::from_shape({2, 4})}}), InputError);
    CHECK_THROWS_AS(gpt_forward(m, batch, {{0, 0, Mat<float>::from_shape({1, 3})}}), InputError);
}
