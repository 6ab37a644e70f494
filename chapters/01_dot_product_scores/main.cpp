// Chapter 01 · Dot-product scores
//
// The lesson: the scores of math.cpp, shown step by step, then checked against
// what they must be (a symmetric matrix whose diagonal is each token's squared
// length, equal to the loop of the definition).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/01_dot_product_scores/checks.hpp"
#include "chapters/01_dot_product_scores/math.hpp"
#include "common/display/text_table.hpp"
#include "common/inputs/sequence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

namespace {

const std::string default_sentence = "the cat which was black sat on the mat";

// The row of --query in the sequence; without the flag, a learner's own sequence
// that lacks the default query asks with its first token.
std::size_t query_row(const Sequence& seq, const std::string& query, bool asked) {
    const std::size_t q = index_of(seq.tokens, query);
    if (q < rows(seq.X)) return q;
    if (asked) throw InputError(fmt::format("--query {}: not a token of the sequence", query));
    return 0;
}

// Step: the embeddings, one row per token.
void show_embeddings(Lesson& lesson, const Sequence& seq, bool learned) {
    if (learned)
        lesson.say(fmt::format("Each token is a row of numbers: its embedding, here the one chapter 22's model\n"
                               "learned for it. Its {} dimensions have no names: training chose what each means.",
                               cols(seq.X)));
    else
        lesson.say(fmt::format("Each token is a row of numbers: its embedding. These {} dimensions have names,\n"
                               "so you can read what each number says about the word.",
                               cols(seq.X)));
    lesson.show(seq.X, Style().decimals(1));
}

// Whether some of one query's products are 0: hand-typed embeddings have zeros, learned ones none.
bool has_zero_products(const Matrix& X, std::size_t q) {
    for (std::size_t j = 0; j < rows(X); ++j)
        for (std::size_t d = 0; d < cols(X); ++d)
            if (X(q, d) * X(j, d) == 0.0f) return true;
    return false;
}

// Step: the terms of one query's dot products: the products that are not zero, or, when none
// is zero (learned embeddings), the first few and how many.
void show_one_query(Lesson& lesson, const Sequence& seq, std::size_t q, const DotProductScores& r) {
    const Matrix& X = seq.X;
    constexpr std::size_t dense_terms_shown = 3;
    const bool sparse = has_zero_products(X, q);
    std::vector<TextRow> shown;  // a long --input: the table shows the first and last keys
    for (std::size_t j = 0; j < rows(X); ++j) {
        std::string products;
        std::size_t terms = 0;
        for (std::size_t d = 0; d < cols(X); ++d) {
            if (X(q, d) * X(j, d) == 0.0f) continue;
            if (sparse)
                products += fmt::format("{}{} {:g}·{:g}", products.empty() ? "" : " + ", seq.dimensions[d], X(q, d), X(j, d));
            else if (terms < dense_terms_shown)
                products += fmt::format("{}{}·{}", products.empty() ? "" : " + ", format_number(X(q, d), 3),
                                        format_number(X(j, d), 3));
            ++terms;
        }
        if (!sparse && terms > dense_terms_shown) products += fmt::format(" + … ({} terms)", terms);
        shown.push_back({seq.tokens[j], products.empty() ? "0" : products,
                         format_number(r.scores_by_loops(q, j), 3)});
    }
    if (sparse)
        lesson.say("score(q, k) = Σ_d q_d · k_d. Only the dimensions that both tokens have\n"
                   "add to the score; here are the products that are not zero.");
    else
        lesson.say(fmt::format("score(q, k) = Σ_d q_d · k_d. No product is zero here: every one of the {}\n"
                               "dimensions adds to the score. The first {} terms of each sum:",
                               cols(X), dense_terms_shown));
    lesson.table({"key", "Σ_d q_d · k_d", "score"}, shown);
}

// Step: each query's self score and its most similar other token.
void show_reading(Lesson& lesson, const Labels& tokens, const Matrix& scores) {
    const std::size_t n = rows(scores);
    std::vector<TextRow> best;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t top = n;  // the best key that is another word
        for (std::size_t j = 0; j < n; ++j)
            if (tokens[j] != tokens[i] && (top == n || scores(i, j) > scores(i, top))) top = j;
        best.push_back({tokens[i], format_number(scores(i, i), 3), top == n ? "—" : tokens[top],
                        top == n ? "" : format_number(scores(i, top), 3)});
    }
    lesson.table({"query", "self score ‖x‖²", "most similar other", "score"}, best);
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, "\"" + default_sentence + "\"");
    std::string query = "sat";
    lesson.option("--query", query, "the token whose scores the one-query step computes one by one");

    return lesson.run(argc, argv, [&] {
        const Sequence seq = load_sequence(input, default_sentence);
        const std::size_t q = query_row(seq, query, lesson.given("--query"));
        const DotProductScores r = dot_product_scores(seq.X);
        lesson.labels({{"tokens", seq.tokens}, {"dimensions", seq.dimensions}});
        lesson.list(seq.matrices());
        lesson.list(r.matrices());

        lesson.step("embeddings", "The sequence as a matrix", [&] { show_embeddings(lesson, seq, !input.text.empty()); });
        lesson.step("one-query",
                    fmt::format("One query, one loop: how much is each token like \"{}\"?", seq.tokens[q]), [&] {
                        show_one_query(lesson, seq, q, r);
                    });
        lesson.step("all-at-once", "All queries at once: one matrix product", [&] {
            lesson.say(fmt::format("Row i of X · Xᵀ holds token i's dot products with every token, so one\n"
                                   "product (a single BLAS call) computes every score of {} for every query.",
                                   lesson.ref("one-query")));
            // A heat map (--svg) shows the symmetry and the bright diagonal at a glance.
            lesson.show(r.scores, Style().svg());
        });
        lesson.step("reading", "Reading the scores", [&] {
            show_reading(lesson, seq.tokens, r.scores);
            lesson.say(
                "The diagonal is each token's squared length, so a long vector scores high\n"
                "with itself; and the matrix is symmetric, because q · k = k · q while queries\n"
                "and keys are the same vectors. Learned projections (chapter 05) break both.");
        });
        lesson.step("checks", "Self-checks", [&] { check_scores(lesson.checks(), seq, r, lesson.ref("one-query")); });
        lesson.present();
    });
}
