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
#include "common/display/elide.hpp"
#include "common/inputs/sequence.hpp"
#include "common/language_model/model_sentence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/combination.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

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

// The chapter's own flags: the learner's projections, or (with --text) the trained model's layer.
struct Flags {
    std::string w_q_path, w_k_path, w_v_path;
    std::size_t layer = 0;
};

void add_flags(Lesson& lesson, Flags& flags) {
    for (const auto& [flag, path, W, width] : {std::tuple{"--w-q", &flags.w_q_path, "W_Q", "d_k"},
                                               {"--w-k", &flags.w_k_path, "W_K", "d_k"},
                                               {"--w-v", &flags.w_v_path, "W_V", "d_v"}})
        lesson.option(flag, *path,
                      fmt::format("your own {} (d_model rows, {} columns) instead of data/projections/{}.csv", W,
                                  width, W),
                      Text::path);
    lesson.option("--layer", flags.layer,
                  "with --text: the trained model's layer whose W_Q, W_K, W_V serve (all its heads' columns), "
                  "read by its ln_1 of the embeddings",
                  Range{0, double(default_model_config().layers - 1)});
}

// Everything the steps show, read and computed before anything is printed.
struct Run {
    Sequence seq;
    Weights W;
    Projected r;
    LawSentence law;
    RawAndProjected law_r;
};

Run read_and_compute(Lesson& lesson, const SequenceSource& input, const Flags& flags) {
    check_layer_flag(flags.layer, lesson.given("--layer"), !input.text.empty());
    for (const auto& [flag, path] :
         {std::pair{"--w-q", &flags.w_q_path}, {"--w-k", &flags.w_k_path}, {"--w-v", &flags.w_v_path}})
        if (!input.text.empty() && !path->empty())
            throw InputError(std::string(flag) + ": not with --text (its projections are the model's, --layer)");
    Sequence seq;
    Weights W;
    if (input.text.empty()) {
        seq = load_sequence(input.input, default_sentence);
        W = load_weights(flags.w_q_path, flags.w_k_path, flags.w_v_path, seq, input.input);
    } else {  // the sentence as the layer's attention reads it, and the layer's weights
        LayerInput learned = layer_input(input.text, flags.layer, input.listing_only);
        W = learned_weights(learned, flags.layer);
        seq = std::move(learned.seq);
    }
    Projected r = project_and_attend(seq.X, W.W_Q.values, W.W_K.values, W.W_V.values);
    LawSentence law = load_law_sentence(seq);
    RawAndProjected law_r =
        law.runs ? raw_and_projected(law.seq.X, W.W_Q.values, W.W_K.values, W.W_V.values) : RawAndProjected{};
    return Run{std::move(seq), std::move(W), std::move(r), std::move(law), std::move(law_r)};
}

// The matrices by name, for --dump, --html and the labels of their rows and columns.
void list_matrices(Lesson& lesson, const Run& run) {
    for (const auto& [kind, words] : {std::pair{"tokens", run.seq.tokens}, {"dimensions", run.seq.dimensions},
                                      {"query columns", run.W.W_Q.columns}, {"key columns", run.W.W_K.columns},
                                      {"value columns", run.W.W_V.columns}, {"law tokens", run.law.seq.tokens}})
        lesson.labels(kind, words);
    lesson.list(run.seq.matrices());
    lesson.list(run.r.matrices());
    if (run.law.runs) lesson.list(run.law_r.matrices());
}

// Step sequence: the sentence's embeddings, by hand or (with --text) the trained model's.
void show_sequence(Lesson& lesson, const SequenceSource& input, const Sequence& seq, std::size_t layer) {
    if (input.text.empty())
        lesson.say(fmt::format("\"{}\", one embedding per row, as in chapter 01.",
                               input.is_default() ? default_sentence : join_elided(seq.tokens, " ")));
    else
        lesson.say(fmt::format(
            "\"{}\" as the {} tokens of chapter 22's model, one row per token: ln_1 of its\n"
            "learned embedding (wte), with layer {}'s γ and β. The attention of layer {} reads\n"
            "ln_1(x), and here x is the embeddings alone (no positions, no earlier layers), so\n"
            "that Q = X · W_Q below is what that layer would compute for these tokens, less\n"
            "its bias (left out).",
            input.text, seq.tokens.size(), layer, layer));
    lesson.show(seq.X, Style().decimals(1));
}

// Step projections: W_Q, W_K, W_V, and (with --text) where the model keeps them.
void show_projections(Lesson& lesson, const SequenceSource& input, const Run& run, std::size_t layer) {
    lesson.say(fmt::format(
        "Each matrix has one row per embedding dimension and one column per output\n"
        "slot. Queries and keys share the slots (d_k = {}): a score is large when a\n"
        "query and a key fill the same slot. Read W_Q as \"a token that has this\n"
        "feature looks for…\", W_K as \"a token that has this feature offers…\".",
        run.W.W_Q.columns.size()));
    const std::size_t d = cols(run.seq.X);
    if (!input.text.empty())
        lesson.say_under(fmt::format(
            "Here they are layer {}'s, learned: PyTorch keeps them in one (3·{} × {}) matrix,\n"
            "c_attn, (out × in), so W_Q is the transpose of its first {} rows, W_K of the\n"
            "next {}, W_V of the last {}. All {} heads' columns serve as one head here\n"
            "(chapter 07 splits them).",
            layer, d, d, d, d, d, default_model_config().heads));
    for (const Matrix* m : {&run.r.W_Q, &run.r.W_K, &run.r.W_V}) lesson.show(*m, Style().decimals(1));
}

// Step matrix-form: softmax(Q · Kᵀ / √d_k) · V, and each output row as a blend of value rows.
void show_matrix_form(Lesson& lesson, const Labels& tokens, const Projected& r) {
    lesson.show(r.attention.scores, Style().svg());
    lesson.show(r.attention.scaled_scores);
    lesson.show(r.attention.weights, Style().svg());
    lesson.show(r.attention.output);
    lesson.say("Each output row is a blend of the value rows:");
    lesson.say(combinations_of_rows(r.attention.weights, tokens));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, "\"" + default_sentence + "\"");
    Flags flags;
    add_flags(lesson, flags);

    return lesson.run(argc, argv, [&] {
        const Run run = read_and_compute(lesson, input, flags);
        const Labels& tokens = run.seq.tokens;
        const Projected& r = run.r;
        list_matrices(lesson, run);

        lesson.step("sequence", "The sequence X", [&] { show_sequence(lesson, input, run.seq, flags.layer); });
        lesson.step("projections", "Three projections: W_Q, W_K, W_V",
                    [&] { show_projections(lesson, input, run, flags.layer); });
        lesson.step("qkv", "Queries, keys and values: three views of each token", [&] {
            for (const Matrix* m : {&r.Q, &r.K, &r.V}) lesson.show(*m, Style().decimals(2));
        });
        lesson.step("matrix-form", "Attention in matrix form: softmax(Q · Kᵀ / √d_k) · V",
                    [&] { show_matrix_form(lesson, tokens, r); });
        lesson.step("loop-form",
                    fmt::format("The loop form: output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j (query \"{}\")",
                                tokens.back()),
                    [&] { show_loop_form(lesson, tokens, r); });
        lesson.step("asymmetry", "The scores are no longer symmetric", [&] { show_asymmetry(lesson, tokens, r); });
        lesson.step("its-and-law", "Why projections: what does \"its\" refer to?",
                    [&] { show_law(lesson, run.law, run.W, run.law_r); });
        lesson.step("w-qk", "Reading W_Q · W_Kᵀ: which feature looks for which",
                    [&] { show_w_qk(lesson, run.seq.dimensions, r); });
        lesson.step("checks", "Self-checks", [&] {
            check_projections(lesson.checks(), run.seq.X, r, run.law.runs ? &run.law_r : nullptr, run.law.seq.tokens,
                              lesson.ref("matrix-form"), lesson.ref("loop-form"));
        });
        lesson.present();
    });
}
