#include "chapters/12_transformer_block/math.hpp"

#include <cmath>

#include "common/block/attention_parameters.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/linear.hpp"

// x (n × d_model) → x̂ (n × d_model). Each row is one token, normalised on its own:
// the rows never mix (batch normalisation would mix them, down the columns).
Matrix normalise_tokens(const Matrix& x) {
    const std::size_t n = rows(x), d = cols(x);
    Matrix x_hat = Matrix::from_shape(x.shape());
    // ┌ exercise layer-norm
    for (std::size_t i = 0; i < n; ++i) {
        // pass 1: the row's mean μ
        float mean = 0.0f;
        for (std::size_t j = 0; j < d; ++j) mean += x(i, j);
        mean /= static_cast<float>(d);
        // pass 2: its variance σ², divided by d (not d − 1), around the mean of pass 1:
        // the one-pass E[x²] − E[x]² loses digits in float32 when the mean is large
        float variance = 0.0f;
        for (std::size_t j = 0; j < d; ++j) variance += (x(i, j) - mean) * (x(i, j) - mean);
        variance /= static_cast<float>(d);
        // pass 3: x̂ = (x − μ) / √(σ² + ε); ε keeps a constant row (σ² = 0) finite
        const float inv_std = 1.0f / std::sqrt(variance + layer_norm_epsilon);
        for (std::size_t j = 0; j < d; ++j) x_hat(i, j) = (x(i, j) - mean) * inv_std;
    }
    // └ stub: x_hat.fill(0.0f);
    return x_hat;
}

// x (n × d_model), γ and β (d_model) → (n × d_model)
Matrix layer_norm_tokens(const Matrix& x, const LayerNormParams& p) {
    if (p.gamma.size() != cols(x) || p.beta.size() != cols(x))
        throw InputError(describe("layer norm: γ has ", p.gamma.size(), " and β ", p.beta.size(),
                                  " entries for rows of width ", cols(x)));
    Matrix y = normalise_tokens(x);
    for (std::size_t i = 0; i < rows(y); ++i)
        for (std::size_t j = 0; j < cols(y); ++j) y(i, j) = p.gamma(j) * y(i, j) + p.beta(j);  // γ_j · x̂_ij + β_j
    return y;
}

namespace {

// post-norm (the paper): r = LN1(X + MHA(X)); Y = LN2(r + FFN(r)). X (n × d_model) → every intermediate
BlockSteps post_norm_block(const Matrix& X, const BlockParams& p) {
    // sub-layer 1: attention reads X, and the sum itself is normalised
    BlockSteps s = attention_sublayer(X, p.attention, p.heads);  // Q, K, V, weights, concat, attention
    s.residual1 = X + s.attention;                                // (n × d_model)
    s.ln1 = layer_norm_tokens(s.residual1, p.ln1);                // LN(x + Sublayer(x))
    // sub-layer 2: the FFN on ln1, its sum normalised again: the block's output
    s.ffn = feed_forward(p.ffn, s.ln1);                           // hidden (n × d_ff), output (n × d_model)
    s.residual2 = s.ln1 + s.ffn.output;
    s.ln2 = layer_norm_tokens(s.residual2, p.ln2);
    s.output = s.ln2;
    return s;
}

// pre-norm (GPT-2): r = X + MHA(LN1(X)); Y = r + FFN(LN2(r)). X (n × d_model) → every intermediate
BlockSteps pre_norm_block(const Matrix& X, const BlockParams& p) {
    // ┌ exercise pre-norm
    // sub-layer 1: attention reads a normalised copy, and X itself goes on
    const Matrix ln1 = layer_norm_tokens(X, p.ln1);                // (n × d_model)
    BlockSteps s = attention_sublayer(ln1, p.attention, p.heads);  // Q, K, V, weights, concat, attention
    s.ln1 = ln1;
    s.residual1 = X + s.attention;                                 // (n × d_model) x + Sublayer(LN(x))
    // sub-layer 2: the FFN, wired the same way around the stream
    s.ln2 = layer_norm_tokens(s.residual1, p.ln2);                 // (n × d_model)
    s.ffn = feed_forward(p.ffn, s.ln2);                            // hidden (n × d_ff), output (n × d_model)
    s.residual2 = s.residual1 + s.ffn.output;                      // (n × d_model)
    s.output = s.residual2;
    return s;
    // └ stub: return post_norm_block(X, p);
}

}  // namespace

BlockSteps block_forward(const Matrix& X, const BlockParams& p, NormPlacement placement) {
    return placement == NormPlacement::pre ? pre_norm_block(X, p) : post_norm_block(X, p);
}

RowMoments row_moments(const Matrix& x) {
    RowMoments m{std::vector<double>(rows(x)), std::vector<double>(rows(x))};
    for (std::size_t i = 0; i < rows(x); ++i) {
        double mean = 0.0, variance = 0.0;
        for (std::size_t j = 0; j < cols(x); ++j) mean += x(i, j);
        mean /= double(cols(x));
        for (std::size_t j = 0; j < cols(x); ++j) variance += (x(i, j) - mean) * (x(i, j) - mean);
        m.mean[i] = mean, m.variance[i] = variance / double(cols(x));
    }
    return m;
}

BlockPass block_pass(const Matrix& X, const BlockParams& params, NormPlacement placement) {
    BlockPass r;
    const bool pre = placement == NormPlacement::pre;
    r.params = params;
    r.pre = pre;
    r.s = block_forward(X, params, placement);
    for (std::size_t i = 0; i < params.heads; ++i) r.head_weights.push_back(head(r.s.weights, i));
    r.ln1_input = pre ? X : r.s.residual1;
    r.ln2_input = pre ? r.s.residual1 : r.s.residual2;
    r.x_hat1 = normalise_tokens(r.ln1_input);
    r.x_hat2 = normalise_tokens(r.ln2_input);
    r.ln1_in = row_moments(r.ln1_input), r.ln1_hat = row_moments(r.x_hat1);
    r.ln2_in = row_moments(r.ln2_input), r.ln2_hat = row_moments(r.x_hat2);
    r.other_output = block_forward(X, params, pre ? NormPlacement::post : NormPlacement::pre).output;
    r.of_X = row_moments(X);
    r.of_pre = row_moments(pre ? r.s.output : r.other_output);
    r.of_post = row_moments(pre ? r.other_output : r.s.output);
    for (const float v : r.s.ffn.hidden) r.hidden_zeros += v == 0.0f;
    const AttentionParams& a = params.attention;
    r.b_Q = as_row(a.b_Q), r.b_K = as_row(a.b_K), r.b_V = as_row(a.b_V), r.b_O = as_row(a.b_O);
    r.b_1 = as_row(params.ffn.b_1), r.b_2 = as_row(params.ffn.b_2);
    r.gamma1 = as_row(params.ln1.gamma), r.beta1 = as_row(params.ln1.beta);
    r.gamma2 = as_row(params.ln2.gamma), r.beta2 = as_row(params.ln2.beta);
    r.drawn = parameter_count(params);
    r.toy = count_block_parameters(cols(X), cols(params.ffn.W_1));
    // The paper's attention has no biases (as chapter 07 counts it); its FFN has them.
    r.base = count_block_parameters(512, 2048, AttentionBiases::none);
    r.gpt2 = count_block_parameters(768, 3072);
    r.gpt2_model = {12 * r.gpt2.total()};
    return r;
}

std::vector<ParameterGroup> parameter_groups(std::size_t d_model, std::size_t d_ff, Init init) {
    const std::string matrix = init == Init::gpt2 ? "N(0, 0.02²)" : "N(0, 2/(fan_in + fan_out))", small = "N(0, 0.1²)";
    return {{"W_Q", d_model, d_model, matrix},    {"W_K", d_model, d_model, matrix},
            {"W_V", d_model, d_model, matrix},    {"W_O", d_model, d_model, matrix},
            {"b_Q, b_K, b_V, b_O", 1, 4 * d_model, small},
            {"γ1, γ2", 1, 2 * d_model, "1 + " + small},
            {"β1, β2", 1, 2 * d_model, small},
            {"W_1", d_model, d_ff, matrix},       {"b_1", 1, d_ff, small},
            {"W_2", d_ff, d_model, matrix},       {"b_2", 1, d_model, small}};
}

std::string activated(Activation activation, const std::string& z) {
    return activation == Activation::relu ? "max(0, " + z + ")" : "GELU(" + z + ")";
}

std::vector<ShapeRow> BlockPass::shapes() const {
    const auto row = [](const std::string& name, const std::string& formula, const std::string& shape,
                        const Matrix& m) { return ShapeRow{name, formula, shape, rows(m), cols(m)}; };
    const std::string row_shape = "(n × d_model)";
    return {row("X", "input", row_shape, s.residual1),  // X + attention: X's shape
            row("ln1", pre ? "LN1(X)" : "LN1(residual1)", row_shape, s.ln1),
            row("Q, K, V", "x · W + b", row_shape, s.Q),
            {"Q_i, K_i, V_i", "head i's columns", "(n × d_k)", rows(s.Q), cols(s.Q) / params.heads},
            row("weights_i", "softmax(Q_i · K_iᵀ / √d_k)", "(n × n)", head_weights[0]),
            row("concat", "[weights_i · V_i]", "(n × h·d_k)", s.concat),
            row("attention", "concat · W_O + b_O", row_shape, s.attention),
            row("residual1", "X + attention", row_shape, s.residual1),
            row("ln2", pre ? "LN2(residual1)" : "LN2(residual2)", row_shape, s.ln2),
            row("hidden", activated(params.ffn.activation, "x · W_1 + b_1"), "(n × d_ff)", s.ffn.hidden),
            row("ffn", "hidden · W_2 + b_2", row_shape, s.ffn.output),
            row("residual2", pre ? "residual1 + ffn" : "ln1 + ffn", row_shape, s.residual2),
            row("output", pre ? "residual2" : "ln2", row_shape, s.output)};
}

MatrixList BlockPass::matrices() const {
    const auto layer_norm = [](int which, const std::string& in) {
        const std::string w = std::to_string(which);
        return "γ" + w + " ⊙ (" + in + " − μ) / √(σ² + ε) + β" + w;
    };
    const std::string d_k = std::to_string(cols(s.Q) / params.heads);
    MatrixList attention;  // the attention sub-layer: each head's weights, the heads side by side, W_O
    for (std::size_t i = 0; i < head_weights.size(); ++i) {
        const std::string k = std::to_string(i + 1);
        attention.push_back(ListedMatrix("weights_" + k, head_weights[i],
                                         "softmax(Q_" + k + " · K_" + k + "ᵀ / √" + d_k + ")", "tokens", "tokens",
                                         MatrixKind::attention_weights)
                                .in_family("head_weights", static_cast<int>(i)));
    }
    attention.push_back({"concat", s.concat, "[weights_1 · V_1, …, weights_h · V_h]", "tokens", "heads' columns"});
    attention.push_back({"attention", s.attention, "concat · W_O + b_O", "tokens", "dimensions"});
    const ListedMatrix residual1{"residual1", s.residual1, "X + attention", "tokens", "dimensions"};
    const MatrixList ffn = {
        {"hidden", s.ffn.hidden, activated(params.ffn.activation, pre ? "ln2 · W_1 + b_1" : "ln1 · W_1 + b_1"),
         "tokens", "hidden units"},
        {"ffn", s.ffn.output, "hidden · W_2 + b_2", "tokens", "dimensions"}};
    MatrixList list;
    const auto add = [&list](const MatrixList& more) { list.insert(list.end(), more.begin(), more.end()); };
    if (pre) {  // r = X + MHA(LN1(X)); Y = r + FFN(LN2(r))
        add({{"ln1", s.ln1, layer_norm(1, "X"), "tokens", "dimensions"}});
        add(attention);
        add({residual1, {"ln2", s.ln2, layer_norm(2, "residual1"), "tokens", "dimensions"}});
        add(ffn);
        add({{"residual2", s.residual2, "residual1 + ffn   (the block's output)", "tokens", "dimensions"},
             {"output_post_norm", other_output, "LN2(r + FFN(r)), r = LN1(X + MHA(X))", "tokens", "dimensions"}});
    } else {  // r = LN1(X + MHA(X)); Y = LN2(r + FFN(r))
        add(attention);
        add({residual1, {"ln1", s.ln1, layer_norm(1, "residual1"), "tokens", "dimensions"}});
        add(ffn);
        add({{"residual2", s.residual2, "ln1 + ffn", "tokens", "dimensions"},
             {"ln2", s.ln2, layer_norm(2, "residual2"), "tokens", "dimensions"},
             {"output_pre_norm", other_output, "r + FFN(LN2(r)), r = X + MHA(LN1(X))", "tokens", "dimensions"}});
    }
    // What no step prints: the parameters, x̂ of both norms, the projections, the FFN
    // before its non-linearity and the output.
    const AttentionParams& a = params.attention;
    add({{"W_Q", a.W_Q, "(d_model × d_model)"}, {"W_K", a.W_K, "(d_model × d_model)"},
         {"W_V", a.W_V, "(d_model × d_model)"}, {"W_O", a.W_O, "(d_model × d_model)"},
         {"W_1", params.ffn.W_1, "(d_model × d_ff)"}, {"W_2", params.ffn.W_2, "(d_ff × d_model)"},
         {"b_Q", b_Q, ""}, {"b_K", b_K, ""}, {"b_V", b_V, ""}, {"b_O", b_O, ""}, {"b_1", b_1, ""}, {"b_2", b_2, ""},
         {"gamma1", gamma1, ""}, {"beta1", beta1, ""}, {"gamma2", gamma2, ""}, {"beta2", beta2, ""},
         {"x_hat1", x_hat1, "(ln1's input − μ) / √(σ² + ε)", "tokens", "dimensions"},
         {"Q", s.Q, "x · W_Q + b_Q", "tokens", "dimensions"},
         {"K", s.K, "x · W_K + b_K", "tokens", "dimensions"},
         {"V", s.V, "x · W_V + b_V", "tokens", "dimensions"},
         {"x_hat2", x_hat2, "(ln2's input − μ) / √(σ² + ε)", "tokens", "dimensions"},
         {"pre_activation", s.ffn.pre_activation, "x · W_1 + b_1", "tokens", "hidden units"},
         {"output", s.output, pre ? "residual2" : "ln2", "tokens", "dimensions"}});
    return list;
}
