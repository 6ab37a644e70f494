// Chapter 14 · Rotary position embeddings (RoPE)
//
// The lesson: instead of adding positions to X (chapter 09), turn each pair of
// query and key dimensions by an angle proportional to the position. A score then
// depends on the distance between two tokens only: shift every position and no
// score moves, while the scores of X + PE do. Then the two layouts of the pairs
// found in public code, and the decay of the scores with distance. The self-checks
// compare with explicit 2×2 rotation matrices in double, a closed form of each
// score, and softmax written as loops.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/14_rotary_positions/math.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"

namespace {

const std::string default_sentence = "the cat sat on the mat";
const std::size_t decay_d = 128;  // the width of the decay step's vectors: a head of Llama

// data/projections/<name>.csv, or the learner's own file.
LabelledMatrix read_projection(const std::string& path, const std::string& name) {
    return path.empty() ? read_data_file("projections/" + name + ".csv") : read_labelled_csv(path);
}

// What every step shows: the sequence, the flags and what math.cpp computed.
struct Shown {
    Lesson& lesson;
    const Sequence& seq;
    const LabelledMatrix &W_Q, &W_K;
    const Labels positioned;  // "the@0", "cat@1", …: each token with its position
    std::size_t offset;
    double base;
    bool default_data;  // the default sentence and projections
    const RopeLesson& r;
};

std::string number(double x) { return fmt::format("{:.3f}", x); }

// Step: Q and K as chapter 05 makes them, and the positions they stand at.
void show_queries_keys(const Shown& s) {
    s.lesson.say(fmt::format(
        "Q = X · W_Q and K = X · W_K with the projections of chapter 05: d_k = {}, so {}\n"
        "pairs of dimensions. Token t stands at position offset + t (--offset {}).",
        cols(s.r.Q), cols(s.r.Q) / 2, s.offset));
    s.lesson.show("X", s.seq.X, ShowAs().labels(s.seq.tokens, s.seq.dimensions).decimals(1));
    s.lesson.keep_for_dump("W_Q", s.W_Q.values, s.W_Q.rows, s.W_Q.columns);
    s.lesson.keep_for_dump("W_K", s.W_K.values, s.W_K.rows, s.W_K.columns);
    s.lesson.show("Q", s.r.Q, ShowAs("X · W_Q").labels(s.positioned, s.W_Q.columns));
    s.lesson.show("K", s.r.K, ShowAs("X · W_K").labels(s.positioned, s.W_K.columns));
}

// Step: the frequencies and the angle of every pair at every position.
void show_angles(const Shown& s) {
    const std::size_t d_k = cols(s.r.Q);
    s.lesson.say(fmt::format(
        "θ_i = base^(−2i/d_k), the frequencies of chapter 09 (base {:g}). Pair i turns by\n"
        "θ_i radians per position: pair 0 by 1 radian, the last pair slowest.",
        s.base));
    std::vector<TextRow> rows_;
    for (std::size_t i = 0; i < s.r.theta.size(); ++i)
        rows_.push_back({std::to_string(i), fmt::format("{}, {}", 2 * i, 2 * i + 1),
                         fmt::format("{}, {}", s.W_Q.columns[2 * i], s.W_Q.columns[2 * i + 1]),
                         fmt::format("{:.6f}", s.r.theta[i]), fmt::format("{:.1f}", 2.0 * M_PI / s.r.theta[i])});
    s.lesson.table({"pair i", "columns", "of Q", "θ_i", "turn every (positions)"}, rows_);
    Labels columns;
    for (std::size_t i = 0; i < d_k / 2; ++i) columns.push_back(fmt::format("pos·θ{}", i));
    s.lesson.show("angles", s.r.angles, ShowAs("position · θ_i (radians)").labels(s.positioned, columns));
}

// Step: one query, pair by pair.
void show_one_rotation(const Shown& s) {
    // The token whose pairs are all longest: every pair has something to turn.
    std::size_t t = 0;
    double best = -1.0;
    for (std::size_t row = 0; row < rows(s.r.Q); ++row) {
        double shortest = HUGE_VAL;
        for (std::size_t i = 0; i < s.r.theta.size(); ++i)
            shortest = std::min(shortest, std::hypot(double(s.r.Q(row, 2 * i)), double(s.r.Q(row, 2 * i + 1))));
        if (shortest > best) best = shortest, t = row;
    }
    const std::size_t pos = s.offset + t;
    s.lesson.say(fmt::format(
        "The query of '{}' at position {}. Each pair (a, b) = (q_2i, q_2i+1) is multiplied\n"
        "by the rotation R(α) = [[cos α, −sin α], [sin α, cos α]], α = {} · θ_i:\n"
        "(a, b) → (a cos α − b sin α, a sin α + b cos α). Its length does not change.",
        s.seq.tokens[t], pos, pos));
    std::vector<TextRow> table;
    for (std::size_t i = 0; i < s.r.theta.size(); ++i) {
        const float a = s.r.Q(t, 2 * i), b = s.r.Q(t, 2 * i + 1), alpha = s.r.angles(t, i);
        const float a_rot = s.r.Q_rot(t, 2 * i), b_rot = s.r.Q_rot(t, 2 * i + 1);
        table.push_back({std::to_string(i), fmt::format("({}, {})", number(a), number(b)), number(alpha),
                         number(std::cos(alpha)), number(std::sin(alpha)),
                         fmt::format("({}, {})", number(a_rot), number(b_rot)), number(std::hypot(a, b)),
                         number(std::hypot(a_rot, b_rot))});
    }
    s.lesson.table({"pair", "(a, b)", "α", "cos α", "sin α", "turned", "|(a, b)|", "|turned|"}, table);
}

// Step: the rotated queries and keys, their scores and weights.
void show_rotated(const Shown& s) {
    s.lesson.say(
        "Every row turned by its own position's angles, queries and keys alike. The\n"
        "scores are plain dot products of the turned vectors; the weights, softmax of\n"
        "scores / √d_k as in chapter 03.");
    s.lesson.show("Q_rot", s.r.Q_rot,
                  ShowAs("Q, each pair turned by position · θ_i").labels(s.positioned, s.W_Q.columns));
    s.lesson.show("K_rot", s.r.K_rot,
                  ShowAs("K, each pair turned by position · θ_i").labels(s.positioned, s.W_K.columns));
    if (s.default_data)
        s.lesson.say(
            "'the' stands at positions 0 and 4: one row of Q, two rows of Q_rot. The\n"
            "position is now inside the vector, and X was never touched.");
    s.lesson.show("scores", s.r.scores, ShowAs("Q_rot · K_rotᵀ").labels(s.positioned, s.positioned));
    s.lesson.show("weights", s.r.weights,
                  ShowAs("softmax(scores / √d_k)").labels(s.positioned, s.positioned).heat_map());
}

// Step: shift every position; RoPE's scores stay, X + PE's move.
void show_offset(const Shown& s) {
    s.lesson.say(
        "R(α)ᵀ R(β) = R(β − α), so q_rot(m) · k_rot(n) = q · R((n − m)θ) k: the positions\n"
        "enter only through their difference. Shift every position by P and each score\n"
        "stays. Chapter 09's sinusoids added to X (with the same base) have no such\n"
        "property: the scores of (X + PE) W_Q · ((X + PE) W_K)ᵀ move.");
    s.lesson.show(
        "scores_pe", s.r.pe_scores,
        ShowAs(fmt::format("(X + PE) W_Q · ((X + PE) W_K)ᵀ, offset {}", s.offset)).labels(s.positioned, s.positioned));
    s.lesson.keep_for_dump("scores_pe_0", s.r.pe_scores_0);
    std::vector<TextRow> table;
    for (std::size_t k = 0; k < s.r.offsets.size(); ++k)
        table.push_back({fmt::format("{}", s.r.offsets[k]), fmt::format("{:.1e}", s.r.offset_changes(k, 0)),
                         number(s.r.offset_changes(k, 1))});
    s.lesson.say(
        fmt::format("max |scores(offset P) − scores(offset 0)| over all {} × {} scores:", rows(s.r.Q), rows(s.r.Q)));
    s.lesson.table({"offset P", "RoPE", "X + PE (chapter 09)"}, table);
    s.lesson.keep_for_dump("offset_changes", s.r.offset_changes);
    s.lesson.say(
        "RoPE's column is float rounding (the angles are taken in double: an angle near\n"
        "10⁶ radians stored as a float is off by up to 0.03). X + PE's column is the\n"
        "absolute position leaking into every score.");
}

// Step: interleaved pairs against split halves.
void show_pairings(const Shown& s) {
    const std::size_t d_k = cols(s.r.Q);
    Labels halves;
    for (const std::size_t c : halves_order(d_k)) halves.push_back(s.W_Q.columns[c]);
    s.lesson.say(fmt::format(
        "The RoFormer paper pairs dimensions (2i, 2i+1): interleaved. GPT-NeoX and Hugging\n"
        "Face's Llama pair (i, i + d_k/2): split halves, written x·cos + rotate_half(x)·sin.\n"
        "Same frequencies, other columns. Put Q's columns in the order {} (as\n"
        "Hugging Face's Llama conversion script permutes W_Q and W_K), and split halves\n"
        "turns exactly the pairs that interleaved turned:",
        fmt::format("({})", fmt::join(halves_order(d_k), ", "))));
    s.lesson.keep_for_dump("Q_halves", s.r.Q_halves);
    s.lesson.keep_for_dump("K_halves", s.r.K_halves);
    s.lesson.show("Q_rot_halves", s.r.Q_rot_halves, ShowAs("split halves of Q_halves").labels(s.positioned, halves));
    s.lesson.keep_for_dump("K_rot_halves", s.r.K_rot_halves);
    s.lesson.show("scores_halves", s.r.scores_halves,
                  ShowAs("Q_rot_halves · K_rot_halvesᵀ").labels(s.positioned, s.positioned));
    s.lesson.say(
        fmt::format("The same scores as interleaved (largest difference {:.1e}). Mixed up, split halves\n"
                    "applied to Q and K in their interleaved layout turns other pairs (0 with {}, …)\n"
                    "at other speeds. A model trained with one layout and run with the other reads\n"
                    "other scores:",
                    max_abs_difference(s.r.scores_halves, s.r.scores), d_k / 2));
    s.lesson.keep_for_dump("Q_rot_mixed", s.r.Q_rot_mixed);
    s.lesson.keep_for_dump("K_rot_mixed", s.r.K_rot_mixed);
    s.lesson.show("scores_mixed", s.r.scores_mixed,
                  ShowAs("split halves on the interleaved layout").labels(s.positioned, s.positioned));
    s.lesson.show("weights_mixed", s.r.weights_mixed,
                  ShowAs("softmax(scores_mixed / √d_k)").labels(s.positioned, s.positioned).heat_map());
    s.lesson.say(fmt::format("Largest change of a score {:.3f}, of a weight {:.3f}.",
                             max_abs_difference(s.r.scores_mixed, s.r.scores),
                             max_abs_difference(s.r.weights_mixed, s.r.weights)));
}

// Step: the long-range decay, as a text chart and (--svg) a plot.
void show_decay(const Shown& s) {
    const Matrix& decay = s.r.decay;
    const std::size_t last = rows(decay) - 1;
    s.lesson.say(fmt::format(
        "Take q = k = (1, …, 1) of width {0}. Then q_rot(m) · k_rot(n) = 2 Σ_i cos((m − n)θ_i),\n"
        "largest at distance 0 and smaller, on average, the further apart. RoFormer\n"
        "(section 3.4.3) bounds any score by max_k |h_k − h_k+1| · Σ_j |S_j|, with\n"
        "S_j = Σ_(k<j) e^(i·(m−n)θ_k), a bound that falls, on the whole, with distance.\n"
        "Both relative to distance 0:",
        decay_d));
    std::vector<double> x, ones, bound;
    for (std::size_t d = 0; d <= last; ++d) x.push_back(double(d)), ones.push_back(decay(d, 0)),
                                             bound.push_back(decay(d, 1));
    ChartOptions chart;
    chart.width = 60, chart.height = 10;
    chart.y_text = [](double y) { return fmt::format("{:.2f}", y); };
    for (std::size_t k = 0; k <= 4; ++k)
        chart.ticks.push_back({double(k * last / 4), std::to_string(k * last / 4)});
    chart.x_title = "  |m − n|";
    s.lesson.chart("decay", fmt::format("RoPE scores against distance (d = {}, base {:g})", decay_d, s.base),
                   {"distance |m − n| (positions)", false}, {"relative to distance 0", false},
                   {{"q = k = ones", x, ones, "•"}, {"RoFormer's bound", x, bound, "b"}}, chart);
    s.lesson.keep_for_dump("decay", decay);
    std::vector<TextRow> table;
    for (const std::size_t d : {std::size_t{0}, std::size_t{1}, std::size_t{10}, std::size_t{50}, last / 2, last})
        if (d <= last) table.push_back({std::to_string(d), number(decay(d, 0)), number(decay(d, 1))});
    table.erase(std::unique(table.begin(), table.end()), table.end());
    s.lesson.table({"distance", "q = k = ones", "RoFormer's bound"}, table);
    s.lesson.say(
        "The decay is about vectors that point the same way: a trained W_Q and W_K can\n"
        "still make a distant key score high.");
}

// Each claim against something computed another way: explicit 2×2 rotation matrices
// and softmax as loops in double, the closed form q · R((n − m)θ) k of each score,
// Σ cos for the decay.
void check(SelfChecks& check, const Shown& s) {
    const RopeLesson& r = s.r;
    const RopeByLoops& loops = r.by_loops;
    const std::size_t n = rows(r.Q), d_k = cols(r.Q);
    double theta_error = 0.0;  // θ_i = 1 / base^(2i/d_k), by exp and log
    for (std::size_t i = 0; i < r.theta.size(); ++i)
        theta_error = std::max(theta_error,
                               std::abs(r.theta[i] - std::exp(-std::log(s.base) * double(2 * i) / double(d_k))));
    check.close("θ_i = base^(−2i/d_k), again by exp and log", theta_error, 1e-12);
    // A turned entry rounds its cos and sin and two products: a few float units of its pair.
    const double rotation_tolerance = std::max(1e-6, 4.0 * FLT_EPSILON * loops.pair_size);
    check.close("Q_rot = explicit 2×2 rotation matrices, in double",
                max_abs_difference(r.Q_rot, loops.Q_rot), rotation_tolerance);
    check.close("K_rot = explicit 2×2 rotation matrices, in double",
                max_abs_difference(r.K_rot, loops.K_rot), rotation_tolerance);
    // A score sums d_k products of turned entries: (d_k + 8) float units of Σ |q_pair|·|k_pair|.
    const double score_tolerance = std::max(1e-6, double(d_k + 8) * FLT_EPSILON * loops.score_size);
    check.close("scores = Σ_c q_rot·k_rot, loops in double", max_abs_difference(r.scores, loops.scores),
                score_tolerance);
    check.close("weights = softmax(scores / √d_k), loops in double", max_abs_difference(r.weights, loops.weights),
                score_tolerance / std::sqrt(double(d_k)) + row_sum_tolerance(n));
    check.close("scores = q · R((n − m)θ) k: a function of m − n alone",
                max_abs_difference(r.scores, loops.closed_form), score_tolerance);
    double rope_change = 0.0, pe_change = 0.0;
    for (std::size_t k = 0; k < r.offsets.size(); ++k)
        rope_change = std::max(rope_change, double(r.offset_changes(k, 0))),
        pe_change = std::max(pe_change, double(r.offset_changes(k, 1)));
    check.close(fmt::format("RoPE: scores at offsets 1 … {} = scores at offset 0", r.offsets.back()), rope_change,
                2.0 * score_tolerance);
    const std::string pe_claim = fmt::format("X + PE: the scores move with the offset (by up to {:.3f})", pe_change);
    if (s.default_data || pe_change > 100.0 * score_tolerance)
        check.that(pe_claim, pe_change > 100.0 * score_tolerance);
    else
        check.skip(pe_claim, "within 100 × the float rounding of scores this large");
    const Matrix permuted = permute_columns(r.Q_rot, halves_order(d_k));
    check.close("split halves of Q in halves order = Q_rot in halves order",
                max_abs_difference(r.Q_rot_halves, permuted), rotation_tolerance);
    check.close("split halves, permuted to match: the scores of interleaved",
                max_abs_difference(r.scores_halves, r.scores), 2.0 * score_tolerance);
    const double mixed = max_abs_difference(r.scores_mixed, r.scores);
    const std::string mixed_claim = fmt::format("mixed up, the scores differ (by up to {:.3f})", mixed);
    if (d_k == 2)
        check.skip(mixed_claim, "d_k = 2: one pair, both layouts turn columns 0 and 1");
    else if (s.default_data || mixed > 100.0 * score_tolerance)
        check.that(mixed_claim, mixed > 100.0 * score_tolerance);
    else
        check.skip(mixed_claim, "within 100 × the float rounding of these scores");
    Matrix ones = Matrix::from_shape({rows(r.decay), 1});
    for (std::size_t d = 0; d < rows(r.decay); ++d) ones(d, 0) = r.decay(d, 0);
    check.close("decay: q_rot(0) · k_rot(Δ) / d = (2/d) Σ_i cos(Δ θ_i)",
                max_abs_difference(ones, r.decay_closed_form), 4e-6);
}

// The chapter's flags, and what they read.
struct Options {
    std::size_t offset = 0, max_distance = 256;
    double base = 10000.0;
    std::string w_q_path, w_k_path;
};

void add_options(CLI::App& cli, Options& o) {
    cli.add_option("--offset", o.offset, "P: token t stands at position P + t")
        ->capture_default_str()->check(CLI::Range(std::size_t{0}, std::size_t{1000000}));
    cli.add_option("--base", o.base, "the base of θ_i = base^(−2i/d_k): > 1, at most 1e9")
        ->capture_default_str()->check(CLI::Validator(
            [](std::string& text) {
                char* end = nullptr;
                const double v = std::strtod(text.c_str(), &end);
                const bool ok = !text.empty() && *end == '\0' && v > 1.0 && v <= 1e9;
                return ok ? std::string() : std::string("expected a number > 1 and at most 1e9");
            },
            "BASE"));
    cli.add_option("--max-distance", o.max_distance, "the longest distance of the decay step")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
    cli.add_option("--w-q", o.w_q_path, "your own W_Q (d_model × d_k, d_k even) instead of data/projections/W_Q.csv")
        ->type_name("PATH");
    cli.add_option("--w-k", o.w_k_path, "your own W_K (d_model × d_k, d_k even) instead of data/projections/W_K.csv")
        ->type_name("PATH");
}

// W_Q and W_K read the sequence's dimensions and share one even width d_k.
void require_fit(const LabelledMatrix& W_Q, const LabelledMatrix& W_K, const Sequence& seq,
                 const std::string& seq_source) {
    for (const LabelledMatrix* w : {&W_Q, &W_K}) require_projects(*w, seq, seq_source);
    if (cols(W_Q.values) % 2 != 0 || cols(W_K.values) != cols(W_Q.values))
        throw InputError(fmt::format("{} and {}: W_Q has {} columns and W_K {}; RoPE needs one even d_k "
                                     "(it turns pairs of dimensions)",
                                     W_Q.source, W_K.source, cols(W_Q.values), cols(W_K.values)));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch14_rotary_positions", "Chapter 14 · Rotary position embeddings (RoPE)");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    Options o;
    add_options(lesson.cli(), o);

    return lesson.run(argc, argv, [&] {
        const LabelledMatrix W_Q = read_projection(o.w_q_path, "W_Q"), W_K = read_projection(o.w_k_path, "W_K");
        const Sequence seq = load_sequence(input, default_sentence, square_matrices_held);
        require_fit(W_Q, W_K, seq, input.empty() ? data_path("embeddings.csv") : input);
        const RopeLesson r = rope_lesson(seq.X, W_Q.values, W_K.values, o.offset, o.base, decay_d, o.max_distance);
        Labels positioned;  // "the@0", "cat@1", …
        for (std::size_t t = 0; t < seq.tokens.size(); ++t)
            positioned.push_back(fmt::format("{}@{}", seq.tokens[t], o.offset + t));
        const bool default_data = input.empty() && o.w_q_path.empty() && o.w_k_path.empty();
        const Shown s{lesson, seq, W_Q, W_K, positioned, o.offset, o.base, default_data, r};
        lesson.step("queries-keys", "Queries and keys, and their positions", [&] { show_queries_keys(s); });
        lesson.step("angles", "One angle per pair and position", [&] { show_angles(s); });
        lesson.step("one-rotation", "Turning one query, pair by pair", [&] { show_one_rotation(s); });
        lesson.step("rotated", "Q_rot, K_rot and their scores", [&] { show_rotated(s); });
        lesson.step("offset", "Only the distance counts: shifting every position", [&] { show_offset(s); });
        lesson.step("pairings", "Interleaved pairs or split halves", [&] { show_pairings(s); });
        lesson.step("decay", fmt::format("Scores against distance, d = {}", decay_d), [&] { show_decay(s); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), s); });
        lesson.present();
    });
}
