// What docs/ch02_softmax.md says about the softmax of the default sentence,
// recomputed: the gaps and weights of exercise 1, the self-checks that exercise 4
// makes fail, and the paragraph on xtensor's lazy reducers.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "common/attention/softmax.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/self_check.hpp"
#include "common/numbers/matmul.hpp"
#include "tests/printed_by.hpp"

namespace {

const std::string sentence = "the cat which was black sat on the mat";

std::string chapter_doc() {
    std::ifstream file(std::string(TUTORIAL_TESTS_DIR) + "/../docs/ch02_softmax.md");
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// The text between the heading of exercise `number` and the next exercise.
std::string exercise(const std::string& doc, int number) {
    const std::size_t from = doc.find(fmt::format("**{}. ", number));
    REQUIRE(from != std::string::npos);
    return doc.substr(from, doc.find(fmt::format("**{}. ", number + 1), from) - from);
}

}  // namespace

TEST_CASE("ch02 exercise 1: the smallest gap and the weight it quotes are the data's") {
    const Sequence seq = load_sequence("", sentence);
    const Matrix scores = matmul_transposed(seq.X, seq.X);
    const Matrix weights = softmax_rows(scores / 0.1f);
    double smallest_gap = INFINITY, weight_at_smallest = 0.0;
    for (const char* token : {"cat", "black", "sat", "mat"}) {
        const std::size_t i = index_of(seq.tokens, token);
        REQUIRE(i < rows(scores));
        double gap = INFINITY, others = 0.0;  // 1 / (1 + Σ_j e^(−gap_j / T)), the doc's formula
        for (std::size_t j = 0; j < cols(scores); ++j)
            if (j != i) {
                gap = std::min(gap, double(scores(i, i)) - scores(i, j));
                others += std::exp(-(double(scores(i, i)) - scores(i, j)) / 0.1);
            }
        CHECK(weights(i, i) >= 0.9985f);  // printed as 0.999 or 1.000
        CHECK(weights(i, i) == doctest::Approx(1.0 / (1.0 + others)).epsilon(1e-6));
        if (gap < smallest_gap) smallest_gap = gap, weight_at_smallest = 1.0 / (1.0 + others);
    }
    const std::string answer = exercise(chapter_doc(), 1);
    CHECK(answer.find(fmt::format("gap of at least {:.2f}", smallest_gap)) != std::string::npos);
    CHECK(answer.find(fmt::format("= {:.4f}", weight_at_smallest)) != std::string::npos);
}

TEST_CASE("ch02 exercise 4 quotes the self-checks that the stable loop without − row_max fails") {
    const Sequence seq = load_sequence("", sentence);
    const Matrix scores_x100 = matmul_transposed(seq.X, seq.X) * 100.0f;
    // The exercise's edit of stable_softmax_rows: exp(s) where exp(s − row_max) was.
    Matrix broken = Matrix::from_shape(scores_x100.shape());
    for (std::size_t i = 0; i < rows(broken); ++i) {
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols(broken); ++j) sum += broken(i, j) = std::exp(scores_x100(i, j));
        for (std::size_t j = 0; j < cols(broken); ++j) broken(i, j) /= sum;
    }
    SelfChecks checks;  // the two claims of chapters/02_softmax/main.cpp that the edit breaks
    const std::string printed = printed_by([&] {
        checks.that("the stable loop stays finite on 100 · scores", all_finite(broken));
        checks.close("rows of 100 · scores (stable) sum to 1", worst_row_sum_error(broken),
                     row_sum_tolerance(rows(broken)));
    });
    CHECK(checks.failed() == 2);
    const std::string answer = exercise(chapter_doc(), 4);
    std::istringstream lines(printed);
    for (std::string line; std::getline(lines, line);) {
        INFO(line);
        CHECK(answer.find(line) != std::string::npos);
    }
}

TEST_CASE("ch02's doc warns of the lazy keep_dims reducer of xtensor 0.24") {
    const std::string doc = chapter_doc();
    CHECK(doc.find("e / xt::sum(e, {1}, xt::keep_dims)") != std::string::npos);
    CHECK(doc.find("Store the reduction first") != std::string::npos);
}
