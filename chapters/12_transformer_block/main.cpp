// Chapter 12 · A whole transformer block
//
// The lesson: one pass through the block of math.cpp, every intermediate in the order the
// chosen placement (pre-norm or post-norm) computes it, the other placement with the same
// weights, the shapes and the parameter counts of real models; checks.cpp checks them.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/12_transformer_block/checks.hpp"
#include "chapters/12_transformer_block/inputs.hpp"
#include "chapters/12_transformer_block/math.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"

namespace {

// What the steps need besides the result: the sequence and the flags.
struct Setting {
    Lesson& lesson;
    const Sequence& seq;
    const Flags& flags;
    const BlockPass& r;
    std::size_t heads() const { return r.params.heads; }
    std::size_t d_ff() const { return cols(r.params.ffn.W_1); }
    std::string ln_input(int w) const {  // what LN1 and LN2 read in this placement
        return w == 1 ? (r.pre ? "X" : "residual1") : r.pre ? "residual1" : "residual2";
    }
};

// Step: the parameters, their shapes, how they were drawn and how many there are.
void show_parameters(const Setting& c) {
    const std::size_t d_model = cols(c.seq.X), d_ff = c.d_ff();
    const bool gpt2 = c.flags.init == "gpt2";
    std::vector<TextRow> parts;
    for (const ParameterGroup& g : parameter_groups(d_model, d_ff, gpt2 ? Init::gpt2 : Init::xavier))
        parts.push_back({g.name, g.rows == 1 ? fmt::format("({})", g.cols) : fmt::format("({} × {})", g.rows, g.cols),
                         g.drawn_from, grouped(g.rows * g.cols)});
    parts.push_back({"total", "", "", grouped(c.r.drawn)});
    c.lesson.say(fmt::format(
        "h = {} heads of d_k = {} columns; the feed-forward network has d_ff = {} hidden units\n"
        "({}). Everything is drawn from the\nproject's generator with --seed {}.\n"
        "The weight matrices use {} initialisation. Biases, β and γ − 1\n"
        "start at 0 in a fresh model; here they are drawn small, so that every term shows.\n"
        "--dump writes them all.",
        c.heads(), d_model / c.heads(), d_ff,
        d_ff == 4 * d_model ? "4 · d_model, as in the paper and GPT-2"
                            : fmt::format("{} · d_model; the paper and GPT-2 use 4", double(d_ff) / double(d_model)),
        c.flags.seed, gpt2 ? "GPT-2's" : "Xavier (Glorot) normal"));
    c.lesson.table({"parameters", "shape", "drawn from", "count"}, parts);
}

// Step: LN`which`: each row's mean and variance before and after, then γ ⊙ x̂ + β.
void show_layer_norm(const Setting& c, int which) {
    const RowMoments &in = which == 1 ? c.r.ln1_in : c.r.ln2_in, &hat = which == 1 ? c.r.ln1_hat : c.r.ln2_hat;
    c.lesson.say(fmt::format(
        "Each token (row) on its own: subtract its mean μ, divide by √(σ² + ε) with ε = 1e-5,\n"
        "so the row x̂ has mean 0 and variance 1; then scale by γ{0} and shift by β{0}, one\n"
        "learned number per column, which lets the model undo the normalisation where it helps.",
        which));
    std::vector<TextRow> stats;
    for (std::size_t i = 0; i < in.mean.size(); ++i)  // a long --input: the first and last rows
        stats.push_back({c.seq.tokens[i], format_number(in.mean[i], 3), format_number(in.variance[i], 3),
                         format_number(static_cast<float>(hat.mean[i]), 3), format_number(hat.variance[i], 3)});
    c.lesson.table({"token", fmt::format("μ of {}", c.ln_input(which)), "σ²", "mean of x̂", "variance of x̂"}, stats);
    c.lesson.show(which == 1 ? c.r.s.ln1 : c.r.s.ln2);
    if (which == 2 && !c.r.pre) c.lesson.say("ln2 is the block's output.");
}

// Step: the attention sub-layer, head by head.
void show_attention(const Setting& c) {
    c.lesson.say(fmt::format(
        "Q = {0} · W_Q + b_Q, and likewise K and V, each (n × d_model), cut into h = {1}\n"
        "heads of d_k = {2} columns. Each head runs softmax(Q_i · K_iᵀ / √d_k) · V_i on its\n"
        "own columns; the heads are set side by side and W_O mixes them. This is the only\n"
        "place in the block where tokens look at each other. (Q, K and V are in --dump.)",
        c.r.pre ? "ln1" : "X", c.heads(), cols(c.seq.X) / c.heads()));
    for (const Matrix& head : c.r.head_weights) c.lesson.show(head, Style().svg());
    c.lesson.show(c.r.s.concat);
    c.lesson.show(c.r.s.attention);
}

// Step: the position-wise feed-forward network.
void show_ffn(const Setting& c) {
    c.lesson.say(fmt::format(
        "FFN(x) = {0} · W_2 + b_2. The paper uses max(0, ·) (ReLU); GPT-2 uses GELU,\n"
        "a smooth version (--activation gelu). It widens each token to d_ff = {1} hidden units\n"
        "and back to {2}. It looks at one token at a time, so it cannot move information\n"
        "between tokens; instead it mixes the columns the heads filled, with a non-linearity\n"
        "that attention does not have.",
        activated(c.r.params.ffn.activation, "x · W_1 + b_1"), c.d_ff(), cols(c.seq.X)));
    c.lesson.show(c.r.s.ffn.hidden);
    if (c.r.params.ffn.activation == Activation::relu)
        c.lesson.say(fmt::format("max(0, ·) set {} of the {} hidden values to exactly 0.", c.r.hidden_zeros,
                                 c.r.s.ffn.hidden.size()));
    c.lesson.show(c.r.s.ffn.output);
}

// Step: a residual sum.
void show_residual(const Setting& c, int which) {
    c.lesson.say(which == 1 ? "The sub-layer's output is added to its input. The token keeps what it was and\n"
                              "gains what attention found; the gradient has a path of plain 1s back to X."
                            : "The feed-forward output is added in the same way.");
    c.lesson.show(which == 1 ? c.r.s.residual1 : c.r.s.residual2);
}

// Steps 3–8: one pass, registered in the order the chosen placement computes it.
void register_the_pass(const Setting& c) {
    const std::map<std::string, std::pair<std::string, std::function<void()>>> steps = {
        {"ln1", {fmt::format("Layer normalisation 1: LN1({})", c.ln_input(1)), [&c] { show_layer_norm(c, 1); }}},
        {"attention", {fmt::format("Multi-head attention on {}", c.r.pre ? "ln1" : "X"), [&c] { show_attention(c); }}},
        {"residual1", {"Residual connection 1: add, do not replace", [&c] { show_residual(c, 1); }}},
        {"ln2", {fmt::format("Layer normalisation 2: LN2({})", c.ln_input(2)), [&c] { show_layer_norm(c, 2); }}},
        {"ffn", {fmt::format("The position-wise feed-forward network on {}", c.r.pre ? "ln2" : "ln1"),
                 [&c] { show_ffn(c); }}},
        {"residual2", {"Residual connection 2: add, do not replace", [&c] { show_residual(c, 2); }}}};
    static const std::vector<const char*> pre{"ln1", "attention", "residual1", "ln2", "ffn", "residual2"},
        post{"attention", "residual1", "ln1", "ffn", "residual2", "ln2"};
    for (const char* name : c.r.pre ? pre : post)
        c.lesson.step(name, steps.at(name).first, steps.at(name).second);
}

// Step: the other placement with the same weights, and the spread of both outputs.
void show_placements(const Setting& c) {
    c.lesson.say(
        "Post-norm (the 2017 paper): LN(x + Sublayer(x)). The normalisation sits on the\n"
        "residual path, so each block's output is renormalised and nothing reaches the next\n"
        "block unchanged. Deep post-norm stacks train only with a learning-rate warm-up.\n"
        "Pre-norm (GPT-2 and most models since): x + Sublayer(LN(x)). The sub-layer reads a\n"
        "normalised copy, and x itself flows through untouched: with the sub-layers switched\n"
        "off the block is exactly the identity. The stream's size grows from block to block,\n"
        "so GPT-2 adds one final LayerNorm after the last block.");
    c.lesson.show(c.r.other_output);
    std::vector<TextRow> spread;
    for (std::size_t i = 0; i < rows(c.seq.X); ++i)
        spread.push_back({c.seq.tokens[i], format_number(c.r.of_X.spread(i), 3), format_number(c.r.of_pre.spread(i), 3),
                          format_number(c.r.of_post.spread(i), 3)});
    c.lesson.table({"token", "σ of X", "σ of pre-norm output", "σ of post-norm output"}, spread);
    c.lesson.say(
        "The post-norm output has a spread near 1 in every row (γ2 moves it a little): it\n"
        "is a LayerNorm's output. The pre-norm output is X plus two additions, so its rows\n"
        "keep whatever size the stream had.");
}

// Step: every matrix of the pass with its shape.
void show_shapes(const Setting& c) {
    std::vector<TextRow> table;
    for (const ShapeRow& m : c.r.shapes())
        table.push_back({m.matrix, m.formula, m.shape, fmt::format("({} × {})", m.rows, m.cols)});
    c.lesson.table({"matrix", "formula", "shape", "here"}, table);
    c.lesson.say(
        "The block takes (n × d_model) and gives back (n × d_model): blocks stack, and the\n"
        "only place the shape leaves d_model is inside the FFN (d_ff) and the (n × n) weights.");
}

// Step: the parameters per block of this block, Transformer Base and GPT-2 small.
void show_counts(const Setting& c) {
    const auto count_row = [](const std::string& model, const std::string& dims, const BlockParameterCount& n) {
        return TextRow{model, dims, grouped(n.attention), grouped(n.feed_forward), grouped(n.layer_norms),
                       grouped(n.total())};
    };
    c.lesson.say(
        "Computed from the formulas: attention 4·d_model² (W_Q, W_K, W_V, W_O; h does not\n"
        "change it), + 4·d_model for their biases (this block and GPT-2 have them, the\n"
        "paper's attention has none), FFN 2·d_model·d_ff + d_ff + d_model, two LayerNorms\n"
        "2·2·d_model.");
    c.lesson.table({"model", "d_model, h, d_ff", "attention", "FFN", "2 LN", "per block"},
                   {count_row("this block", fmt::format("{}, {}, {}", cols(c.seq.X), c.heads(), c.d_ff()), c.r.toy),
                    count_row("Transformer Base", "512, 8, 2048", c.r.base),
                    count_row("GPT-2 small", "768, 12, 3072", c.r.gpt2)});
    const Gpt2Total& gpt2 = c.r.gpt2_model;
    c.lesson.say(
        fmt::format("The FFN holds two thirds of every block. The paper publishes no per-layer sizes,\n"
                    "only 65 M parameters for the whole Transformer Base (its Table 3). GPT-2 small\n"
                    "stacks 12 blocks ({}), adds token embeddings 50257 × 768 ({}),\n"
                    "position embeddings 1024 × 768 ({}) and a final LayerNorm ({}):\n"
                    "{} parameters, the published \"124M\".",
                    grouped(gpt2.blocks), grouped(gpt2.tokens), grouped(gpt2.positions), grouped(gpt2.final_ln),
                    grouped(gpt2.total())));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, "\"" + default_sentence + "\"");
    Flags flags;
    add_flags(lesson, flags);
    return lesson.run(argc, argv, [&] {
        const BlockInputs in = load_inputs(input, flags);
        const Sequence& seq = in.seq;
        const std::size_t d_model = cols(seq.X);
        const BlockPass r = block_pass(seq.X, in.params, in.placement);
        const Setting c{lesson, seq, flags, r};
        lesson.labels({{"tokens", seq.tokens}, {"dimensions", seq.dimensions},
                       {"heads' columns", numbered("c", d_model)}, {"hidden units", numbered("h", c.d_ff())}});
        lesson.list(seq.matrices());
        lesson.list(r.matrices());
        lesson.step("input", "The sequence that enters the block", [&] {
            lesson.say(fmt::format(
                "X holds one token per row, d_model = {} columns. A real model adds positional\n"
                "encodings first (chapter 09); this chapter leaves them out, so you can check\n"
                "that the block treats every position alike.",
                d_model));
            lesson.show(seq.X, Style().decimals(1));
        });
        lesson.step("parameters", "The block's parameters", [&] { show_parameters(c); });
        register_the_pass(c);
        lesson.step("placements", "Pre-norm and post-norm, with the same weights", [&] { show_placements(c); });
        lesson.step("shapes", "The shapes through the block", [&] { show_shapes(c); });
        lesson.step("real-models", "Parameters per block in real models", [&] { show_counts(c); });
        lesson.step("checks", "Self-checks", [&] { check_block(lesson.checks(), seq.X, r); });
        lesson.present();
    });
}
