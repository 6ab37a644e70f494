// Chapter 12 · A whole transformer block
//
// The lesson: one pass through the block of math.cpp, every intermediate in the
// order the chosen placement (pre-norm or post-norm) computes it, the other
// placement with the same weights, the shapes and the parameter counts of real
// models; checked against layer norm, attention and the FFN written out as loops
// in double, and against what the block must do (keep the shape, treat every
// position alike, be the identity in pre-norm when its sub-layers add nothing).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "chapters/12_transformer_block/math.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"
#include "common/math/linear.hpp"
#include "common/math/permutation.hpp"
#include "common/reference/layer_norm_by_loops.hpp"

namespace {

const std::string default_sentence = "the cat which was black sat on the mat";

// The chapter's flags.
struct Flags {
    std::size_t heads = 2;
    std::uint64_t seed = 2017;
    bool pre_norm = false, post_norm = false;  // pre-norm unless --post-norm
    std::string init = "xavier", activation = "relu";
};

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--heads", f.heads, "h: attention heads; must divide d_model (10 for the default sentence)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{64}))
        ->capture_default_str();
    cli.add_option("--seed", f.seed, "the seed of the random weights")->capture_default_str();
    CLI::Option* pre = cli.add_flag("--pre-norm", f.pre_norm, "x + Sublayer(LN(x)), as GPT-2 (the default)");
    CLI::Option* post = cli.add_flag("--post-norm", f.post_norm, "LN(x + Sublayer(x)), as the 2017 paper");
    pre->excludes(post);
    cli.add_option("--init", f.init,
                   "how the weight matrices are drawn: xavier N(0, 2/(fan_in+fan_out)), gpt2 N(0, 0.02²)")
        ->check(CLI::IsMember({"xavier", "gpt2"}))
        ->capture_default_str();
    cli.add_option("--activation", f.activation, "the FFN's non-linearity: relu (the paper) or gelu (GPT-2)")
        ->check(CLI::IsMember({"relu", "gelu"}))
        ->capture_default_str();
}

// What the steps need besides the result: the flags, the names.
struct Setting {
    const Sequence& seq;
    std::size_t heads, d_k, d_ff;
    std::uint64_t seed;
    bool pre;  // pre-norm (else post-norm)
    Init init;
    Activation activation;
    std::string activate(const std::string& z) const {
        return activation == Activation::relu ? "max(0, " + z + ")" : "GELU(" + z + ")";
    }
};

// Mean and (biased) variance of row i, in double: the reference for the float32 code.
std::pair<double, double> row_moments(const Matrix& m, std::size_t i) {
    double mean = 0.0, variance = 0.0;
    for (std::size_t j = 0; j < cols(m); ++j) mean += m(i, j);
    mean /= static_cast<double>(cols(m));
    for (std::size_t j = 0; j < cols(m); ++j) variance += (m(i, j) - mean) * (m(i, j) - mean);
    return {mean, variance / static_cast<double>(cols(m))};
}

// Every matrix that no step prints, for --dump (and ./tutorial check): the parameters,
// the projections, the FFN before its non-linearity, the output, and x̂ of both norms.
void keep_the_rest(Lesson& lesson, const BlockParams& params, const TransformerBlockLesson& r) {
    const AttentionParams& a = params.attention;
    for (const auto& [name, m] : std::vector<std::pair<std::string, const Matrix*>>{
             {"W_Q", &a.W_Q}, {"W_K", &a.W_K}, {"W_V", &a.W_V}, {"W_O", &a.W_O}, {"W_1", &params.ffn.W_1},
             {"W_2", &params.ffn.W_2}})
        lesson.keep_for_dump(name, *m);
    for (const auto& [name, v] : std::vector<std::pair<std::string, const Vector*>>{
             {"b_Q", &a.b_Q}, {"b_K", &a.b_K}, {"b_V", &a.b_V}, {"b_O", &a.b_O}, {"b_1", &params.ffn.b_1},
             {"b_2", &params.ffn.b_2}, {"gamma1", &params.ln1.gamma}, {"beta1", &params.ln1.beta},
             {"gamma2", &params.ln2.gamma}, {"beta2", &params.ln2.beta}})
        lesson.keep_for_dump(name, as_row(*v));
    for (const auto& [name, m] : std::vector<std::pair<std::string, const Matrix*>>{
             {"x_hat1", &r.x_hat1}, {"Q", &r.s.Q}, {"K", &r.s.K}, {"V", &r.s.V}, {"x_hat2", &r.x_hat2},
             {"pre_activation", &r.s.ffn.pre_activation}, {"output", &r.s.output}})
        lesson.keep_for_dump(name, *m);
}

// Step: the parameters, their shapes, how they were drawn and how many there are.
void show_parameters(Lesson& lesson, const Setting& c, const TransformerBlockLesson& r) {
    const std::size_t d_model = cols(c.seq.X), d_ff = c.d_ff;
    const std::string matrix_init = c.init == Init::gpt2 ? "N(0, 0.02²)" : "N(0, 2/(fan_in + fan_out))";
    std::vector<TextRow> parts;
    const auto part = [&](const std::string& name, std::size_t rs, std::size_t cs, const std::string& drawn) {
        parts.push_back({name, rs == 1 ? fmt::format("({})", cs) : fmt::format("({} × {})", rs, cs), drawn,
                         grouped(rs * cs)});
    };
    for (const char* W : {"W_Q", "W_K", "W_V", "W_O"}) part(W, d_model, d_model, matrix_init);
    part("b_Q, b_K, b_V, b_O", 1, 4 * d_model, "N(0, 0.1²)");
    part("γ1, γ2", 1, 2 * d_model, "1 + N(0, 0.1²)");
    part("β1, β2", 1, 2 * d_model, "N(0, 0.1²)");
    part("W_1", d_model, d_ff, matrix_init);
    part("b_1", 1, d_ff, "N(0, 0.1²)");
    part("W_2", d_ff, d_model, matrix_init);
    part("b_2", 1, d_model, "N(0, 0.1²)");
    parts.push_back({"total", "", "", grouped(r.drawn)});
    lesson.say(fmt::format(
        "h = {} heads of d_k = {} columns; the feed-forward network has d_ff = {} hidden units\n"
        "({}). Everything is drawn from the\n"
        "project's generator with --seed {}.\n"
        "The weight matrices use {} initialisation. Biases, β and γ − 1\n"
        "start at 0 in a fresh model; here they are drawn small, so that every term shows.\n"
        "--dump writes them all.",
        c.heads, c.d_k, d_ff,
        d_ff == 4 * d_model ? "4 · d_model, as in the paper and GPT-2"
                            : fmt::format("{} · d_model; the paper and GPT-2 use 4", double(d_ff) / double(d_model)),
        c.seed, c.init == Init::gpt2 ? "GPT-2's" : "Xavier (Glorot) normal"));
    lesson.table({"parameters", "shape", "drawn from", "count"}, parts);
}

// Step: LN`which`: each row's mean and variance before and after, then γ ⊙ x̂ + β.
void show_layer_norm(Lesson& lesson, const Setting& c, int which, const Matrix& in, const std::string& in_name,
                     const Matrix& x_hat, const Matrix& out) {
    lesson.say(fmt::format(
        "Each token (row) on its own: subtract its mean μ, divide by √(σ² + ε) with ε = 1e-5,\n"
        "so the row x̂ has mean 0 and variance 1; then scale by γ{0} and shift by β{0}, one\n"
        "learned number per column, which lets the model undo the normalisation where it helps.",
        which));
    std::vector<TextRow> stats;
    for (std::size_t i = 0; i < rows(in); ++i) {  // a long --input: the first and last rows
        const auto [mu, var] = row_moments(in, i);
        const auto [hat_mu, hat_var] = row_moments(x_hat, i);
        stats.push_back({c.seq.tokens[i], fmt::format("{:.3f}", mu), fmt::format("{:.3f}", var),
                         format_number(static_cast<float>(hat_mu), 3), fmt::format("{:.3f}", hat_var)});
    }
    lesson.table({"token", fmt::format("μ of {}", in_name), "σ²", "mean of x̂", "variance of x̂"}, stats);
    lesson.show(fmt::format("ln{}", which), out,
                ShowAs(fmt::format("γ{} ⊙ ({} − μ) / √(σ² + ε) + β{}", which, in_name, which))
                    .labels(c.seq.tokens, c.seq.dimensions));
}

// Step: the attention sub-layer, head by head.
void show_attention(Lesson& lesson, const Setting& c, const BlockSteps& s, const std::string& in_name) {
    const Labels& tokens = c.seq.tokens;
    lesson.say(fmt::format(
        "Q = {0} · W_Q + b_Q, and likewise K and V, each (n × d_model), cut into h = {1}\n"
        "heads of d_k = {2} columns. Each head runs softmax(Q_i · K_iᵀ / √d_k) · V_i on its\n"
        "own columns; the heads are set side by side and W_O mixes them. This is the only\n"
        "place in the block where tokens look at each other. (Q, K and V are in --dump.)",
        in_name, c.heads, c.d_k));
    for (std::size_t i = 0; i < c.heads; ++i)
        lesson.show(
            fmt::format("weights_{}", i + 1), head(s.weights, i),
            ShowAs(fmt::format("softmax(Q_{0} · K_{0}ᵀ / √{1})", i + 1, c.d_k)).labels(tokens, tokens).heat_map());
    lesson.show("concat", s.concat,
                ShowAs("[weights_1 · V_1, …, weights_h · V_h]").labels(tokens, numbered("c", cols(s.concat))));
    lesson.show("attention", s.attention, ShowAs("concat · W_O + b_O").labels(tokens, c.seq.dimensions));
}

// Step: a residual sum.
void show_residual(Lesson& lesson, const Setting& c, int which, const std::string& formula, const Matrix& m,
                   bool last) {
    lesson.say(which == 1 ? "The sub-layer's output is added to its input. The token keeps what it was and\n"
                            "gains what attention found; the gradient has a path of plain 1s back to X."
                          : "The feed-forward output is added in the same way.");
    lesson.show(fmt::format("residual{}", which), m,
                ShowAs(formula + (last ? "   (the block's output)" : "")).labels(c.seq.tokens, c.seq.dimensions));
}

// Step: the position-wise feed-forward network.
void show_ffn(Lesson& lesson, const Setting& c, const FeedForwardSteps& ffn, const std::string& in_name) {
    lesson.say(fmt::format(
        "FFN(x) = {0} · W_2 + b_2. The paper uses max(0, ·) (ReLU); GPT-2 uses GELU,\n"
        "a smooth version (--activation gelu). It widens each token to d_ff = {1} hidden units\n"
        "and back to {2}. It looks at one token at a time, so it cannot move information\n"
        "between tokens; instead it mixes the columns the heads filled, with a non-linearity\n"
        "that attention does not have.",
        c.activate("x · W_1 + b_1"), c.d_ff, cols(c.seq.X)));
    lesson.show("hidden", ffn.hidden,
                ShowAs(c.activate(in_name + " · W_1 + b_1")).labels(c.seq.tokens, numbered("h", c.d_ff)));
    std::size_t zeros = 0;
    for (const float v : ffn.hidden) zeros += v == 0.0f;
    if (c.activation == Activation::relu)
        lesson.say(fmt::format("max(0, ·) set {} of the {} hidden values to exactly 0.", zeros, ffn.hidden.size()));
    lesson.show("ffn", ffn.output, ShowAs("hidden · W_2 + b_2").labels(c.seq.tokens, c.seq.dimensions));
}

// Steps 3–8: one pass, registered in the order the chosen placement computes it.
void register_the_pass(Lesson& lesson, const Setting& c, const TransformerBlockLesson& r) {
    const BlockSteps& s = r.s;
    const auto layer_norm_step = [&](int which, const Matrix& in, const std::string& in_name, const Matrix& x_hat,
                                     const Matrix& out) {
        lesson.step(fmt::format("ln{}", which), fmt::format("Layer normalisation {}: LN{}({})", which, which, in_name),
                    [&lesson, &c, which, &in, in_name, &x_hat, &out] {
                        show_layer_norm(lesson, c, which, in, in_name, x_hat, out);
                    });
    };
    const auto residual_step = [&](int which, const std::string& formula, const Matrix& m, bool last) {
        lesson.step(fmt::format("residual{}", which), fmt::format("Residual connection {}: add, do not replace", which),
                    [&lesson, &c, which, formula, &m, last] { show_residual(lesson, c, which, formula, m, last); });
    };
    const auto attention_step = [&](const std::string& in_name) {
        lesson.step("attention", fmt::format("Multi-head attention on {}", in_name),
                    [&lesson, &c, &s, in_name] { show_attention(lesson, c, s, in_name); });
    };
    const auto ffn_step = [&](const std::string& in_name) {
        lesson.step("ffn", fmt::format("The position-wise feed-forward network on {}", in_name),
                    [&lesson, &c, &s, in_name] { show_ffn(lesson, c, s.ffn, in_name); });
    };
    if (c.pre) {
        layer_norm_step(1, c.seq.X, "X", r.x_hat1, s.ln1);
        attention_step("ln1");
        residual_step(1, "X + attention", s.residual1, false);
        layer_norm_step(2, s.residual1, "residual1", r.x_hat2, s.ln2);
        ffn_step("ln2");
        residual_step(2, "residual1 + ffn", s.residual2, true);
    } else {
        attention_step("X");
        residual_step(1, "X + attention", s.residual1, false);
        layer_norm_step(1, s.residual1, "residual1", r.x_hat1, s.ln1);
        ffn_step("ln1");
        residual_step(2, "ln1 + ffn", s.residual2, false);
        lesson.step("ln2", "Layer normalisation 2: LN2(residual2)", [&lesson, &c, &s, &r] {
            show_layer_norm(lesson, c, 2, s.residual2, "residual2", r.x_hat2, s.ln2);
            lesson.say("ln2 is the block's output.");
        });
    }
}

// Step: the other placement with the same weights, and the spread of both outputs.
void show_placements(Lesson& lesson, const Setting& c, const TransformerBlockLesson& r) {
    const Matrix& X = c.seq.X;
    const Matrix& pre_out = c.pre ? r.s.output : r.other_output;
    const Matrix& post_out = c.pre ? r.other_output : r.s.output;
    lesson.say(
        "Post-norm (the 2017 paper): LN(x + Sublayer(x)). The normalisation sits on the\n"
        "residual path, so each block's output is renormalised and nothing reaches the next\n"
        "block unchanged. Deep post-norm stacks train only with a learning-rate warm-up.\n"
        "Pre-norm (GPT-2 and most models since): x + Sublayer(LN(x)). The sub-layer reads a\n"
        "normalised copy, and x itself flows through untouched: with the sub-layers switched\n"
        "off the block is exactly the identity. The stream's size grows from block to block,\n"
        "so GPT-2 adds one final LayerNorm after the last block.");
    lesson.show(c.pre ? "output_post_norm" : "output_pre_norm", r.other_output,
                ShowAs(c.pre ? "LN2(r + FFN(r)), r = LN1(X + MHA(X))" : "r + FFN(LN2(r)), r = X + MHA(LN1(X))")
                    .labels(c.seq.tokens, c.seq.dimensions));
    std::vector<TextRow> spread;
    for (std::size_t i = 0; i < rows(X); ++i) {
        spread.push_back({c.seq.tokens[i], fmt::format("{:.3f}", std::sqrt(row_moments(X, i).second)),
                          fmt::format("{:.3f}", std::sqrt(row_moments(pre_out, i).second)),
                          fmt::format("{:.3f}", std::sqrt(row_moments(post_out, i).second))});
    }
    lesson.table({"token", "σ of X", "σ of pre-norm output", "σ of post-norm output"}, spread);
    lesson.say(
        "The post-norm output has a spread near 1 in every row (γ2 moves it a little): it\n"
        "is a LayerNorm's output. The pre-norm output is X plus two additions, so its rows\n"
        "keep whatever size the stream had.");
}

std::string shape(std::size_t r, std::size_t c) { return fmt::format("({} × {})", r, c); }

// Step: every matrix of the pass with its shape.
void show_shapes(Lesson& lesson, const Setting& c) {
    const std::size_t n = rows(c.seq.X), d_model = cols(c.seq.X);
    const std::vector<TextRow> shapes = {
        {"X", "input", "(n × d_model)", shape(n, d_model)},
        {"ln1", c.pre ? "LN1(X)" : "LN1(residual1)", "(n × d_model)", shape(n, d_model)},
        {"Q, K, V", "x · W + b", "(n × d_model)", shape(n, d_model)},
        {"Q_i, K_i, V_i", "head i's columns", "(n × d_k)", shape(n, c.d_k)},
        {"weights_i", "softmax(Q_i · K_iᵀ / √d_k)", "(n × n)", shape(n, n)},
        {"concat", "[weights_i · V_i]", "(n × h·d_k)", shape(n, d_model)},
        {"attention", "concat · W_O + b_O", "(n × d_model)", shape(n, d_model)},
        {"residual1", "X + attention", "(n × d_model)", shape(n, d_model)},
        {"ln2", c.pre ? "LN2(residual1)" : "LN2(residual2)", "(n × d_model)", shape(n, d_model)},
        {"hidden", c.activate("x · W_1 + b_1"), "(n × d_ff)", shape(n, c.d_ff)},
        {"ffn", "hidden · W_2 + b_2", "(n × d_model)", shape(n, d_model)},
        {"residual2", c.pre ? "residual1 + ffn" : "ln1 + ffn", "(n × d_model)", shape(n, d_model)},
        {"output", c.pre ? "residual2" : "ln2", "(n × d_model)", shape(n, d_model)},
    };
    lesson.table({"matrix", "formula", "shape", "here"}, shapes);
    lesson.say(
        "The block takes (n × d_model) and gives back (n × d_model): blocks stack, and the\n"
        "only place the shape leaves d_model is inside the FFN (d_ff) and the (n × n) weights.");
}

// GPT-2 small beyond its 12 blocks: token and position embeddings, the final LayerNorm.
struct Gpt2Total {
    std::uint64_t blocks, tokens = 50257ull * 768, positions = 1024ull * 768, final_ln = 2 * 768;
    std::uint64_t total() const { return blocks + tokens + positions + final_ln; }
};

// Step: the parameters per block of this block, Transformer Base and GPT-2 small.
void show_counts(Lesson& lesson, const Setting& c, const TransformerBlockLesson& r) {
    const Gpt2Total gpt2{12 * r.gpt2.total()};
    const auto count_row = [&](const std::string& model, const std::string& dims_text, const BlockParameterCount& n) {
        return TextRow{model,
                       dims_text,
                       grouped(n.attention),
                       grouped(n.feed_forward),
                       grouped(n.layer_norms),
                       grouped(n.total())};
    };
    lesson.say(
        "Computed from the formulas: attention 4·d_model² (W_Q, W_K, W_V, W_O; h does not\n"
        "change it), + 4·d_model for their biases (this block and GPT-2 have them, the\n"
        "paper's attention has none), FFN 2·d_model·d_ff + d_ff + d_model, two LayerNorms\n"
        "2·2·d_model.");
    lesson.table(
        {"model", "d_model, h, d_ff", "attention", "FFN", "2 LN", "per block"},
        {count_row("this block", fmt::format("{}, {}, {}", cols(c.seq.X), c.heads, c.d_ff), r.toy),
         count_row("Transformer Base", "512, 8, 2048", r.base), count_row("GPT-2 small", "768, 12, 3072", r.gpt2)});
    lesson.say(
        fmt::format("The FFN holds two thirds of every block. The paper publishes no per-layer sizes,\n"
                    "only 65 M parameters for the whole Transformer Base (its Table 3). GPT-2 small\n"
                    "stacks 12 blocks ({}), adds token embeddings 50257 × 768 ({}),\n"
                    "position embeddings 1024 × 768 ({}) and a final LayerNorm ({}):\n"
                    "{} parameters, the published \"124M\".",
                    grouped(gpt2.blocks), grouped(gpt2.tokens), grouped(gpt2.positions), grouped(gpt2.final_ln),
                    grouped(gpt2.total())));
}

// ── The other way: layer norm, the FFN and attention as loops in double ──────

// The largest |μ| / √(σ² + ε) over the rows: how many spreads away from 0 the
// rows sit. LayerNorm's float32 rounding grows with it (see the self-checks).
double mean_over_spread(const Matrix& x) {
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(x); ++i) {
        const auto [mean, variance] = row_moments(x, i);
        worst = std::max(worst, std::abs(mean) / std::sqrt(variance + 1e-5));
    }
    return worst;
}

// FFN(x) = max(0, x · W_1 + b_1) · W_2 + b_2 as loops in double, one token at a time.
Matrix feed_forward_loop(const FeedForward& f, const Matrix& x) {
    const std::size_t d_ff = cols(f.W_1), d_model = cols(f.W_2);
    Matrix y = Matrix::from_shape({rows(x), d_model});
    std::vector<double> hidden(d_ff);
    for (std::size_t i = 0; i < rows(x); ++i) {
        for (std::size_t k = 0; k < d_ff; ++k) {
            double z = f.b_1(k);
            for (std::size_t j = 0; j < cols(x); ++j) z += double(x(i, j)) * f.W_1(j, k);
            hidden[k] = f.activation == Activation::relu ? std::max(0.0, z) : gelu(static_cast<float>(z));
        }
        for (std::size_t j = 0; j < d_model; ++j) {
            double out = f.b_2(j);
            for (std::size_t k = 0; k < d_ff; ++k) out += hidden[k] * f.W_2(k, j);
            y(i, j) = static_cast<float>(out);
        }
    }
    return y;
}

// The attention sub-layer written out as loops in double, sharing nothing with
// common/math: q = x · W_Q + b_Q (and k, v), each head's Σ_j softmax_j(q·k_j/√d_k) v_j,
// the heads side by side, · W_O + b_O. Also the size float rounding of a score is
// relative to (Σ_c |q_c|·|k_jc| / √d_k) and of a value (max |v| · max column Σ |W_O|).
struct AttentionByLoops {
    Matrix weights;  // (h·n × n) head i's weights in rows [i·n, (i+1)·n)
    Matrix output;   // (n × d_model)
    double score_size = 0.0, value_size = 0.0;
};

using Rows = std::vector<std::vector<double>>;

// x · W + b in double. (n × d_model) → n rows of d_model
Rows project(const Matrix& x, const Matrix& W, const Vector& b) {
    Rows P(rows(x), std::vector<double>(cols(W)));
    for (std::size_t t = 0; t < rows(x); ++t)
        for (std::size_t c = 0; c < cols(W); ++c) {
            double sum = b(c);
            for (std::size_t d = 0; d < cols(x); ++d) sum += double(x(t, d)) * W(d, c);
            P[t][c] = sum;
        }
    return P;
}

AttentionByLoops attention_by_loops(const Matrix& x, const AttentionParams& p, std::size_t h) {
    const std::size_t n = rows(x), d_model = cols(p.W_Q), d_k = d_model / h;
    const Rows Q = project(x, p.W_Q, p.b_Q), K = project(x, p.W_K, p.b_K), V = project(x, p.W_V, p.b_V);
    AttentionByLoops r;
    r.weights = Matrix::from_shape({h * n, n});
    Rows concat(n, std::vector<double>(d_model, 0.0));
    for (std::size_t i = 0; i < h; ++i)
        for (std::size_t q = 0; q < n; ++q) {
            std::vector<double> s(n);
            for (std::size_t j = 0; j < n; ++j) {
                double dot = 0.0, size = 0.0;
                for (std::size_t c = i * d_k; c < (i + 1) * d_k; ++c)
                    dot += Q[q][c] * K[j][c], size += std::abs(Q[q][c] * K[j][c]);
                s[j] = dot / std::sqrt(double(d_k));
                r.score_size = std::max(r.score_size, size / std::sqrt(double(d_k)));
            }
            const double top = *std::max_element(s.begin(), s.end());
            double z = 0.0;
            for (double& e : s) z += (e = std::exp(e - top));
            for (std::size_t j = 0; j < n; ++j) {
                r.weights(i * n + q, j) = static_cast<float>(s[j] / z);
                for (std::size_t c = i * d_k; c < (i + 1) * d_k; ++c) concat[q][c] += s[j] / z * V[j][c];
            }
        }
    double v_max = 0.0, o_max = 0.0;
    for (const auto& row : V)
        for (const double v : row) v_max = std::max(v_max, std::abs(v));
    r.output = Matrix::from_shape({n, d_model});
    for (std::size_t d = 0; d < d_model; ++d) {
        double column = 0.0;
        for (std::size_t c = 0; c < d_model; ++c) column += std::abs(double(p.W_O(c, d)));
        o_max = std::max(o_max, column);
        for (std::size_t t = 0; t < n; ++t) {
            double sum = p.b_O(d);
            for (std::size_t c = 0; c < d_model; ++c) sum += concat[t][c] * p.W_O(c, d);
            r.output(t, d) = static_cast<float>(sum);
        }
    }
    r.value_size = v_max * o_max;
    return r;
}

// ── Self-checks ──────────────────────────────────────────────────────────────

// x̂ and both layer norms against the formula in double.
void check_layer_norms(SelfChecks& check, const TransformerBlockLesson& r, const BlockParams& params) {
    const std::size_t d_model = cols(r.ln1_input);
    double mean_error = 0.0, variance_error = 0.0;
    for (std::size_t i = 0; i < rows(r.ln1_input); ++i) {
        const auto [hat_mu, hat_var] = row_moments(r.x_hat1, i);
        const double var = row_moments(r.ln1_input, i).second;
        mean_error = std::max(mean_error, std::abs(hat_mu));
        variance_error = std::max(variance_error, std::abs(hat_var - var / (var + 1e-5)));
    }
    // The mean is a float32 sum of d_model numbers of size |μ|, off by less than
    // d_model · FLT_EPSILON · |μ| (row_sum_tolerance), and x̂ sees that error in
    // units of the spread. Nothing for centred rows; past 1e-2 (rows near 1e6 with a
    // spread of 3) too few digits of x − μ are left to check, whatever the code.
    const auto check_layer_norm = [&](const std::string& claim, double error, double tolerance, const Matrix& in) {
        const double ratio = mean_over_spread(in), rounding = row_sum_tolerance(d_model) * ratio;
        const std::string why =
            fmt::format("a row's mean is {:.0e} times its spread: float32 keeps too few digits of x − μ", ratio);
        if (rounding > 1e-2)
            check.skip(claim, why);
        else
            check.close(claim, error, std::max(tolerance, rounding));
    };
    check_layer_norm("every row of x̂ has mean 0", mean_error, 1e-6, r.ln1_input);
    check_layer_norm("every row of x̂ has variance σ²/(σ² + ε), which is 1 up to ε", variance_error, 1e-5,
                     r.ln1_input);
    const auto by_loops = [](const Matrix& x, const LayerNormParams& p) { return layer_norm_by_loops(x, p.gamma, p.beta); };
    check_layer_norm("LN1 equals the formula as a loop in double",
                     max_abs_difference(r.s.ln1, by_loops(r.ln1_input, params.ln1)), 1e-5, r.ln1_input);
    check_layer_norm("LN2 equals the formula as a loop in double",
                     max_abs_difference(r.s.ln2, by_loops(r.ln2_input, params.ln2)), 1e-5, r.ln2_input);
}

// The two sub-layers against their loops in double.
void check_sublayers(SelfChecks& check, const Setting& c, const TransformerBlockLesson& r, const BlockParams& params) {
    const BlockSteps& s = r.s;
    const std::size_t n = rows(c.seq.X), d_model = cols(c.seq.X);
    double row_sum_error = 0.0;
    for (std::size_t k = 0; k < c.heads; ++k)
        row_sum_error = std::max(row_sum_error, worst_row_sum_error(head(s.weights, k)));
    check.close("every head's weights: rows sum to 1", row_sum_error, row_sum_tolerance(n));
    // Attention against the loops in double, from the sub-layer's own input (LN1(X)
    // in pre-norm, X in post-norm). A float32 score is off by about (d_model + d_k)
    // roundings of the size of its terms; a weight moves by less than its score.
    const AttentionByLoops loops = attention_by_loops(c.pre ? s.ln1 : c.seq.X, params.attention, c.heads);
    double loop_weights_error = 0.0;
    for (std::size_t k = 0; k < c.heads; ++k)
        for (std::size_t q = 0; q < n; ++q)
            for (std::size_t j = 0; j < n; ++j)
                loop_weights_error = std::max(loop_weights_error,
                                              double(std::abs(s.weights(k, q, j) - loops.weights(k * n + q, j))));
    const double weights_tolerance = std::max(1e-5, double(d_model + c.d_k) * FLT_EPSILON * loops.score_size);
    check.close("every head's weights = softmax(q·k_j/√d_k) as loops in double", loop_weights_error,
                weights_tolerance);
    check.close("attention = concat · W_O + b_O, written as loops in double",
                max_abs_difference(s.attention, loops.output),
                scaled_tolerance(1e-4, loops.output) + weights_tolerance * double(n) * loops.value_size);
    const Matrix& ffn_in = c.pre ? s.ln2 : s.ln1;
    check.close("the FFN equals its formula as loops in double",
                max_abs_difference(s.ffn.output, feed_forward_loop(params.ffn, ffn_in)), 1e-4);
    Matrix one_at_a_time = Matrix::from_shape({n, d_model});
    for (std::size_t i = 0; i < n; ++i) {
        const Matrix row = xt::view(ffn_in, xt::range(i, i + 1), xt::all());  // (1 × d_model)
        xt::view(one_at_a_time, i, xt::all()) = xt::view(feed_forward(params.ffn, row).output, 0, xt::all());
    }
    check.close("position-wise: each token's FFN alone gives the same row",
                max_abs_difference(one_at_a_time, s.ffn.output), 1e-5);
}

// What the whole block must do, and the parameter counts.
void check_block(SelfChecks& check, const Setting& c, const TransformerBlockLesson& r, const BlockParams& params) {
    const Matrix& X = c.seq.X;
    const std::size_t n = rows(X);
    const NormPlacement placement = c.pre ? NormPlacement::pre : NormPlacement::post;
    check.that(fmt::format("the block keeps the shape: {} in, {} out", shape(n, cols(X)),
                           shape(rows(r.s.output), cols(r.s.output))),
               r.s.output.shape() == X.shape());
    const Order backwards = reversal(n);
    const Matrix reversed_out = block_forward(permute_rows(X, backwards), params, placement).output;
    // Reversed, each softmax sums its keys in the other order; the float32 rounding
    // that leaves grows with the output's size (it holds X in pre-norm).
    check.close("without PE, reversing the tokens reverses the output",
                max_abs_difference(reversed_out, permute_rows(r.s.output, backwards)),
                scaled_tolerance(1e-5, r.s.output));
    BlockParams silent = params;  // the sub-layers' last maps set to 0: they add nothing
    silent.attention.W_O.fill(0.0f);
    silent.attention.b_O.fill(0.0f);
    silent.ffn.W_2.fill(0.0f);
    silent.ffn.b_2.fill(0.0f);
    check.close("pre-norm with silent sub-layers is the identity: output = X",
                max_abs_difference(block_forward(X, silent, NormPlacement::pre).output, X), 0.0);
    check.close("post-norm with silent sub-layers is not: output = LN2(LN1(X))",
                max_abs_difference(block_forward(X, silent, NormPlacement::post).output,
                                   layer_norm_tokens(layer_norm_tokens(X, params.ln1), params.ln2)),
                1e-6);
    // math.cpp writes the block out for the lesson; common/math has the same one, unit-tested.
    check.close("this block equals common/math's transformer_block",
                max_abs_difference(r.s.output, transformer_block(X, params, placement).output),
                scaled_tolerance(1e-6, r.s.output));
    const Gpt2Total gpt2{12 * r.gpt2.total()};
    check.that(fmt::format("this block: the formulas count the {} numbers drawn", grouped(r.drawn)),
               r.toy.total() == r.drawn);
    check.that("Transformer Base by the formulas: attention 4·512² = 1 048 576 (no biases, as chapter 07)",
               r.base.attention == 1048576 && r.base.attention == attention_parameters(512, AttentionBiases::none));
    check.that("Transformer Base by the formulas: FFN 2 099 712, 2 LN 2 048",
               r.base.feed_forward == 2099712 && r.base.layer_norms == 2048);
    check.that("Transformer Base by the formulas: 3 150 336 parameters per encoder layer",
               r.base.total() == 3150336);
    check.that("GPT-2 small: attention 2 362 368, MLP 4 722 432, 2 LN 3 072",
               r.gpt2.attention == 2362368 && r.gpt2.feed_forward == 4722432 && r.gpt2.layer_norms == 3072);
    check.that("GPT-2 small: 7 087 872 per block, 85 054 464 in 12 blocks",
               r.gpt2.total() == 7087872 && gpt2.blocks == 85054464);
    check.that("GPT-2 small: 124 439 808 parameters in all (the published 124M)", gpt2.total() == 124439808);
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch12_transformer_block", "Chapter 12 · A whole transformer block");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    Flags flags;
    add_flags(lesson.cli(), flags);

    return lesson.run(argc, argv, [&] {
        const Sequence seq = load_sequence(input, default_sentence);
        const std::size_t d_model = cols(seq.X);
        if (d_model % flags.heads != 0)
            throw InputError(fmt::format("--heads {}: must divide d_model = {}{} (each head gets d_model / h columns)",
                                         flags.heads, d_model, input.empty() ? "" : ", the width of " + input));
        const std::size_t d_ff = 4 * d_model;  // the paper and GPT-2 widen 4 times
        const Setting c{seq, flags.heads, d_model / flags.heads, d_ff, flags.seed, !flags.post_norm,
                        flags.init == "gpt2" ? Init::gpt2 : Init::xavier,
                        flags.activation == "gelu" ? Activation::gelu : Activation::relu};
        Random random(flags.seed);
        const BlockParams params = random_block_params(random, d_model, c.heads, d_ff, c.init, c.activation);
        const TransformerBlockLesson r =
            transformer_block_lesson(seq.X, params, c.pre ? NormPlacement::pre : NormPlacement::post);

        lesson.step("input", "The sequence that enters the block", [&] {
            lesson.say(fmt::format(
                "X holds one token per row, d_model = {} columns. A real model adds positional\n"
                "encodings first (chapter 09); this chapter leaves them out, so you can check\n"
                "that the block treats every position alike.",
                d_model));
            lesson.show("X", seq.X, ShowAs().labels(seq.tokens, seq.dimensions).decimals(1));
        });
        lesson.step("parameters", "The block's parameters", [&] { show_parameters(lesson, c, r); });
        register_the_pass(lesson, c, r);
        lesson.step("placements", "Pre-norm and post-norm, with the same weights",
                    [&] { show_placements(lesson, c, r); });
        lesson.step("shapes", "The shapes through the block", [&] { show_shapes(lesson, c); });
        lesson.step("real-models", "Parameters per block in real models", [&] { show_counts(lesson, c, r); });
        lesson.step("checks", "Self-checks", [&] {
            check_layer_norms(lesson.checks(), r, params);
            check_sublayers(lesson.checks(), c, r, params);
            check_block(lesson.checks(), c, r, params);
        });
        lesson.present();
        // After the steps, so that ./tutorial check names a wrong matrix in the order of the lesson.
        keep_the_rest(lesson, params, r);
    });
}
