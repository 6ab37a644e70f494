// Chapter 05 · Learned projections: Q, K, V
//
// Until now a token's query, key and value were all its embedding, so a token
// could only look for tokens like itself. A transformer gives each token three
// different vectors, by three learned matrices:
//
//   Q = X · W_Q     what each token is looking for
//   K = X · W_K     what each token offers to be found by
//   V = X · W_V     what each token hands back when it is found
//
//   Attention(Q, K, V) = softmax(Q · Kᵀ / √d_k) · V        (Vaswani et al. 2017, eq. 1)
//   output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j          the same, one query at a time
//
// The matrices here are written by hand (data/projections/), so that every
// entry can be read; a model learns them (chapter 11).
//
// Shapes: X (n × d_model); W_Q, W_K (d_model × d_k); W_V (d_model × d_v);
// Q, K (n × d_k); V (n × d_v); scores, scaled_scores, weights (n × n);
// output (n × d_v); W_Q · W_Kᵀ (d_model × d_model).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/math/attention.hpp"
#include "common/lesson/combination.hpp"
#include "common/lesson/elide.hpp"
#include "common/math/input_error.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/matmul.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/math/softmax.hpp"
#include "common/lesson/text_table.hpp"

namespace {

const std::string default_sentence = "this forum is awesome";
const std::string law_sentence = "the law will never be perfect but its application should be just";

// data/projections/<name>.csv, or the learner's own file.
LabelledMatrix read_projection(const std::string& path, const std::string& name) {
    return path.empty() ? read_data_file("projections/" + name + ".csv") : read_labelled_csv(path);
}

// The attention of the papers, one query at a time, with nothing but loops:
// output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j. Fills weights (n × m) too.
Matrix attention_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, Matrix& weights) {
    const std::size_t n = rows(Q), m = rows(K), d_k = cols(Q), d_v = cols(V);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
    weights = Matrix::from_shape({n, m});
    Matrix output = Matrix::from_shape({n, d_v});
    for (std::size_t i = 0; i < n; ++i) {
        // 1. the scaled score of query i against every key, and their maximum
        std::vector<float> s(m);
        float largest = -INFINITY;
        for (std::size_t j = 0; j < m; ++j) {
            float dot = 0.0f;
            for (std::size_t d = 0; d < d_k; ++d) dot += Q(i, d) * K(j, d);
            s[j] = dot * scale;
            largest = std::max(largest, s[j]);
        }
        // 2. softmax over the keys (shifted by the maximum, chapter 02)
        float sum = 0.0f;
        for (std::size_t j = 0; j < m; ++j) sum += std::exp(s[j] - largest);
        for (std::size_t j = 0; j < m; ++j) weights(i, j) = std::exp(s[j] - largest) / sum;
        // 3. the weighted sum of the values
        for (std::size_t d = 0; d < d_v; ++d) {
            float acc = 0.0f;
            for (std::size_t j = 0; j < m; ++j) acc += weights(i, j) * V(j, d);
            output(i, d) = acc;
        }
    }
    return output;
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch05_projections", "Chapter 05 · Learned projections: Q, K, V");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    std::string w_q_path, w_k_path, w_v_path;
    lesson.cli()
        .add_option("--w-q", w_q_path, "your own W_Q (d_model rows, d_k columns) instead of data/projections/W_Q.csv")
        ->type_name("PATH");
    lesson.cli()
        .add_option("--w-k", w_k_path, "your own W_K (d_model rows, d_k columns) instead of data/projections/W_K.csv")
        ->type_name("PATH");
    lesson.cli()
        .add_option("--w-v", w_v_path, "your own W_V (d_model rows, d_v columns) instead of data/projections/W_V.csv")
        ->type_name("PATH");

    return lesson.run(argc, argv, [&] {
        // Everything is read and checked before anything is printed.
        const Sequence seq = load_sequence(input, default_sentence);
        const std::string seq_source = input.empty() ? data_path("embeddings.csv") : input;
        const LabelledMatrix W_Q = read_projection(w_q_path, "W_Q");  // (d_model × d_k)
        const LabelledMatrix W_K = read_projection(w_k_path, "W_K");  // (d_model × d_k)
        const LabelledMatrix W_V = read_projection(w_v_path, "W_V");  // (d_model × d_v)
        for (const LabelledMatrix* W : {&W_Q, &W_K, &W_V}) require_projects(*W, seq, seq_source);
        if (W_K.columns.size() != W_Q.columns.size())
            throw InputError(fmt::format("{}: W_K has {} columns, but W_Q ({}) has {}: a query and a key must have "
                                         "the same width d_k to be compared",
                                         W_K.source, W_K.columns.size(), W_Q.source, W_Q.columns.size()));
        const Labels& tokens = seq.tokens;
        const Labels& dims = seq.dimensions;
        // Step 7's sentence, from data/embeddings.csv: only when W fits its dimensions.
        const LabelledMatrix embeddings = read_data_file("embeddings.csv");
        const bool law_runs = embeddings.columns == dims;
        const Sequence law = law_runs ? embed_sentence(embeddings, law_sentence) : Sequence{};
        const Matrix& X = seq.X;  // (n × d_model)
        const std::size_t n = tokens.size(), d_k = W_Q.columns.size();

        // ── Step 1: the sequence ────────────────────────────────────────────
        lesson.step("The sequence X");
        lesson.say(fmt::format("\"{}\", one embedding per row, as in chapter 01.",
                               input.empty() ? default_sentence : join_elided(tokens, " ")));
        lesson.show("X", "", X, tokens, dims, 1);

        // ── Step 2: the projections ─────────────────────────────────────────
        lesson.step("Three projections: W_Q, W_K, W_V");
        lesson.say(fmt::format(
            "Each matrix has one row per embedding dimension and one column per output\n"
            "slot. Queries and keys share the slots (d_k = {}): a score is large when a\n"
            "query and a key fill the same slot. Read W_Q as \"a token that has this\n"
            "feature looks for…\", W_K as \"a token that has this feature offers…\".",
            d_k));
        lesson.show("W_Q", "", W_Q.values, W_Q.rows, W_Q.columns, 1);
        lesson.show("W_K", "", W_K.values, W_K.rows, W_K.columns, 1);
        lesson.show("W_V", "", W_V.values, W_V.rows, W_V.columns, 1);

        // ── Step 3: queries, keys, values ───────────────────────────────────
        lesson.step("Queries, keys and values: three views of each token");
        const Matrix Q = matmul(X, W_Q.values);  // (n × d_k)
        const Matrix K = matmul(X, W_K.values);  // (n × d_k)
        const Matrix V = matmul(X, W_V.values);  // (n × d_v)
        lesson.show("Q", "X · W_Q", Q, tokens, W_Q.columns, 2);
        lesson.show("K", "X · W_K", K, tokens, W_K.columns, 2);
        lesson.show("V", "X · W_V", V, tokens, W_V.columns, 2);

        // ── Step 4: attention, in matrix form ───────────────────────────────
        lesson.step("Attention in matrix form: softmax(Q · Kᵀ / √d_k) · V");
        const AttentionSteps a = scaled_dot_product_attention(Q, K, V);
        lesson.show("scores", "Q · Kᵀ", a.scores, tokens, tokens, 3, Picture::heat_map);
        lesson.show("scaled_scores", fmt::format("scores / √{}", d_k), a.scaled_scores, tokens, tokens, 3);
        lesson.show("weights", "softmax(scaled_scores)", a.weights, tokens, tokens, 3);
        lesson.show("output", "weights · V", a.output, tokens, W_V.columns, 3);
        lesson.say("\nEach output row is a blend of the value rows:\n");
        for (const std::size_t i : elided_indices(n))  // a long --input: the first and last rows
            lesson.say(i == elided ? "⋮"
                                   : fmt::format("{} = {}", tokens[i],
                                                 format_combination(combination_of_row(a.weights, i, 4, 0.02f), tokens)));

        // ── Step 5: the loop form of the papers ─────────────────────────────
        const std::size_t last = n - 1;
        lesson.step(fmt::format("The loop form: output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j (query \"{}\")",
                                tokens[last]));
        lesson.say(
            "Papers often write attention one query at a time. Computed with plain loops\n"
            "for every query, it gives the matrices of step 4 (checked at the end). Here\n"
            "is one query, term by term:\n");
        Matrix loop_weights;
        const Matrix loop_output = attention_by_loops(Q, K, V, loop_weights);
        {
            std::vector<TextRow> table;
            const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
            for (const std::size_t j : elided_indices(n)) {  // a long --input: the first and last keys
                if (j == elided) {
                    table.push_back({"⋮"});
                    continue;
                }
                float dot = 0.0f;
                for (std::size_t d = 0; d < d_k; ++d) dot += Q(last, d) * K(j, d);
                std::vector<std::string> weighted;
                for (std::size_t d = 0; d < cols(V); ++d)
                    weighted.push_back(format_number(loop_weights(last, j) * V(j, d), 3));
                table.push_back({tokens[j], fmt::format("{:.3f}", dot), fmt::format("{:.3f}", dot * scale),
                                 fmt::format("{:.3f}", loop_weights(last, j)),
                                 fmt::format("({})", fmt::join(weighted, ", "))});
            }
            std::vector<std::string> total;
            for (std::size_t d = 0; d < cols(V); ++d) total.push_back(format_number(loop_output(last, d), 3));
            table.push_back({"Σ", "", "", "", fmt::format("({})", fmt::join(total, ", "))});
            fmt::print("{}", format_table({"key j", "q·k_j", "q·k_j / √d_k", "softmax_j", "softmax_j · v_j"}, table));
        }

        // ── Step 6: no longer symmetric ─────────────────────────────────────
        lesson.step("The scores are no longer symmetric");
        double asymmetry = 0.0;
        std::size_t ai = 0, aj = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                if (std::abs(a.scores(i, j) - a.scores(j, i)) > asymmetry)
                    asymmetry = std::abs(a.scores(i, j) - a.scores(j, i)), ai = i, aj = j;
        if (a.scores(ai, aj) < a.scores(aj, ai)) std::swap(ai, aj);
        // Rounding alone leaves float scores of size S asymmetric by ~S · 1e-7, so an
        // asymmetry counts only above 1e-3 of the largest score (and above 1e-3).
        const double asymmetry_threshold = scaled_tolerance(1e-3, a.scores);
        std::size_t not_self = 0;  // queries whose best key is another token
        for (std::size_t i = 0; i < n; ++i) not_self += argmax_of_row(a.scores, i) != i;
        lesson.say(
            "In chapter 01, q · k = k · q because queries and keys were the same vectors.\n"
            "Now q_i · k_j = x_i W_Q · x_j W_K and q_j · k_i = x_j W_Q · x_i W_K are different\n"
            "products.");
        if (n < 2)
            lesson.say("With one token there is a single score, the token's query against its own\n"
                       "key: nothing to compare it with.");
        else if (asymmetry > asymmetry_threshold)
            lesson.say(fmt::format(
                "\"{}\" → \"{}\" scores {}, but \"{}\" → \"{}\" scores {}: what a token looks\n"
                "for is not what it offers.",
                tokens[ai], tokens[aj], format_number(a.scores(ai, aj), 3), tokens[aj], tokens[ai],
                format_number(a.scores(aj, ai), 3)));
        else
            lesson.say(
                "Yet these scores are symmetric: W_Q · W_Kᵀ is a symmetric matrix (as when\n"
                "W_K = W_Q), so every token offers exactly what it looks for.");
        lesson.say(fmt::format("And a token need not be its own best match: {} of {} queries score another\n"
                               "token highest.",
                               not_self, n));

        // ── Step 7: why projections: "its" and "law" ────────────────────────
        lesson.step("Why projections: what does \"its\" refer to?");
        bool its_finds_law = false, raw_finds_law = true;
        if (!law_runs) {
            lesson.say(fmt::format(
                "Skipped: this step's sentence, \"{}\",\n"
                "is embedded with data/embeddings.csv, whose {} dimensions are not the rows of W_Q.",
                law_sentence, embeddings.columns.size()));
        } else {
            const Matrix& LX = law.X;  // (12 × d_model)
            const float root_d_model = std::sqrt(static_cast<float>(cols(LX)));
            const Matrix raw = softmax_rows(matmul_transposed(LX, LX) / root_d_model);  // (12 × 12)
            const Matrix LQ = matmul(LX, W_Q.values), LK = matmul(LX, W_K.values), LV = matmul(LX, W_V.values);
            const AttentionSteps projected = scaled_dot_product_attention(LQ, LK, LV);
            const std::size_t its = index_of(law.tokens, "its"), law_index = index_of(law.tokens, "law");
            lesson.say(fmt::format(
                "\"{}\":\n"
                "\"its\" refers to the law. Its embedding is pronoun and function; \"law\" is\n"
                "abstract. Raw similarity (chapters 01–04) compares the embeddings themselves,\n"
                "and they have nothing in common: x_its · x_law = {}. The projections compare\n"
                "what \"its\" looks for, q_its = x_its · W_Q, with what \"law\" offers,\n"
                "k_law = x_law · W_K: q_its · k_law = {}.",
                law_sentence, format_number(matmul_transposed(LX, LX)(its, law_index), 2),
                format_number(projected.scores(its, law_index), 2)));
            lesson.keep_for_dump("law_X", LX);
            // The whole 12 × 12 maps go to --dump and --svg; the row of "its" is printed below.
            lesson.keep_for_dump("law_weights_raw", raw);
            lesson.picture("law_weights_raw", "softmax(law_X · law_Xᵀ / √d_model)", raw, law.tokens, law.tokens, 2);
            lesson.keep_for_dump("law_Q", LQ);
            lesson.keep_for_dump("law_K", LK);
            lesson.keep_for_dump("law_V", LV);
            lesson.keep_for_dump("law_weights", projected.weights);
            lesson.picture("law_weights", "softmax(law_Q · law_Kᵀ / √d_k)", projected.weights, law.tokens, law.tokens,
                           2);
            lesson.keep_for_dump("law_output", projected.output);
            std::vector<TextRow> table;
            for (std::size_t j = 0; j < law.tokens.size(); ++j)
                table.push_back({law.tokens[j], fmt::format("{:.3f}", raw(its, j)),
                                 fmt::format("{:.3f}", projected.weights(its, j))});
            lesson.say(
                "\nThe weights of \"its\", side by side: law_weights_raw = softmax(X · Xᵀ / √d_model)\n"
                "without projections, law_weights = softmax(Q · Kᵀ / √d_k) with them.\n");
            fmt::print("{}", format_table({"key", "law_weights_raw", "law_weights"}, table));
            const std::size_t raw_best = argmax_of_row(raw, its), projected_best = argmax_of_row(projected.weights, its);
            raw_finds_law = raw_best == law_index;
            its_finds_law = projected_best == law_index;
            lesson.say(fmt::format(
                "\nRaw, \"its\" puts its largest weight on \"{}\" ({:.3f}); projected, on \"{}\" ({:.3f}):\n"
                "  raw        its = {}\n"
                "  projected  its = {}\n"
                "and the output of \"its\", law_weights · law_V, is\n"
                "  {}",
                law.tokens[raw_best], raw(its, raw_best), law.tokens[projected_best],
                projected.weights(its, projected_best),
                format_combination(combination_of_row(raw, its, 3), law.tokens),
                format_combination(combination_of_row(projected.weights, its, 3), law.tokens),
                [&] {
                    std::vector<std::string> parts;
                    for (std::size_t d = 0; d < cols(projected.output); ++d)
                        parts.push_back(W_V.columns[d] + " " + format_number(projected.output(its, d), 2));
                    return fmt::format("({})", fmt::join(parts, ", "));
                }()));
        }

        // ── Step 8: reading W_Q · W_Kᵀ ──────────────────────────────────────
        lesson.step("Reading W_Q · W_Kᵀ: which feature looks for which");
        const Matrix W_QK = matmul_transposed(W_Q.values, W_K.values);  // (d_model × d_model)
        lesson.say(
            "q_i · k_j = x_i W_Q · x_j W_K = Σ_a Σ_b x_i[a] (W_Q · W_Kᵀ)[a, b] x_j[b]: entry (a, b)\n"
            "says how much feature a of the query looks for feature b of the key. Raw\n"
            "similarity is the case W_Q · W_Kᵀ = I: each feature looks only for itself.\n"
            "Rows: the query's features; columns: the key's.");
        lesson.show("W_QK", "W_Q · W_Kᵀ", W_QK, dims, dims, 1, Picture::heat_map);
        std::vector<std::pair<std::size_t, std::size_t>> entries;
        for (std::size_t r = 0; r < rows(W_QK); ++r)
            for (std::size_t c = 0; c < cols(W_QK); ++c) entries.emplace_back(r, c);
        std::stable_sort(entries.begin(), entries.end(), [&](const auto& x, const auto& y) {
            return W_QK(x.first, x.second) > W_QK(y.first, y.second);
        });
        std::vector<TextRow> strongest;
        for (std::size_t e = 0; e < std::min<std::size_t>(5, entries.size()); ++e) {
            const auto [r, c] = entries[e];
            strongest.push_back({dims[r], dims[c], fmt::format("{:.1f}", W_QK(r, c))});
        }
        lesson.say("\nThe strongest links:\n");
        fmt::print("{}", format_table({"query feature", "looks for key feature", "W_Q · W_Kᵀ"}, strongest));
        bool qk_symmetric = true;
        for (std::size_t r = 0; r < rows(W_QK); ++r)
            for (std::size_t c = 0; c < r; ++c)
                qk_symmetric = qk_symmetric && std::abs(W_QK(r, c) - W_QK(c, r)) <= 1e-6f;
        lesson.say(qk_symmetric ? "\nHere W_Q · W_Kᵀ is symmetric, so the scores are symmetric too (step 6)."
                                : "\nW_Q · W_Kᵀ is not symmetric: \"a looks for b\" does not mean \"b looks for a\".\n"
                                  "That is where the asymmetry of step 6 comes from.");

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        check.close("the loops of step 5 give the weights of the matrix form",
                    max_abs_difference(loop_weights, a.weights), 1e-5);
        // An output row is a blend of value rows: its rounding grows with the size of V.
        check.close("the loops of step 5 give the output of the matrix form",
                    max_abs_difference(loop_output, a.output), scaled_tolerance(1e-5, V));
        check.close("every row of weights sums to 1", worst_row_sum_error(a.weights), row_sum_tolerance(n));
        // The two products add up the terms |x_a| |W_Q W_Kᵀ|_ab |x_b| in different orders, so they
        // differ by rounding relative to those terms, not to the scores, which can cancel to ~0.
        const Matrix term_sizes = matmul_transposed(matmul(xt::abs(X), xt::abs(W_Q.values)),
                                                    matmul(xt::abs(X), xt::abs(W_K.values)));  // (n × n)
        check.close("scores = X · (W_Q · W_Kᵀ) · Xᵀ",
                    max_abs_difference(matmul_transposed(matmul(X, W_QK), X), a.scores),
                    scaled_tolerance(1e-5, term_sizes));
        if (n < 2)
            check.skip("the scores are not symmetric", "one token: a 1 × 1 matrix is always symmetric");
        else
            check.that(fmt::format("the scores are not symmetric (largest |scores − scoresᵀ| = {})",
                                   format_number(static_cast<float>(asymmetry), 3)),
                       asymmetry > asymmetry_threshold);
        if (law_runs)
            check.that("\"its\" puts its largest weight on \"law\" after projection, but not before",
                       its_finds_law && !raw_finds_law);
    });
}
