// Grading a learner's matrices: the first wrong entry is named, and the common
// mistakes are recognised (common/lesson/compare.hpp).
#include <doctest/doctest.h>

#include "common/attention/softmax.hpp"
#include "common/lesson/compare.hpp"

namespace {

const Matrix scores = {{1.0f, 2.0f, 0.5f}, {0.2f, 0.1f, 3.0f}, {1.5f, 1.5f, 0.0f}};
const Labels tokens = {"the", "cat", "sat"};

}  // namespace

TEST_CASE("equal matrices: no difference") {
    CHECK(describe_difference("weights", scores, scores, tokens, tokens).empty());
}

TEST_CASE("the first wrong entry is named with its labels and both values") {
    Matrix got = scores;
    got(1, 2) = 2.5f;
    CHECK(describe_difference("scores", got, scores, tokens, tokens) == "scores[cat, sat]: expected 3.0000, got 2.5000");
}

TEST_CASE("a softmax over the wrong axis is recognised") {
    const Matrix weights = softmax_rows(scores);
    const Matrix by_columns = xt::transpose(softmax_rows(Matrix(xt::transpose(scores))));
    const std::string text = describe_difference("weights", by_columns, weights, tokens, tokens);
    CHECK(text.find("the softmax ran over the wrong axis") != std::string::npos);
}

TEST_CASE("a missing 1/√d_k is recognised as a constant factor") {
    const Matrix scaled = scores / 2.0f;  // d_k = 4
    const std::string text = describe_difference("scaled_scores", scores, scaled, tokens, tokens);
    CHECK(text.find("√4") != std::string::npos);
}

TEST_CASE("nothing computed yet, and a wrong shape") {
    const Matrix zeros = xt::zeros<float>({3, 3});
    CHECK(describe_difference("scores", zeros, scores, tokens, tokens).find("every entry is 0") != std::string::npos);
    const Matrix wide = xt::zeros<float>({3, 4});
    CHECK(describe_difference("scores", wide, scores, tokens, tokens).find("scores: expected shape (3 × 3), got (3 × 4)") == 0);
}
