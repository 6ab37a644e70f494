// Chapter 05 · Learned projections: Q, K, V
//
// The lesson: the projections of math.cpp, shown step by step (the sequence,
// W_Q, W_K, W_V, the matrix form and the loop form of attention, the asymmetry
// they bring, the "its" → "law" example, W_Q · W_Kᵀ), then checked against what
// they must be, computed another way. The matrices are written by hand
// (data/projections/), so that every entry can be read; a model learns them
// (chapter 11).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chapters/05_projections/math.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/lesson/combination.hpp"
#include "common/lesson/elide.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"
#include "common/math/matmul.hpp"

namespace {

const std::string default_sentence = "this forum is awesome";
const std::string law_sentence = "the law will never be perfect but its application should be just";

// data/projections/<name>.csv, or the learner's own file.
LabelledMatrix read_projection(const std::string& path, const std::string& name) {
    return path.empty() ? read_data_file("projections/" + name + ".csv") : read_labelled_csv(path);
}

struct Weights {
    LabelledMatrix W_Q, W_K, W_V;  // (d_model × d_k), (d_model × d_k), (d_model × d_v)
};

// Each W reads the sequence's dimensions, and a query and a key have one width d_k.
void require_fit(const Weights& W, const Sequence& seq, const std::string& seq_source) {
    for (const LabelledMatrix* w : {&W.W_Q, &W.W_K, &W.W_V}) require_projects(*w, seq, seq_source);
    if (W.W_K.columns.size() != W.W_Q.columns.size())
        throw InputError(fmt::format("{}: W_K has {} columns, but W_Q ({}) has {}: a query and a key must have "
                                     "the same width d_k to be compared",
                                     W.W_K.source, W.W_K.columns.size(), W.W_Q.source, W.W_Q.columns.size()));
}

// Step projections: the three matrices, as read.
void show_projections(Lesson& lesson, const Weights& W) {
    lesson.say(fmt::format(
        "Each matrix has one row per embedding dimension and one column per output\n"
        "slot. Queries and keys share the slots (d_k = {}): a score is large when a\n"
        "query and a key fill the same slot. Read W_Q as \"a token that has this\n"
        "feature looks for…\", W_K as \"a token that has this feature offers…\".",
        W.W_Q.columns.size()));
    lesson.show("W_Q", W.W_Q.values, ShowAs().labels(W.W_Q.rows, W.W_Q.columns).decimals(1));
    lesson.show("W_K", W.W_K.values, ShowAs().labels(W.W_K.rows, W.W_K.columns).decimals(1));
    lesson.show("W_V", W.W_V.values, ShowAs().labels(W.W_V.rows, W.W_V.columns).decimals(1));
}

// A vector written out as (0.000, 0.123, …).
std::string tuple_of_row(const Matrix& m, std::size_t i, int decimals) {
    std::vector<std::string> parts;
    for (std::size_t d = 0; d < cols(m); ++d) parts.push_back(format_number(m(i, d), decimals));
    return fmt::format("({})", fmt::join(parts, ", "));
}

// Step matrix-form: every intermediate, then each output row as a blend of value rows.
void show_matrix_form(Lesson& lesson, const Labels& tokens, const Weights& W, const Projected& r) {
    const AttentionSteps& a = r.attention;
    lesson.show("scores", a.scores, ShowAs("Q · Kᵀ").labels(tokens, tokens).heat_map());
    lesson.show("scaled_scores", a.scaled_scores,
                ShowAs(fmt::format("scores / √{}", cols(r.K))).labels(tokens, tokens));
    lesson.show("weights", a.weights, ShowAs("softmax(scaled_scores)").labels(tokens, tokens).heat_map());
    lesson.show("output", a.output, ShowAs("weights · V").labels(tokens, W.W_V.columns));
    lesson.say("Each output row is a blend of the value rows:");
    lesson.say(combinations_of_rows(a.weights, tokens));
}

// Step loop-form: the last query, term by term, from the loops of math.cpp.
void show_loop_form(Lesson& lesson, const Labels& tokens, const Projected& r) {
    lesson.say(
        fmt::format("Papers often write attention one query at a time. Computed with plain loops\n"
                    "for every query, it gives the matrices of {} (checked at the end). Here\n"
                    "is one query, term by term:",
                    lesson.ref("matrix-form")));
    const LoopForm& loops = r.loops;
    lesson.keep_for_dump("loops_scores", loops.scores, tokens, tokens);  // every query, not only the last
    lesson.keep_for_dump("loops_scaled_scores", loops.scaled_scores, tokens, tokens);
    lesson.keep_for_dump("loops_weights", loops.weights, tokens, tokens);
    lesson.keep_for_dump("loops_output", loops.output, tokens);
    lesson.keep_for_dump("last_query_terms", r.last_query_terms, tokens);
    const std::size_t last = tokens.size() - 1;
    std::vector<TextRow> table;
    for (std::size_t j = 0; j < tokens.size(); ++j) {  // a long --input: the first and last keys
        table.push_back({tokens[j], fmt::format("{:.3f}", loops.scores(last, j)),
                         fmt::format("{:.3f}", loops.scaled_scores(last, j)),
                         fmt::format("{:.3f}", loops.weights(last, j)), tuple_of_row(r.last_query_terms, j, 3)});
    }
    table.push_back({"Σ", "", "", "", tuple_of_row(loops.output, last, 3)});
    lesson.table({"key j", "q·k_j", "q·k_j / √d_k", "softmax_j", "softmax_j · v_j"}, table);
}

// Rounding alone leaves float scores of size S asymmetric by ~S · 1e-7, so an
// asymmetry counts only above 1e-3 of the largest score (and above 1e-3).
double asymmetry_threshold(const Matrix& scores) { return scaled_tolerance(1e-3, scores); }

// Step asymmetry: the pair whose two scores differ most.
void show_asymmetry(Lesson& lesson, const Labels& tokens, const Projected& r) {
    const Matrix& s = r.attention.scores;
    const Asymmetry& a = r.asymmetry;
    lesson.say(
        "In chapter 01, q · k = k · q because queries and keys were the same vectors.\n"
        "Now q_i · k_j = x_i W_Q · x_j W_K and q_j · k_i = x_j W_Q · x_i W_K are different\n"
        "products.");
    if (tokens.size() < 2)
        lesson.say_under(
            "With one token there is a single score, the token's query against its own\n"
            "key: nothing to compare it with.");
    else if (a.amount > asymmetry_threshold(s))
        lesson.say_under(
            fmt::format("\"{}\" → \"{}\" scores {}, but \"{}\" → \"{}\" scores {}: what a token looks\n"
                        "for is not what it offers.",
                        tokens[a.i], tokens[a.j], format_number(s(a.i, a.j), 3), tokens[a.j], tokens[a.i],
                        format_number(s(a.j, a.i), 3)));
    else
        lesson.say_under(
            "Yet these scores are symmetric: W_Q · W_Kᵀ is a symmetric matrix (as when\n"
            "W_K = W_Q), so every token offers exactly what it looks for.");
    lesson.say_under(
        fmt::format("And a token need not be its own best match: {} of {} queries score another\n"
                    "token highest.",
                    r.not_self, tokens.size()));
}

// Step its-and-law: the row of "its" without and with projections.
void show_law(Lesson& lesson, const Sequence& law, const Weights& W, const RawAndProjected& r) {
    const std::size_t its = index_of(law.tokens, "its"), law_index = index_of(law.tokens, "law");
    const Matrix& raw = r.raw_weights;
    const Matrix& projected = r.projected.weights;
    lesson.say(fmt::format(
        "\"{}\":\n"
        "\"its\" refers to the law. Its embedding is pronoun and function; \"law\" is\n"
        "abstract. Raw similarity (chapters 01–04) compares the embeddings themselves,\n"
        "and they have nothing in common: x_its · x_law = {}. The projections compare\n"
        "what \"its\" looks for, q_its = x_its · W_Q, with what \"law\" offers,\n"
        "k_law = x_law · W_K: q_its · k_law = {}.",
        law_sentence, format_number(r.raw_scores(its, law_index), 2),
        format_number(r.projected.scores(its, law_index), 2)));
    lesson.keep_for_dump("law_X", law.X);
    lesson.keep_for_dump("law_scores_raw", r.raw_scores);
    lesson.keep_for_dump("law_scores", r.projected.scores);
    lesson.keep_for_dump("law_scaled_scores", r.projected.scaled_scores);
    // The whole 12 × 12 maps go to --dump and --svg; the row of "its" is printed below.
    lesson.keep_for_dump("law_weights_raw", raw);
    lesson.picture("law_weights_raw", raw,
                   ShowAs("softmax(law_X · law_Xᵀ / √d_model)").labels(law.tokens, law.tokens).decimals(2));
    lesson.keep_for_dump("law_Q", r.Q);
    lesson.keep_for_dump("law_K", r.K);
    lesson.keep_for_dump("law_V", r.V);
    lesson.keep_for_dump("law_weights", projected);
    lesson.picture("law_weights", projected,
                   ShowAs("softmax(law_Q · law_Kᵀ / √d_k)").labels(law.tokens, law.tokens).decimals(2));
    lesson.keep_for_dump("law_output", r.projected.output);
    std::vector<TextRow> table;
    for (std::size_t j = 0; j < law.tokens.size(); ++j)
        table.push_back({law.tokens[j], fmt::format("{:.3f}", raw(its, j)), fmt::format("{:.3f}", projected(its, j))});
    lesson.say(
        "The weights of \"its\", side by side: law_weights_raw = softmax(X · Xᵀ / √d_model)\n"
        "without projections, law_weights = softmax(Q · Kᵀ / √d_k) with them.");
    lesson.table({"key", "law_weights_raw", "law_weights"}, table);
    const std::size_t raw_best = argmax_of_row(raw, its), projected_best = argmax_of_row(projected, its);
    std::vector<std::string> output;
    for (std::size_t d = 0; d < cols(r.projected.output); ++d)
        output.push_back(W.W_V.columns[d] + " " + format_number(r.projected.output(its, d), 2));
    lesson.say(
        fmt::format("Raw, \"its\" puts its largest weight on \"{}\" ({:.3f}); projected, on \"{}\" ({:.3f}):\n"
                    "  raw        its = {}\n"
                    "  projected  its = {}\n"
                    "and the output of \"its\", law_weights · law_V, is\n"
                    "  ({})",
                    law.tokens[raw_best], raw(its, raw_best), law.tokens[projected_best],
                    projected(its, projected_best), format_combination(combination_of_row(raw, its, 3), law.tokens),
                    format_combination(combination_of_row(projected, its, 3), law.tokens), fmt::join(output, ", ")));
}

// Step w-qk: W_Q · W_Kᵀ and its strongest entries.
void show_w_qk(Lesson& lesson, const Labels& dims, const Projected& r) {
    const Matrix& W_QK = r.W_QK;
    lesson.say(
        "q_i · k_j = x_i W_Q · x_j W_K = Σ_a Σ_b x_i[a] (W_Q · W_Kᵀ)[a, b] x_j[b]: entry (a, b)\n"
        "says how much feature a of the query looks for feature b of the key. Raw\n"
        "similarity is the case W_Q · W_Kᵀ = I: each feature looks only for itself.\n"
        "Rows: the query's features; columns: the key's.");
    lesson.show("W_QK", W_QK, ShowAs("W_Q · W_Kᵀ").labels(dims, dims).decimals(1).heat_map());
    std::vector<std::pair<std::size_t, std::size_t>> entries;
    for (std::size_t a = 0; a < rows(W_QK); ++a)
        for (std::size_t b = 0; b < cols(W_QK); ++b) entries.emplace_back(a, b);
    std::stable_sort(entries.begin(), entries.end(), [&](const auto& x, const auto& y) {
        return W_QK(x.first, x.second) > W_QK(y.first, y.second);
    });
    std::vector<TextRow> strongest;
    for (std::size_t e = 0; e < std::min<std::size_t>(5, entries.size()); ++e) {
        const auto [a, b] = entries[e];
        strongest.push_back({dims[a], dims[b], fmt::format("{:.1f}", W_QK(a, b))});
    }
    lesson.say("The strongest links:");
    lesson.table({"query feature", "looks for key feature", "W_Q · W_Kᵀ"}, strongest);
    lesson.say(r.qk_symmetric
                   ? fmt::format("Here W_Q · W_Kᵀ is symmetric, so the scores are symmetric too ({}).",
                                 lesson.ref("asymmetry"))
                   : fmt::format("W_Q · W_Kᵀ is not symmetric: \"a looks for b\" does not mean \"b looks for a\".\n"
                                 "That is where the asymmetry of {} comes from.",
                                 lesson.ref("asymmetry")));
}

// Each claim against something computed another way: the loops in double, the
// product through W_Q · W_Kᵀ, the row sums.
void check(Lesson& lesson, const Matrix& X, const Weights& W, const Projected& r, const RawAndProjected* law,
           const Labels& law_tokens) {
    SelfChecks& check = lesson.checks();
    const AttentionSteps& a = r.attention;
    const std::size_t n = rows(X);
    // The loops sum in double: they differ from the float matrix form by its rounding,
    // which grows with the size of the scores and of V (common/lesson/attention_tolerance.hpp).
    const AttentionTolerance tolerance = attention_tolerance(r.Q, r.K, r.V);
    check.close(fmt::format("the loops of {} (in double) give the same weights", lesson.ref("loop-form")),
                max_abs_difference(r.loops.weights, a.weights), tolerance.weights);
    check.close(fmt::format("the loops of {} (in double) give the same output", lesson.ref("loop-form")),
                max_abs_difference(r.loops.output, a.output), tolerance.output);
    check.close("every row of weights sums to 1", worst_row_sum_error(a.weights), row_sum_tolerance(n));
    // The two products add up the terms |x_a| |W_Q W_Kᵀ|_ab |x_b| in different orders, so they
    // differ by rounding relative to those terms, not to the scores, which can cancel to ~0.
    const Matrix term_sizes = matmul_transposed(matmul(xt::abs(X), xt::abs(W.W_Q.values)),
                                                matmul(xt::abs(X), xt::abs(W.W_K.values)));  // (n × n)
    check.close("scores = X · (W_Q · W_Kᵀ) · Xᵀ", max_abs_difference(matmul_transposed(matmul(X, r.W_QK), X), a.scores),
                scaled_tolerance(1e-5, term_sizes));
    if (n < 2)
        check.skip("the scores are not symmetric", "one token: a 1 × 1 matrix is always symmetric");
    else
        check.that(fmt::format("the scores are not symmetric (largest |scores − scoresᵀ| = {})",
                               format_number(r.asymmetry.amount, 3)),
                   r.asymmetry.amount > asymmetry_threshold(a.scores));
    if (law != nullptr) {
        const std::size_t its = index_of(law_tokens, "its"), law_index = index_of(law_tokens, "law");
        check.that("\"its\" puts its largest weight on \"law\" after projection, but not before",
                   argmax_of_row(law->projected.weights, its) == law_index &&
                       argmax_of_row(law->raw_weights, its) != law_index);
    }
}

// The flags: the learner's own projections.
struct Flags {
    std::string w_q_path, w_k_path, w_v_path;
};

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--w-q", f.w_q_path, "your own W_Q (d_model rows, d_k columns) instead of data/projections/W_Q.csv")
        ->type_name("PATH");
    cli.add_option("--w-k", f.w_k_path, "your own W_K (d_model rows, d_k columns) instead of data/projections/W_K.csv")
        ->type_name("PATH");
    cli.add_option("--w-v", f.w_v_path, "your own W_V (d_model rows, d_v columns) instead of data/projections/W_V.csv")
        ->type_name("PATH");
}

// The three projections, read and checked against the sequence.
Weights load_weights(const Flags& f, const Sequence& seq, const std::string& input) {
    Weights W{read_projection(f.w_q_path, "W_Q"), read_projection(f.w_k_path, "W_K"),
              read_projection(f.w_v_path, "W_V")};
    require_fit(W, seq, input.empty() ? data_path("embeddings.csv") : input);
    return W;
}

// The law sentence, from data/embeddings.csv: only when W fits its dimensions.
struct Law {
    bool runs = false;
    std::size_t embedding_dims = 0;  // the width of data/embeddings.csv
    Sequence seq;
    RawAndProjected r;
};

Law the_law(const Sequence& seq, const Weights& W) {
    const LabelledMatrix embeddings = read_data_file("embeddings.csv");
    Law law;
    law.runs = embeddings.columns == seq.dimensions;
    law.embedding_dims = embeddings.columns.size();
    if (law.runs) {
        law.seq = embed_sentence(embeddings, law_sentence);
        law.r = raw_and_projected(law.seq.X, W.W_Q.values, W.W_K.values, W.W_V.values);
    }
    return law;
}

// Step sequence: X, as in chapter 01.
void show_sequence(Lesson& lesson, const Sequence& seq, const std::string& input) {
    lesson.say(fmt::format("\"{}\", one embedding per row, as in chapter 01.",
                           input.empty() ? default_sentence : join_elided(seq.tokens, " ")));
    lesson.show("X", seq.X, ShowAs().labels(seq.tokens, seq.dimensions).decimals(1));
}

// Step qkv: the three projections of X.
void show_qkv(Lesson& lesson, const Labels& tokens, const Weights& W, const Projected& r) {
    lesson.show("Q", r.Q, ShowAs("X · W_Q").labels(tokens, W.W_Q.columns).decimals(2));
    lesson.show("K", r.K, ShowAs("X · W_K").labels(tokens, W.W_K.columns).decimals(2));
    lesson.show("V", r.V, ShowAs("X · W_V").labels(tokens, W.W_V.columns).decimals(2));
}

// Step its-and-law: the law sentence, or why it is skipped.
void show_its_and_law(Lesson& lesson, const Law& law, const Weights& W) {
    if (law.runs) return show_law(lesson, law.seq, W, law.r);
    lesson.say(fmt::format("Skipped: this step's sentence, \"{}\",\n"
                           "is embedded with data/embeddings.csv, whose {} dimensions are not the rows of W_Q.",
                           law_sentence, law.embedding_dims));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch05_projections", "Chapter 05 · Learned projections: Q, K, V");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    Flags flags;
    add_flags(lesson.cli(), flags);

    return lesson.run(argc, argv, [&] {
        // Everything is read and checked before anything is printed.
        const Sequence seq = load_sequence(input, default_sentence);
        const Weights W = load_weights(flags, seq, input);
        const Projected r = project_and_attend(seq.X, W.W_Q.values, W.W_K.values, W.W_V.values);
        const Law law = the_law(seq, W);
        const Labels& tokens = seq.tokens;

        lesson.step("sequence", "The sequence X", [&] { show_sequence(lesson, seq, input); });
        lesson.step("projections", "Three projections: W_Q, W_K, W_V", [&] { show_projections(lesson, W); });
        lesson.step("qkv", "Queries, keys and values: three views of each token",
                    [&] { show_qkv(lesson, tokens, W, r); });
        lesson.step("matrix-form", "Attention in matrix form: softmax(Q · Kᵀ / √d_k) · V",
                    [&] { show_matrix_form(lesson, tokens, W, r); });
        lesson.step("loop-form",
                    fmt::format("The loop form: output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j (query \"{}\")",
                                tokens.back()),
                    [&] { show_loop_form(lesson, tokens, r); });
        lesson.step("asymmetry", "The scores are no longer symmetric", [&] { show_asymmetry(lesson, tokens, r); });
        lesson.step("its-and-law", "Why projections: what does \"its\" refer to?",
                    [&] { show_its_and_law(lesson, law, W); });
        lesson.step("w-qk", "Reading W_Q · W_Kᵀ: which feature looks for which",
                    [&] { show_w_qk(lesson, seq.dimensions, r); });
        lesson.step("checks", "Self-checks",
                    [&] { check(lesson, seq.X, W, r, law.runs ? &law.r : nullptr, law.seq.tokens); });
        lesson.present();
    });
}
