// Chapter 05 · Learned projections: Q, K, V
//
// The lesson: the projections of math.cpp step by step (the sequence, W_Q, W_K, W_V, the
// matrix and the loop form of attention, the asymmetry, "its" → "law", W_Q · W_Kᵀ); checks.cpp
// checks them. The matrices are written by hand (data/projections/), so that every entry can
// be read; a model learns them (chapter 11).
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chapters/05_projections/checks.hpp"
#include "chapters/05_projections/inputs.hpp"
#include "chapters/05_projections/math.hpp"
#include "common/lesson/combination.hpp"
#include "common/lesson/elide.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/model_sentence.hpp"
#include "common/lesson/sequence.hpp"
#include "common/math/input_error.hpp"

namespace {

const std::string default_sentence = "this forum is awesome";

// A vector written out as (0.000, 0.123, …).
std::string tuple_of_row(const Matrix& m, std::size_t i, int decimals) {
    std::vector<std::string> parts;
    for (std::size_t d = 0; d < cols(m); ++d) parts.push_back(format_number(m(i, d), decimals));
    return fmt::format("({})", fmt::join(parts, ", "));
}

// Step loop-form: the last query, term by term, from the loops of math.cpp.
void show_loop_form(Lesson& lesson, const Labels& tokens, const Projected& r) {
    lesson.say(
        fmt::format("Papers often write attention one query at a time. Computed with plain loops\n"
                    "for every query, it gives the matrices of {} (checked at the end). Here\n"
                    "is one query, term by term:",
                    lesson.ref("matrix-form")));
    const LoopForm& loops = r.loops;
    const std::size_t last = tokens.size() - 1;
    std::vector<TextRow> table;
    for (std::size_t j = 0; j < tokens.size(); ++j)  // a long --input: the first and last keys
        table.push_back({tokens[j], format_number(loops.scores(last, j), 3),
                         format_number(loops.scaled_scores(last, j), 3), format_number(loops.weights(last, j), 3),
                         tuple_of_row(r.last_query_terms, j, 3)});
    table.push_back({"Σ", "", "", "", tuple_of_row(loops.output, last, 3)});
    lesson.table({"key j", "q·k_j", "q·k_j / √d_k", "softmax_j", "softmax_j · v_j"}, table);
}

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
    else if (r.qk_symmetric)
        lesson.say_under(
            "Yet these scores are symmetric: W_Q · W_Kᵀ is a symmetric matrix (as when\n"
            "W_K = W_Q), so every token offers exactly what it looks for.");
    else
        lesson.say_under(fmt::format(
            "Yet these scores are symmetric. W_Q · W_Kᵀ is not ({}), but\n"
            "q_i · k_j − q_j · k_i = x_i (W_Q · W_Kᵀ − W_K · W_Qᵀ) x_jᵀ is 0 for these tokens:\n"
            "a token repeated, or embeddings in one line, score the same both ways.",
            lesson.ref("w-qk")));
    lesson.say_under(
        fmt::format("And a token need not be its own best match: {} of {} queries score another\n"
                    "token higher than themselves.",
                    r.not_self, tokens.size()));
}

// Step its-and-law: the row of "its" without and with projections, or why it is skipped.
void show_law(Lesson& lesson, const LawSentence& law, const Weights& W, const RawAndProjected& r) {
    if (!law.runs)
        return lesson.say(fmt::format("Skipped: this step's sentence, \"{}\",\nis embedded with data/embeddings.csv, "
                                      "whose {} dimensions are not the rows of W_Q.", law_sentence, law.embedding_dims));
    const Labels& tokens = law.seq.tokens;
    const std::size_t its = index_of(tokens, "its"), law_index = index_of(tokens, "law");
    const Matrix &raw = r.raw_weights, &projected = r.projected.weights;
    lesson.say(fmt::format(
        "\"{}\":\n"
        "\"its\" refers to the law. Its embedding is pronoun and function; \"law\" is\n"
        "abstract. Raw similarity (chapters 01–04) compares the embeddings themselves,\n"
        "and they have nothing in common: x_its · x_law = {}. The projections compare\n"
        "what \"its\" looks for, q_its = x_its · W_Q, with what \"law\" offers,\n"
        "k_law = x_law · W_K: q_its · k_law = {}.",
        law_sentence, format_number(r.raw_scores(its, law_index), 2),
        format_number(r.projected.scores(its, law_index), 2)));
    for (const Matrix* m : {&r.raw_weights, &r.projected.weights})  // the whole 12 × 12 maps go to --svg;
        lesson.draw(*m, Style().decimals(2));                          // the row of "its" is printed
    std::vector<TextRow> table;
    for (std::size_t j = 0; j < tokens.size(); ++j)
        table.push_back({tokens[j], format_number(raw(its, j), 3), format_number(projected(its, j), 3)});
    lesson.say(
        "The weights of \"its\", side by side: law_weights_raw = softmax(X · Xᵀ / √d_model)\n"
        "without projections, law_weights = softmax(Q · Kᵀ / √d_k) with them.");
    lesson.table({"key", "law_weights_raw", "law_weights"}, table);
    const std::size_t raw_best = argmax_of_row(raw, its), projected_best = argmax_of_row(projected, its);
    std::vector<std::string> output;
    for (std::size_t d = 0; d < cols(r.projected.output); ++d)
        output.push_back(W.W_V.columns[d] + " " + format_number(r.projected.output(its, d), 2));
    lesson.say(fmt::format("Raw, \"its\" puts its largest weight on \"{}\" ({}); projected, on \"{}\" ({}):\n"
                           "  raw        its = {}\n"
                           "  projected  its = {}\n"
                           "and the output of \"its\", law_weights · law_V, is\n"
                           "  ({})",
                           tokens[raw_best], format_number(raw(its, raw_best), 3), tokens[projected_best],
                           format_number(projected(its, projected_best), 3),
                           format_combination(combination_of_row(raw, its, 3), tokens),
                           format_combination(combination_of_row(projected, its, 3), tokens), fmt::join(output, ", ")));
}

// Step w-qk: W_Q · W_Kᵀ and its strongest entries.
void show_w_qk(Lesson& lesson, const Labels& dims, const Projected& r) {
    lesson.say(
        "q_i · k_j = x_i W_Q · x_j W_K = Σ_a Σ_b x_i[a] (W_Q · W_Kᵀ)[a, b] x_j[b]: entry (a, b)\n"
        "says how much feature a of the query looks for feature b of the key. Raw\n"
        "similarity is the case W_Q · W_Kᵀ = I: each feature looks only for itself.\n"
        "Rows: the query's features; columns: the key's.");
    lesson.show(r.W_QK, Style().decimals(1).svg());
    std::vector<TextRow> strongest;
    for (const auto& [a, b] : r.strongest) strongest.push_back({dims[a], dims[b], format_number(r.W_QK(a, b), 1)});
    lesson.say("The strongest links:");
    lesson.table({"query feature", "looks for key feature", "W_Q · W_Kᵀ"}, strongest);
    lesson.say(fmt::format(r.qk_symmetric ? "Here W_Q · W_Kᵀ is symmetric, so the scores are symmetric too ({})."
                                          : "W_Q · W_Kᵀ is not symmetric: \"a looks for b\" does not mean \"b looks "
                                            "for a\".\nThat is where the asymmetry of {} comes from.",
                           lesson.ref("asymmetry")));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = lesson.add_input_option("\"" + default_sentence + "\"");
    std::string w_q_path, w_k_path, w_v_path;  // the learner's own projections
    for (const auto& [flag, path, W, width] : {std::tuple{"--w-q", &w_q_path, "W_Q", "d_k"},
                                               {"--w-k", &w_k_path, "W_K", "d_k"}, {"--w-v", &w_v_path, "W_V", "d_v"}})
        lesson.option(flag, *path,
                      fmt::format("your own {} (d_model rows, {} columns) instead of data/projections/{}.csv", W,
                                  width, W),
                      Text::path);
    std::size_t layer = 0;
    lesson.option("--layer", layer,
                  "with --text: the trained model's layer whose W_Q, W_K, W_V serve (all its heads' columns), "
                  "read by its ln_1 of the embeddings",
                  Range{0, double(default_model_config().layers - 1)});

    return lesson.run(argc, argv, [&] {
        // Everything is read and checked before anything is printed.
        check_layer_flag(layer, lesson.given("--layer"), !input.text.empty());
        for (const auto& [flag, path] : {std::pair{"--w-q", &w_q_path}, {"--w-k", &w_k_path}, {"--w-v", &w_v_path}})
            if (!input.text.empty() && !path->empty())
                throw InputError(std::string(flag) + ": not with --text (its projections are the model's, --layer)");
        Sequence seq = load_sequence(input, default_sentence);
        const Weights W = input.text.empty() ? load_weights(w_q_path, w_k_path, w_v_path, seq, input.input)
                                             : learned_weights(layer, seq, input.listing_only);
        const Projected r = project_and_attend(seq.X, W.W_Q.values, W.W_K.values, W.W_V.values);
        const LawSentence law = load_law_sentence(seq);
        const RawAndProjected law_r =
            law.runs ? raw_and_projected(law.seq.X, W.W_Q.values, W.W_K.values, W.W_V.values) : RawAndProjected{};
        const Labels& tokens = seq.tokens;
        for (const auto& [kind, words] : {std::pair{"tokens", tokens}, {"dimensions", seq.dimensions},
                                          {"query columns", W.W_Q.columns}, {"key columns", W.W_K.columns},
                                          {"value columns", W.W_V.columns}, {"law tokens", law.seq.tokens}})
            lesson.labels(kind, words);
        lesson.list(seq.matrices());
        lesson.list(r.matrices());
        if (law.runs) lesson.list(law_r.matrices());

        lesson.step("sequence", "The sequence X", [&] {
            if (input.text.empty())
                lesson.say(fmt::format("\"{}\", one embedding per row, as in chapter 01.",
                                       input.is_default() ? default_sentence : join_elided(tokens, " ")));
            else
                lesson.say(fmt::format(
                    "\"{}\" as the {} tokens of chapter 22's model, one row per token: ln_1 of its\n"
                    "learned embedding (wte), with layer {}'s γ and β. The attention of layer {} reads\n"
                    "ln_1(x), and here x is the embeddings alone (no positions, no earlier layers), so\n"
                    "that Q = X · W_Q below is what that layer would compute for these tokens, less\n"
                    "its bias (left out).",
                    input.text, tokens.size(), layer, layer));
            lesson.show(seq.X, Style().decimals(1));
        });
        lesson.step("projections", "Three projections: W_Q, W_K, W_V", [&] {
            lesson.say(fmt::format(
                "Each matrix has one row per embedding dimension and one column per output\n"
                "slot. Queries and keys share the slots (d_k = {}): a score is large when a\n"
                "query and a key fill the same slot. Read W_Q as \"a token that has this\n"
                "feature looks for…\", W_K as \"a token that has this feature offers…\".",
                W.W_Q.columns.size()));
            if (!input.text.empty())
                lesson.say_under(fmt::format(
                    "Here they are layer {}'s, learned: PyTorch keeps them in one (3·{} × {}) matrix,\n"
                    "c_attn, (out × in), so W_Q is the transpose of its first {} rows, W_K of the\n"
                    "next {}, W_V of the last {}. All {} heads' columns serve as one head here\n"
                    "(chapter 07 splits them).",
                    layer, cols(seq.X), cols(seq.X), cols(seq.X), cols(seq.X), cols(seq.X),
                    default_model_config().heads));
            for (const Matrix* m : {&r.W_Q, &r.W_K, &r.W_V}) lesson.show(*m, Style().decimals(1));
        });
        lesson.step("qkv", "Queries, keys and values: three views of each token", [&] {
            for (const Matrix* m : {&r.Q, &r.K, &r.V}) lesson.show(*m, Style().decimals(2));
        });
        lesson.step("matrix-form", "Attention in matrix form: softmax(Q · Kᵀ / √d_k) · V", [&] {
            lesson.show(r.attention.scores, Style().svg());
            lesson.show(r.attention.scaled_scores);
            lesson.show(r.attention.weights, Style().svg());
            lesson.show(r.attention.output);
            lesson.say("Each output row is a blend of the value rows:");
            lesson.say(combinations_of_rows(r.attention.weights, tokens));
        });
        lesson.step("loop-form",
                    fmt::format("The loop form: output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j (query \"{}\")",
                                tokens.back()),
                    [&] { show_loop_form(lesson, tokens, r); });
        lesson.step("asymmetry", "The scores are no longer symmetric", [&] { show_asymmetry(lesson, tokens, r); });
        lesson.step("its-and-law", "Why projections: what does \"its\" refer to?", [&] { show_law(lesson, law, W, law_r); });
        lesson.step("w-qk", "Reading W_Q · W_Kᵀ: which feature looks for which",
                    [&] { show_w_qk(lesson, seq.dimensions, r); });
        lesson.step("checks", "Self-checks", [&] {
            check_projections(lesson.checks(), seq.X, r, law.runs ? &law_r : nullptr, law.seq.tokens,
                              lesson.ref("matrix-form"), lesson.ref("loop-form"));
        });
        lesson.present();
    });
}
