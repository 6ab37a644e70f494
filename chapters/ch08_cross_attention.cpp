// Chapter 08 · Cross-attention: one sequence asks, another answers
//
// In self-attention a sequence questions itself: Q, K and V all come from X.
// The translation model of the paper also has encoder–decoder attention: the
// decoder, writing the French sentence, asks the encoder, which has read the
// English one. Queries come from the decoder's states, keys and values from the
// encoder's; the formula is the same.
//
//   Q = X_dec · W_Q,  K = X_enc · W_K,  V = X_enc · W_V
//   output = softmax(Q · Kᵀ / √d_k) · V
//
// Shapes (m decoder tokens ask, n encoder tokens answer; the two sequences need
// not have the same length or the same width):
//   X_dec (m × d_dec), W_Q (d_dec × d_k), Q (m × d_k)
//   X_enc (n × d_enc), W_K (d_enc × d_k), K (n × d_k), W_V (d_enc × d_v), V (n × d_v)
//   scores, scaled_scores, weights (m × n): one row per French word, one column per English word
//   output (m × d_v): one row per decoder token
//
// The states and projections are hand-made (data/translation/, see data/README.md)
// so that the alignment a trained model learns is easy to read.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/math/attention.hpp"
#include "common/lesson/elide.hpp"
#include "common/math/input_error.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/matmul.hpp"
#include "common/math/permutation.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"

namespace {

const std::string default_source = "the black cat sat";  // English: what the encoder read
const std::string default_target = "le chat noir";       // French: what the decoder has written so far

// The French word → the English word it translates, for the alignment self-check.
const std::map<std::string, std::string> translation_of = {
    {"le", "the"},     {"chat", "cat"},   {"chien", "dog"},
    {"noir", "black"}, {"blanc", "white"}, {"assis", "sat"}};

// A sequence from a labelled CSV (--encoder/--decoder PATH) or from words looked up
// in data/translation/<vocabulary>.
Sequence load(const std::string& path, const std::string& words, const std::string& vocabulary,
              const std::string& words_flag) {
    if (path.empty()) {
        const LabelledMatrix table = read_data_file("translation/" + vocabulary);
        try {
            return embed_sentence(table, words);
        } catch (const InputError& error) {
            throw InputError(fmt::format("{} \"{}\": {}", words_flag, words, error.what()));
        }
    }
    LabelledMatrix table = read_labelled_csv(path);
    return Sequence{table.rows, table.columns, std::move(table.values)};
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch08_cross_attention", "Chapter 08 · Cross-attention: one sequence asks, another answers");
    std::string encoder_path, decoder_path;
    std::vector<std::string> source_words, target_words;  // e.g. --source the white dog sat
    auto* encoder_flag = lesson.cli().add_option(
        "--encoder", encoder_path,
        "the encoder's sequence as a labelled CSV (header token,<the rows of data/translation/W_K.csv>)")
        ->type_name("PATH");
    auto* decoder_flag = lesson.cli().add_option(
        "--decoder", decoder_path,
        "the decoder's sequence as a labelled CSV (header token,<the rows of data/translation/W_Q.csv>)")
        ->type_name("PATH");
    lesson.cli()
        .add_option("--source", source_words,
                    "the English words the encoder read, from data/translation/encoder.csv (default: " +
                        default_source + ")")
        ->excludes(encoder_flag);
    lesson.cli()
        .add_option("--target", target_words,
                    "the French words the decoder has written, from data/translation/decoder.csv (default: " +
                        default_target + ")")
        ->excludes(decoder_flag);

    return lesson.run(argc, argv, [&] {
        const LabelledMatrix W_Q = read_data_file("translation/W_Q.csv");  // (d_dec × d_k)
        const LabelledMatrix W_K = read_data_file("translation/W_K.csv");  // (d_enc × d_k)
        const LabelledMatrix W_V = read_data_file("translation/W_V.csv");  // (d_enc × d_v)
        const std::string source =
            source_words.empty() ? default_source : fmt::format("{}", fmt::join(source_words, " "));
        const std::string target =
            target_words.empty() ? default_target : fmt::format("{}", fmt::join(target_words, " "));
        const Sequence enc = load(encoder_path, source, "encoder.csv", "--source");
        const Sequence dec = load(decoder_path, target, "decoder.csv", "--target");
        require_projects(W_K, enc,
                         encoder_path.empty() ? data_path("translation/encoder.csv") : "--encoder " + encoder_path);
        require_projects(W_Q, dec,
                         decoder_path.empty() ? data_path("translation/decoder.csv") : "--decoder " + decoder_path);
        if (W_K.rows != W_V.rows || W_Q.columns.size() != W_K.columns.size())
            throw InputError(fmt::format("{}, {}, {}: W_K and W_V must read the same dimensions, and W_Q and W_K "
                                         "must have the same number of columns (d_k)",
                                         W_Q.source, W_K.source, W_V.source));
        const Matrix& X_enc = enc.X;  // (n × d_enc)
        const Matrix& X_dec = dec.X;  // (m × d_dec)
        const Labels& english = enc.tokens;
        const Labels& french = dec.tokens;
        const std::size_t n = english.size(), m = french.size();
        const std::size_t d_k = cols(W_K.values), d_v = cols(W_V.values);

        // ── Step 1: two sequences ────────────────────────────────────────────
        lesson.step("Two sequences: the encoder's and the decoder's");
        lesson.say(fmt::format(
            "A translation model reads the English sentence with its encoder: one state per\n"
            "English token, n = {}. Its decoder writes the French sentence one token after\n"
            "the other, and has m = {} so far. The two need not have the same length, nor\n"
            "the same width (d_enc = {}, d_dec = {}): French has a gender that English has not.",
            n, m, cols(X_enc), cols(X_dec)));
        lesson.show("X_enc", "the encoder's states", X_enc, english, enc.dimensions, 1);  // (n × d_enc)
        lesson.show("X_dec", "the decoder's states", X_dec, french, dec.dimensions, 1);   // (m × d_dec)

        // ── Step 2: who asks, who answers ────────────────────────────────────
        lesson.step("Queries from the decoder, keys and values from the encoder");
        fmt::print("\n{}", format_table({"matrix", "comes from", "formula", "shape"},
                                        {{"Q", "the decoder (it asks)", "X_dec · W_Q", fmt::format("({} × {})", m, d_k)},
                                         {"K", "the encoder (it is found)", "X_enc · W_K", fmt::format("({} × {})", n, d_k)},
                                         {"V", "the encoder (it answers)", "X_enc · W_V", fmt::format("({} × {})", n, d_v)}}));
        lesson.say(
            "\nW_Q and W_K carry the two languages into one space of d_k slots, where a\n"
            "French query and an English key can be compared: article, animal, feline,\n"
            "colour, dark, action. W_Q ignores 'masculine': no English word can answer it.\n"
            "W_V chooses what the English word hands back: is it an article, which animal\n"
            "(+ cat, − dog), which shade (+ black, − white).");
        lesson.show("W_Q", "decoder dims → query slots", W_Q.values, W_Q.rows, W_Q.columns, 1);
        lesson.show("W_K", "encoder dims → key slots", W_K.values, W_K.rows, W_K.columns, 1);
        lesson.show("W_V", "encoder dims → value slots", W_V.values, W_V.rows, W_V.columns, 1);
        const Matrix Q = matmul(X_dec, W_Q.values);  // (m × d_dec) · (d_dec × d_k) → (m × d_k)
        const Matrix K = matmul(X_enc, W_K.values);  // (n × d_enc) · (d_enc × d_k) → (n × d_k)
        const Matrix V = matmul(X_enc, W_V.values);  // (n × d_enc) · (d_enc × d_v) → (n × d_v)
        lesson.show("Q", "X_dec · W_Q", Q, french, W_Q.columns, 2);
        lesson.show("K", "X_enc · W_K", K, english, W_K.columns, 2);
        lesson.show("V", "X_enc · W_V", V, english, W_V.columns, 2);

        // ── Step 3: a rectangle of scores ────────────────────────────────────
        lesson.step("Scores: one row per French word, one column per English word");
        lesson.say(fmt::format(
            "Q · Kᵀ is (m × d_k) · (d_k × n) → ({} × {}). It need not be square: each\n"
            "decoder token has one score for each encoder token, however long the two\n"
            "sentences are. Then the usual scaling by √d_k = √{} and a softmax per row.",
            m, n, d_k));
        const AttentionSteps steps = scaled_dot_product_attention(Q, K, V);
        lesson.show("scores", "Q · Kᵀ", steps.scores, french, english, 3);
        lesson.show("scaled_scores", fmt::format("Q · Kᵀ / √{}", d_k), steps.scaled_scores, french, english, 3);
        lesson.show("weights", "softmax of each row", steps.weights, french, english, 3);  // (m × n)

        // ── Step 4: the alignment ────────────────────────────────────────────
        lesson.step("Reading the weights: an alignment");
        std::vector<TextRow> alignment;
        for (const std::size_t i : elided_indices(m)) {
            if (i == elided) {
                alignment.push_back({"…"});
                continue;
            }
            const std::size_t j = argmax_of_row(steps.weights, i);
            alignment.push_back({fmt::format("{} {}", i, french[i]), fmt::format("{} {}", j, english[j]),
                                 fmt::format("{:.3f}", steps.weights(i, j))});
        }
        fmt::print("\n{}", format_table({"French word (position)", "looks most at (position)", "weight"}, alignment));
        lesson.say(
            "\nThe weights are a soft word alignment. In the default pair, English puts the\n"
            "colour before the noun and French after it, so the lines cross: 'chat'\n"
            "(position 1) looks at 'cat' (position 2), 'noir' (position 2) at 'black'\n"
            "(position 1). Attention finds the right English word by its key, wherever it\n"
            "stands. 'sat' gets little weight: no French word so far asks for an action.");

        // ── Step 5: the output ───────────────────────────────────────────────
        lesson.step("The output: what each French word takes from the English sentence");
        lesson.say(fmt::format(
            "weights · V is (m × n) · (n × d_v) → ({} × {}): one row per decoder token, in the\n"
            "encoder's value space. It is what the decoder learns from the source sentence\n"
            "before it chooses its next word: 'noir' gets a positive v_shade from 'black',\n"
            "so it is dark, not 'blanc'.",
            m, d_v));
        lesson.show("output", "weights · V", steps.output, french, W_V.columns, 3);  // (m × d_v)

        // ── Step 6: the order of the keys does not matter ───────────────────
        const Order order = reversal(n);  // the encoder's tokens read backwards
        const Labels english_reversed = permute_labels(english, order);
        lesson.step("Shuffling the encoder's tokens");
        lesson.say(fmt::format(
            "Give the encoder its tokens in the reverse order: {}.\n"
            "Each key stays paired with its own value, so the weights' columns are only\n"
            "reordered, and every output row is the same sum Σ_j weight_j · v_j taken in\n"
            "another order. For one query, the keys and values form a set: attention alone\n"
            "does not see their order.",
            join_elided(english_reversed, " ")));
        const Matrix X_enc_reversed = permute_rows(X_enc, order);  // (n × d_enc)
        const AttentionSteps reversed = scaled_dot_product_attention(
            Q, matmul(X_enc_reversed, W_K.values), matmul(X_enc_reversed, W_V.values));
        lesson.show("weights_reversed", "softmax(Q · K_reversedᵀ / √d_k)", reversed.weights, french,
                    english_reversed, 3);
        lesson.show("output_reversed", "weights_reversed · V_reversed", reversed.output, french, W_V.columns, 3);

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        check.that(fmt::format("the shapes: Q ({0} × {2}), K ({1} × {2}), V ({1} × {3}), weights ({0} × {1}), "
                               "output ({0} × {3})",
                               m, n, d_k, d_v),
                   rows(Q) == m && cols(Q) == d_k && rows(K) == n && cols(K) == d_k && rows(V) == n &&
                       cols(V) == d_v && rows(steps.weights) == m && cols(steps.weights) == n &&
                       rows(steps.output) == m && cols(steps.output) == d_v);
        check.close("every row of weights sums to 1", worst_row_sum_error(steps.weights), row_sum_tolerance(n));

        // The loop of the papers, one decoder token at a time, in double:
        // output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j
        Matrix loop_output = Matrix::from_shape({m, d_v});
        for (std::size_t i = 0; i < m; ++i) {
            std::vector<double> score(n);
            for (std::size_t j = 0; j < n; ++j) {
                double dot = 0.0;
                for (std::size_t c = 0; c < d_k; ++c) dot += double(Q(i, c)) * K(j, c);
                score[j] = dot / std::sqrt(double(d_k));
            }
            const double top = *std::max_element(score.begin(), score.end());
            double z = 0.0;
            for (double& s : score) z += (s = std::exp(s - top));
            for (std::size_t c = 0; c < d_v; ++c) {
                double sum = 0.0;
                for (std::size_t j = 0; j < n; ++j) sum += score[j] / z * V(j, c);
                loop_output(i, c) = static_cast<float>(sum);
            }
        }
        // The output is of the size of V (values of 1e6 give outputs of 1e6), and so is
        // its rounding: the output's tolerances are relative to its size.
        check.close("a loop over decoder and encoder tokens gives the same output",
                    max_abs_difference(loop_output, steps.output), scaled_tolerance(1e-5, loop_output));

        // The alignment of every French word whose English translation is in the source once.
        // It is built into the states and projections of data/translation/, so it is a
        // claim about words looked up there, not about states from --encoder/--decoder.
        const std::string alignment_claim = "each French word looks most at its translation";
        std::vector<std::string> pairs;
        bool aligned = true;
        for (std::size_t i = 0; i < m; ++i) {
            const auto found = translation_of.find(french[i]);
            if (found == translation_of.end() || std::count(english.begin(), english.end(), found->second) != 1)
                continue;
            aligned = aligned && english[argmax_of_row(steps.weights, i)] == found->second;
            pairs.push_back(french[i] + "→" + found->second);
        }
        if (!encoder_path.empty() || !decoder_path.empty())
            check.skip(alignment_claim, "states from --encoder/--decoder: the alignment is built into "
                                        "data/translation/ only");
        else if (!pairs.empty())
            check.that(fmt::format("{}: {}", alignment_claim, fmt::join(pairs, ", ")), aligned);

        check.close("reversing the encoder reverses the columns of weights",
                    max_abs_difference(reversed.weights, permute_columns(steps.weights, order)), 1e-6);
        check.close("reversing the encoder leaves the output unchanged",
                    max_abs_difference(reversed.output, steps.output), scaled_tolerance(1e-6, steps.output));
    });
}
