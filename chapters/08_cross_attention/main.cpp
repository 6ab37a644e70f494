// Chapter 08 · Cross-attention: one sequence asks, another answers
//
// The lesson: the cross-attention of math.cpp, shown step by step (the two
// sequences, who asks and who answers, a rectangle of scores, the alignment, the
// output, the encoder's tokens reversed), then checked (checks.cpp) against what it
// must be, computed another way (the reference loops in double, the reversed columns).
//
// The states and projections are hand-made (data/translation/, see data/README.md)
// so that the alignment a trained model learns is easy to read.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/08_cross_attention/checks.hpp"
#include "chapters/08_cross_attention/inputs.hpp"
#include "chapters/08_cross_attention/math.hpp"
#include "common/display/elide.hpp"
#include "common/display/text_table.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"

namespace {

// Step who-asks: the roles, the projections, Q, K and V.
void show_roles(Lesson& lesson, const Translation& t, const CrossAttention& r) {
    const std::size_t m = rows(r.Q), n = rows(r.K), d_k = cols(r.Q), d_v = cols(r.V);
    lesson.table({"matrix", "comes from", "formula", "shape"},
                 {{"Q", "the decoder (it asks)", "X_dec · W_Q", fmt::format("({} × {})", m, d_k)},
                  {"K", "the encoder (it is found)", "X_enc · W_K", fmt::format("({} × {})", n, d_k)},
                  {"V", "the encoder (it answers)", "X_enc · W_V", fmt::format("({} × {})", n, d_v)}});
    lesson.say(
        "W_Q and W_K carry the two languages into one space of d_k slots, where a\n"
        "French query and an English key can be compared: article, animal, feline,\n"
        "colour, dark, action. W_Q ignores 'masculine': no English word can answer it.\n"
        "W_V chooses what the English word hands back: is it an article, which animal\n"
        "(+ cat, − dog), which shade (+ black, − white).");
    for (const Matrix* matrix : {&t.W_Q, &t.W_K, &t.W_V}) lesson.show(*matrix, Style().decimals(1));
    for (const Matrix* matrix : {&r.Q, &r.K, &r.V}) lesson.show(*matrix, Style().decimals(2));
}

// The prose of the alignment step: it names only words of the two sentences, so
// that it stays true for any --source and --target (a self-check holds it to that).
std::string alignment_prose(const Labels& english, const Labels& french, const CrossAttention& r) {
    std::string text = "The weights are a soft word alignment.";
    if (r.crossing.found) {
        const std::size_t a = r.crossing.a, b = r.crossing.b;
        text += fmt::format(
            " Its lines cross: '{}'\n(position {}) looks at '{}' (position {}), '{}' (position {}) at '{}'\n"
            "(position {}). (In the default pair, English puts the colour before the noun\n"
            "and French after it.) Attention finds the right English word by its key,\n"
            "wherever it stands.",
            french[a], a, english[r.looks_at[a]], r.looks_at[a], french[b], b, english[r.looks_at[b]],
            r.looks_at[b]);
    } else {
        text += " Here no two of its lines cross: each\nFrench word looks at the English word of the one before it, or at a later one.";
    }
    const std::size_t sat = index_of(english, "sat");
    if (sat < english.size() && std::find(r.looks_at.begin(), r.looks_at.end(), sat) == r.looks_at.end())
        text += "\n'sat' gets no French word's largest weight: none so far asks for an action.";
    return text;
}

// Step alignment: where each decoder token looks most.
void show_alignment(Lesson& lesson, const Labels& english, const Labels& french, const CrossAttention& r) {
    std::vector<TextRow> alignment;
    for (std::size_t i = 0; i < french.size(); ++i) {
        const std::size_t j = r.looks_at[i];
        alignment.push_back({fmt::format("{} {}", i, french[i]), fmt::format("{} {}", j, english[j]),
                             format_number(r.steps.weights(i, j), 3)});
    }
    lesson.table({"French word (position)", "looks most at (position)", "weight"}, alignment);
    lesson.say("" + alignment_prose(english, french, r));
}

// Step sequences: the encoder's states and the decoder's.
void show_sequences(Lesson& lesson, const Sequence& enc, const Sequence& dec, const Translation& t) {
    lesson.say(fmt::format(
        "A translation model reads the English sentence with its encoder: one state per\n"
        "English token, n = {}. Its decoder writes the French sentence one token after\n"
        "the other, and has m = {} so far. The two need not have the same length, nor\n"
        "the same width (d_enc = {}, d_dec = {}): French has a gender that English has not.",
        enc.tokens.size(), dec.tokens.size(), cols(enc.X), cols(dec.X)));
    lesson.show(t.X_enc, Style().decimals(1));  // (n × d_enc)
    lesson.show(t.X_dec, Style().decimals(1));  // (m × d_dec)
}

// Step scores: the rectangle Q · Kᵀ, scaled, and its softmax.
void show_scores(Lesson& lesson, const Labels& english, const Labels& french, const CrossAttention& r) {
    const std::size_t d_k = cols(r.Q);
    lesson.say(fmt::format("Q · Kᵀ is (m × d_k) · (d_k × n) → ({} × {}). It need not be square: each\n"
                           "decoder token has one score for each encoder token, however long the two\n"
                           "sentences are. Then the usual scaling by √d_k = √{} and a softmax per row.",
                           french.size(), english.size(), d_k));
    lesson.show(r.steps.scores);
    lesson.show(r.steps.scaled_scores);
    lesson.show(r.steps.weights, Style().svg());  // (m × n)
}

// Step output: weights · V, in the encoder's value space.
void show_output(Lesson& lesson, const Labels& english, const Labels& french, const CrossAttention& r) {
    const bool noir_and_black = index_of(french, "noir") < french.size() && index_of(english, "black") < english.size();
    lesson.say(fmt::format(
        "weights · V is (m × n) · (n × d_v) → ({} × {}): one row per decoder token, in the\n"
        "encoder's value space. It is what the decoder learns from the source sentence\n"
        "before it chooses its next word{}",
        french.size(), cols(r.V),
        noir_and_black ? ": 'noir' gets a positive v_shade from 'black',\nso it is dark, not 'blanc'."
                       : ". (In the default pair, 'noir' gets a positive\nv_shade from 'black', so it is dark, not 'blanc'.)"));
    lesson.show(r.steps.output);  // (m × d_v)
}

// Step shuffle: the encoder's tokens reversed.
void show_shuffle(Lesson& lesson, const Labels& english_reversed, const CrossAttention& r) {
    lesson.say(fmt::format(
        "Give the encoder its tokens in the reverse order: {}.\n"
        "Each key stays paired with its own value, so the weights' columns are only\n"
        "reordered, and every output row is the same sum Σ_j weight_j · v_j taken in\n"
        "another order. For one query, the keys and values form a set: attention alone\n"
        "does not see their order.",
        join_elided(english_reversed, " ")));
    lesson.show(r.reversed.weights, Style().svg());
    lesson.show(r.reversed.output);
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    Flags flags;
    add_flags(lesson, flags);
    refuse_text(lesson, "the encoder reads English and the decoder French, both as words of data/translation/: --source, --target");

    return lesson.run(argc, argv, [&] {
        const Inputs in = load_inputs(flags);
        const Weights& W = in.W;
        const Translation t{in.enc.X, in.dec.X, W.W_Q.values, W.W_K.values, W.W_V.values};
        const CrossAttention r = cross_attention(t);
        const Labels& english = in.enc.tokens;
        const Labels& french = in.dec.tokens;
        const Labels english_reversed = permute_labels(english, r.order);
        const bool own_states = !flags.encoder_path.empty() || !flags.decoder_path.empty();
        lesson.labels({{"english", english}, {"french", french}, {"english reversed", english_reversed},
                       {"encoder dims", in.enc.dimensions}, {"decoder dims", in.dec.dimensions},
                       {"query slots", W.W_Q.columns}, {"key slots", W.W_K.columns}, {"value slots", W.W_V.columns}});
        lesson.list(t.matrices());
        lesson.list(r.matrices());

        lesson.step("sequences", "Two sequences: the encoder's and the decoder's",
                    [&] { show_sequences(lesson, in.enc, in.dec, t); });
        lesson.step("who-asks", "Queries from the decoder, keys and values from the encoder",
                    [&] { show_roles(lesson, t, r); });
        lesson.step("scores", "Scores: one row per French word, one column per English word",
                    [&] { show_scores(lesson, english, french, r); });
        lesson.step("alignment", "Reading the weights: an alignment", [&] { show_alignment(lesson, english, french, r); });
        lesson.step("output", "The output: what each French word takes from the English sentence",
                    [&] { show_output(lesson, english, french, r); });
        lesson.step("shuffle", "Shuffling the encoder's tokens", [&] { show_shuffle(lesson, english_reversed, r); });
        lesson.step("checks", "Self-checks", [&] {
            check_cross_attention(lesson.checks(), english, french, own_states, r,
                                  alignment_prose(english, french, r));
        });
        lesson.present();
    });
}
