// Chapter 19 · Attention as a recurrence: linear attention and the delta rule
//
// The lesson: causal linear attention computed three ways (the masked n × n product, a
// d × d state updated token by token, and chunks that carry the state), the delta rule and
// its gated form, what a state holds when keys are and are not orthogonal, and the four
// kinds of token mixing trained side by side on chapter 16's copy task; then the self-checks.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/19_linear_attention/checks.hpp"
#include "chapters/19_linear_attention/inputs.hpp"
#include "chapters/19_linear_attention/math.hpp"
#include "chapters/19_linear_attention/trained.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"
#include "common/long_context/long_attention.hpp"
#include "common/training/training_memory.hpp"

namespace {

std::string three(double x) { return format_number(float(x), 3); }
Labels sweep_labels() {
    Labels labels;
    for (std::size_t i = 1; i <= memory_sweeps; ++i) labels.push_back(fmt::format("sweep {}", i));
    return labels;
}

// What every step shows.
struct Shown {
    Lesson& lesson;
    const Sequence& seq;  // X
    const Recurrences& r;
    const Settings& s;
    const SequenceSource& input;
    std::size_t n, d;
};

void show_sequence(const Shown& s) {
    s.lesson.say(fmt::format(
        "{} tokens of width d_model = d = {}; one head with Q = X·W_Q, K = X·W_K, V = X·W_V\n"
        "(random, seeded). Softmax attention would keep every key and value (the KV cache of\n"
        "chapter 13). This chapter replaces the softmax by something a fixed-size state can\n"
        "carry from token to token.\n{}",
        s.n, s.d, s.input.embeddings_said()));
    s.lesson.show(s.seq.X, Style().decimals(2));
}

void show_parallel(const Shown& s) {
    s.lesson.say(fmt::format(
        "Linear attention scores a query and a key by φ(q)·φ(k) instead of exp(q·k/√d), with\n"
        "φ(x) = {} taken entry by entry (--feature-map). Every φ is ≥ 0, so each score is ≥ 0\n"
        "and a row's sum can divide it, as softmax's does. The parallel form masks the n × n\n"
        "scores, A = (φQ φKᵀ) ⊙ M, and divides each row of A V by the row's sum:",
        feature_map_formula(s.s.phi)));
    s.lesson.show_side_by_side({{s.r.phi_Q, Style().decimals(2)}, {s.r.phi_K, Style().decimals(2)}});
    s.lesson.heat_map(s.r.linear_weights, Style().decimals(2).svg());
    s.lesson.say_under("Each row sums to 1, like softmax's weights (the row of a query that sees no\n"
                       "key, possible with relu, is 0).");
    s.lesson.show(s.r.output_parallel, Style().decimals(3));
}

void show_recurrent(const Shown& s) {
    s.lesson.say(fmt::format(
        "The product regroups: φ(q_t)ᵀ Σ_{{i≤t}} φ(k_i) v_iᵀ = φ(q_t)ᵀ S_t. Token by token,\n"
        "  S_t = S_{{t−1}} + φ(k_t) v_tᵀ   ({} × {} numbers)   z_t = z_{{t−1}} + φ(k_t)   ({} numbers)\n"
        "  out_t = φ(q_t)ᵀ S_t / φ(q_t) · z_t\n"
        "The state does not grow: after 10 tokens or 10 million it is {} numbers, where a KV\n"
        "cache holds 2·d = {} per token. A query whose φ(q)·z is 0 (relu can give it: no\n"
        "positive entry in common) sees no key, and its output is 0, as softmax's convention.",
        s.d, s.d, s.d, s.d * s.d + s.d, 2 * s.d));
    s.lesson.show(s.r.output_recurrent, Style().decimals(3));
}

void show_chunked(const Shown& s) {
    s.lesson.say(fmt::format(
        "Training wants matrix products; decoding wants the recurrence. Chunks of C = {} tokens\n"
        "(--chunk) do both: inside a chunk the masked product, from the earlier chunks the state:\n"
        "  out_c = (φQ_c S + A_c V_c) / (φQ_c z + rowsum(A_c)),  then S += φK_cᵀ V_c, z += Σ φK_c\n"
        "{} tokens make {} chunk(s){}.",
        s.s.chunk, s.n, (s.n + s.s.chunk - 1) / s.s.chunk,
        s.n % s.s.chunk ? fmt::format(", the last of {} token(s)", s.n % s.s.chunk) : std::string()));
    s.lesson.show(s.r.output_chunked, Style().decimals(3));
    s.lesson.say_under(fmt::format("The three forms agree: {} checks each against loops in double.",
                                   s.lesson.ref("checks")));
}

void show_delta(const Shown& s) {
    s.lesson.say(fmt::format(
        "Linear attention only adds: S += k vᵀ. The delta rule first reads what S already holds\n"
        "for k and writes the difference:\n"
        "  S_t = S_{{t−1}} + β_t k_t (v_t − S_{{t−1}}ᵀ k_t)ᵀ,   o_t = S_tᵀ q_t\n"
        "with keys and queries scaled to length 1 (no φ, no normaliser). β_t in (0, 1] is how\n"
        "much of the error to write: {}.\n"
        "The gated form (Gated DeltaNet) also lets the old state fade,\n"
        "  S_t = α_t S_{{t−1}} + β_t k_t (v_t − α_t S_{{t−1}}ᵀ k_t)ᵀ,  here α_t = {} for every token (--alpha).",
        s.s.beta > 0 ? fmt::format("{} for every token (--beta)", s.s.beta)
                     : std::string("β_t = σ(x_t · w_β), a projection of the token"),
        s.s.alpha));
    s.lesson.show_side_by_side({{s.r.delta_K, Style().decimals(2)}, {s.r.beta, Style().decimals(3)}});
    s.lesson.show(s.r.output_delta, Style().decimals(3));
    s.lesson.show(s.r.output_gated, Style().decimals(3));
    s.lesson.heat_map(s.r.state_final, Style().decimals(2).svg());
}

void show_memory(const Shown& s) {
    const Memory& m = s.r.memory;
    s.lesson.say(fmt::format(
        "What a state holds: write {} pairs (k_i, v_i), k of width {}, v of width {}, then read\n"
        "each back with its key, Sᵀk_i, and measure |Sᵀk_i − v_i|. Orthogonal keys are e_0 … e_{};\n"
        "correlated keys are e_i + γ·(1, …, 1)/√{} with γ = {}, scaled to length 1 (each pair's\n"
        "cosine {}). Linear attention writes S += k vᵀ (φ left out); the delta rule, β = 1.",
        memory_pairs, memory_width, memory_value_width, memory_pairs - 1, memory_width, memory_overlap,
        three(m.key_cosine)));
    s.lesson.show_side_by_side({{s.r.memory.keys_correlated, Style().decimals(2)},
                                {s.r.memory.values, Style().decimals(2)}});
    s.lesson.show_side_by_side({{s.r.memory.state_linear, Style().decimals(2).svg()},
                                {s.r.memory.state_delta, Style().decimals(2).svg()}});
    s.lesson.show(s.r.memory.pair_errors, Style().decimals(4));
    s.lesson.say(fmt::format(
        "After one sweep: with orthogonal keys both read every value back. With correlated keys\n"
        "linear attention reads Σ_j (k_i·k_j) v_j, every pair blurred by the others; the delta\n"
        "rule (β = 1) reads the last pair back (error {}) but its first pair is off by {}:\n"
        "each later write corrected its own key and disturbed the earlier ones.",
        format_number(m.pair_errors(memory_pairs - 1, 3), 4), three(m.pair_errors(0, 3))));
    s.lesson.show(s.r.memory.sweep_errors, Style().decimals(4));
    s.lesson.say(fmt::format(
        "Writing the same pairs again, sweep after sweep, is Kaczmarz's method for the\n"
        "equations Sᵀk_i = v_i (online least squares): the delta rule's largest error falls from\n"
        "{} to {} after {} sweeps (the keys are linearly independent). Linear attention's\n"
        "does not shrink: each sweep adds the same Σ k vᵀ again, so the read-back grows\n"
        "(correlated keys: {} → {}).",
        three(m.sweep_errors(0, 3)), format_number(m.sweep_errors(memory_sweeps - 1, 3), 5), memory_sweeps,
        three(m.sweep_errors(0, 2)), three(m.sweep_errors(memory_sweeps - 1, 2))));
}

// The matrices by name, for --dump, --html and the labels of their rows and columns.
void list_matrices(Lesson& lesson, const Inputs& in, const Recurrences& r) {
    lesson.labels({{"tokens", in.seq.tokens}, {"pairs", numbered("pair ", memory_pairs)},
                   {"memories", {"lin_orth", "delta_orth", "lin_corr", "delta_corr"}},
                   {"sweeps", sweep_labels()}, {"dimensions", in.seq.dimensions},
                   {"mixers", {"softmax", "linear", "delta", "gated"}}, {"halves", {"first_half", "second_half"}},
                   {"lengths", {"n_32", "n_131072"}}});
    lesson.list(in.seq.matrices());
    lesson.list(in.W.matrices());
    lesson.list(r.matrices());
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    start_copy_task_trainings();  // one BLAS thread, buffers reused, trained models read back
    const SequenceSource& input = add_sentence_options(lesson, input_help);
    Flags flags;
    add_flags(lesson, flags);
    return lesson.run(argc, argv, [&] {
        flags.d_model_given = lesson.given("--d-model");
        const Inputs in = load_inputs(input, flags);
        const Recurrences r = recurrences(in.seq.X, in.W, in.s, flags.seed);
        const Shown s{lesson, in.seq, r, in.s, input, rows(in.seq.X), cols(in.seq.X)};
        TrainingClock clock;
        // The four trainings, done when a step first reads them (--list-steps and the steps
        // before "trained" do not wait for them).
        Part<SideBySide>& trained = lesson.part<SideBySide>([&] {
            if (flags.measure) use_training_memory(nullptr);  // --measure times the trainings themselves
            return train_side_by_side(copy_task_settings(flags), clock.progress());
        });
        list_matrices(lesson, in, r);
        lesson.step("sequence", "The sequence and one head", [&] { show_sequence(s); });
        lesson.step("parallel", "Linear attention, parallel: a feature map instead of softmax",
                    [&] { show_parallel(s); });
        lesson.step("recurrent", "The same as a recurrence: a state instead of a cache", [&] { show_recurrent(s); });
        lesson.step("chunked", "Chunk by chunk: products inside, the state between", [&] { show_chunked(s); });
        lesson.step("delta-rule", "The delta rule: write the error, not the value", [&] { show_delta(s); });
        lesson.step("memory", "What the state holds: orthogonal and correlated keys", [&] { show_memory(s); });
        lesson.step("trained", "Trained side by side on the copy task", [&] { show_trained(lesson, trained()); });
        if (flags.measure)
            lesson.step("measured", "Measured: time per training step", [&] { show_measured(lesson, trained(), clock); });
        lesson.step("checks", "Self-checks", [&] {
            check_recurrences(lesson.checks(), r, in.s);
            check_side_by_side(lesson.checks(), trained());
        });
        lesson.present();
    });
}
