// Chapter 01 · Dot-product scores
//
// Attention starts with one question that every token asks of every other:
// "how much are you like what I am looking for?" The simplest answer, with no
// learned weights at all, is the dot product of the two embeddings.
//
//   score(q, k) = q · k = Σ_d q_d k_d
//
// Shapes: X (n × d_model), one token per row; scores (n × n).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/elide.hpp"
#include "common/input_error.hpp"
#include "common/lesson.hpp"
#include "common/matmul.hpp"
#include "common/self_check.hpp"
#include "common/sequence.hpp"
#include "common/text_table.hpp"

namespace {

const std::string default_sentence = "the cat which was black sat on the mat";

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch01_dot_product_scores", "Chapter 01 · Dot-product scores");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    std::string query = "sat";
    lesson.cli()
        .add_option("--query", query, "the token whose scores step 2 computes one by one")
        ->capture_default_str();

    return lesson.run(argc, argv, [&] {
        const Sequence seq = load_sequence(input, default_sentence);
        const Labels& tokens = seq.tokens;
        const Matrix& X = seq.X;  // (n × d_model)
        const std::size_t n = rows(X);
        const std::size_t d_model = cols(X);
        std::size_t q = index_of(tokens, query);
        if (q == n) {
            if (lesson.cli().count("--query") > 0)
                throw InputError(fmt::format("--query {}: not a token of the sequence", query));
            q = 0;  // a learner's own sequence without "sat": ask with its first token
        }

        // ── Step 1: the embeddings ──────────────────────────────────────────
        lesson.step("The sequence as a matrix");
        lesson.say(fmt::format(
            "Each token is a row of numbers: its embedding. These {} dimensions have names,\n"
            "so you can read what each number says about the word.",
            d_model));
        lesson.show("X", "", X, tokens, seq.dimensions, 1);

        // ── Step 2: one query against every key, as a loop ─────────────────
        lesson.step(fmt::format("One query, one loop: how much is each token like \"{}\"?", tokens[q]));
        lesson.say(fmt::format(
            "score(q, k) = Σ_d q_d · k_d. Only the dimensions that both tokens have\n"
            "add to the score; here are the products that are not zero."));
        Matrix loop_scores = Matrix::from_shape({n, n});  // filled row by row below
        std::vector<TextRow> terms(n);                     // row q, one key per line
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                float sum = 0.0f;
                std::string products;
                for (std::size_t d = 0; d < d_model; ++d) {
                    const float product = X(i, d) * X(j, d);
                    sum += product;
                    if (i == q && product != 0.0f)
                        products += fmt::format("{}{} {:g}·{:g}", products.empty() ? "" : " + ",
                                                seq.dimensions[d], X(i, d), X(j, d));
                }
                loop_scores(i, j) = sum;
                if (i == q) terms[j] = {tokens[j], products.empty() ? "0" : products, fmt::format("{:.3f}", sum)};
            }
        std::vector<TextRow> shown_terms;  // a long --input: the first and last keys, like the matrices
        for (const std::size_t j : elided_indices(n)) shown_terms.push_back(j == elided ? TextRow{"⋮"} : terms[j]);
        fmt::print("\n{}", format_table({"key", "Σ_d q_d · k_d", "score"}, shown_terms));

        // ── Step 3: every query at once ─────────────────────────────────────
        lesson.step("All queries at once: one matrix product");
        lesson.say(
            "Row i of X · Xᵀ holds token i's dot products with every token, so one\n"
            "product (a single BLAS call) computes every score of step 2 for every query.");
        const Matrix scores = matmul_transposed(X, X);  // (n × d_model) · (d_model × n) → (n × n)
        // A heat map (--svg) shows the symmetry and the bright diagonal at a glance.
        lesson.show("scores", "X · Xᵀ", scores, tokens, tokens, 3, Picture::heat_map);

        // ── Step 4: reading the scores ──────────────────────────────────────
        lesson.step("Reading the scores");
        std::vector<TextRow> best;
        for (const std::size_t i : elided_indices(n)) {  // a long --input: the first and last queries
            if (i == elided) {
                best.push_back({"⋮"});
                continue;
            }
            std::size_t top = n;  // the best key that is another word
            for (std::size_t j = 0; j < n; ++j)
                if (tokens[j] != tokens[i] && (top == n || scores(i, j) > scores(i, top))) top = j;
            best.push_back({tokens[i], fmt::format("{:.3f}", scores(i, i)), top == n ? "—" : tokens[top],
                            top == n ? "" : fmt::format("{:.3f}", scores(i, top))});
        }
        fmt::print("{}", format_table({"query", "self score ‖x‖²", "most similar other", "score"}, best));
        lesson.say(
            "\nThe diagonal is each token's squared length, so a long vector scores high\n"
            "with itself; and the matrix is symmetric, because q · k = k · q while queries\n"
            "and keys are the same vectors. Learned projections (chapter 05) break both.");

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        // Float rounding grows with the size of the products summed, Σ_d |q_d k_d|, and by
        // Cauchy–Schwarz that is at most max(‖q‖², ‖k‖²), the largest score of the diagonal:
        // so tolerances relative to the largest score hold for embeddings of any size.
        check.close("the loop of step 2 equals X · Xᵀ", max_abs_difference(loop_scores, scores),
                    scaled_tolerance(1e-5, scores));
        Matrix transposed = Matrix::from_shape({n, n});
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) transposed(i, j) = scores(j, i);
        check.close("scores is symmetric: scores = scoresᵀ", max_abs_difference(scores, transposed),
                    scaled_tolerance(1e-6, scores));
        double diagonal_error = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            double length2 = 0.0;
            for (std::size_t d = 0; d < d_model; ++d) length2 += double(X(i, d)) * X(i, d);
            diagonal_error = std::max(diagonal_error, std::abs(length2 - scores(i, i)));
        }
        check.close("the diagonal is ‖x_i‖², each token's squared length", diagonal_error,
                    scaled_tolerance(1e-5, scores));
        const std::size_t sat = index_of(tokens, "sat"), cat = index_of(tokens, "cat"),
                          mat = index_of(tokens, "mat"), black = index_of(tokens, "black");
        if (std::max({sat, cat, mat, black}) < n)
            check.that("\"sat\" scores \"cat\" and \"mat\" higher than \"black\"",
                       scores(sat, cat) > scores(sat, black) && scores(sat, mat) > scores(sat, black));
    });
}
