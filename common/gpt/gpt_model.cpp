// A small GPT: its parameters and their names, its random start, its forward pass, its loss and
// its backward pass, block by block (gpt_model.hpp gives the formulas). The layers are in
// gpt_layers.cpp, the block's attention in gpt_attention.cpp.
#include "common/gpt/gpt_model.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xbuilder.hpp>

#include "common/token_mixers/token_mixers.hpp"
#include "common/gpt/gpt_attention.hpp"
#include "common/gpt/gpt_layers.hpp"
#include "common/learning/cross_entropy.hpp"
#include "common/numbers/fixed_order_product.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"
#include "common/numbers/threads.hpp"

using namespace fixed_order;
using namespace gpt_layers;

namespace {

void require_config(const GptConfig& c) {
    if (c.vocab == 0 || c.context == 0 || c.layers == 0 || c.heads == 0 || c.d_model == 0)
        throw InputError(describe("a GPT of vocabulary ", c.vocab, ", context ", c.context, ", ", c.layers,
                                  " layers, ", c.heads, " heads, width ", c.d_model, ": every size must be at least 1"));
    if (c.d_model % c.heads != 0)
        throw InputError(describe("d_model ", c.d_model, " does not split into ", c.heads, " heads"));
    const GptAttention& a = c.attention;
    if (a.kv_heads > 0 && c.heads % a.kv_heads != 0)
        throw InputError(describe(c.heads, " heads do not split into ", a.kv_heads, " key–value heads"));
    if ((a.window > 0 || a.sinks > 0 || a.sink_logit || a.top_k > 0) && a.mixer != Mixer::softmax)
        throw InputError("a window, sinks, a sink logit or top-k need softmax attention");
    if (a.top_k > c.context) throw InputError(describe("the top ", a.top_k, " keys in a context of ", c.context));
    if (a.sinks > 0 && a.window == 0) throw InputError("sinks need a window (without one every key is read)");
    if (a.window > c.context)
        throw InputError(describe("a window of ", a.window, " keys in a context of ", c.context));
    if (a.rotary && (c.d_model / c.heads) % 2 != 0)
        throw InputError(describe("RoPE turns pairs of columns: d_h = ", c.d_model / c.heads, " is odd"));
    if (a.latent > 0 && (a.mixer != Mixer::softmax || a.kv_heads > 0 || a.window > 0 || a.sink_logit || a.rotary ||
                         a.top_k > 0))
        throw InputError("MLA (a latent) is chapter 18's softmax attention with its own RoPE key, alone");
    if (a.latent > 0 && (c.d_model / c.heads) % 4 != 0)
        throw InputError(describe("MLA's RoPE key is d_h/2 wide, turned in pairs: d_h = ", c.d_model / c.heads,
                                  " is not a multiple of 4"));
}

// B sequences of one length t ≤ T, every token in the vocabulary; `what` names them.
void require_tokens(const std::vector<Tokens>& batch, const GptConfig& c, const char* what) {
    if (batch.empty() || batch[0].empty()) throw InputError(describe("an empty batch of ", what));
    for (const Tokens& s : batch) {
        if (s.size() != batch[0].size() || s.size() > c.context)
            throw InputError(describe(what, " of ", s.size(), " and ", batch[0].size(),
                                      " tokens (all of one length, at most the context of ", c.context, ")"));
        for (std::size_t t : s)
            if (t >= c.vocab) throw InputError(describe("token ", t, " outside the vocabulary of ", c.vocab));
    }
}

}  // namespace

template <class T>
std::vector<NamedParameter<T>> named_parameters(Gpt<T>& m) {
    std::vector<NamedParameter<T>> p{{"transformer.wte.weight", &m.wte, false}};
    const GptAttention& a = m.config.attention;
    if (has_wpe(m.config)) p.push_back({"transformer.wpe.weight", &m.wpe, false});
    for (std::size_t i = 0; i < m.h.size(); ++i) {
        const std::string at = "transformer.h." + std::to_string(i) + ".";
        GptBlock<T>& b = m.h[i];
        p.push_back({at + "ln_1.weight", &b.ln_1_weight, true});
        p.push_back({at + "ln_1.bias", &b.ln_1_bias, true});
        p.push_back({at + "attn.c_attn.weight", &b.c_attn_weight, false});
        p.push_back({at + "attn.c_attn.bias", &b.c_attn_bias, true});
        if (a.latent > 0) {
            p.push_back({at + "attn.kv_up.weight", &b.kv_up_weight, false});
            p.push_back({at + "attn.kv_up.bias", &b.kv_up_bias, true});
        }
        p.push_back({at + "attn.c_proj.weight", &b.attn_proj_weight, false});
        p.push_back({at + "attn.c_proj.bias", &b.attn_proj_bias, true});
        if (a.sink_logit) p.push_back({at + "attn.sinks", &b.sinks, true});
        if (a.mixer == Mixer::delta || a.mixer == Mixer::gated_delta)
            p.push_back({at + "attn.b_proj.weight", &b.b_proj_weight, false});
        if (a.mixer == Mixer::gated_delta) {
            p.push_back({at + "attn.a_proj.weight", &b.a_proj_weight, false});
            p.push_back({at + "attn.a_proj.bias", &b.a_proj_bias, true});
        }
        p.push_back({at + "ln_2.weight", &b.ln_2_weight, true});
        p.push_back({at + "ln_2.bias", &b.ln_2_bias, true});
        p.push_back({at + "mlp.c_fc.weight", &b.c_fc_weight, false});
        p.push_back({at + "mlp.c_fc.bias", &b.c_fc_bias, true});
        p.push_back({at + "mlp.c_proj.weight", &b.mlp_proj_weight, false});
        p.push_back({at + "mlp.c_proj.bias", &b.mlp_proj_bias, true});
    }
    p.push_back({"transformer.ln_f.weight", &m.ln_f_weight, true});
    p.push_back({"transformer.ln_f.bias", &m.ln_f_bias, true});
    return p;
}

Gpt<float> zero_gpt(const GptConfig& c) {
    require_config(c);
    const std::size_t d = c.d_model;
    Gpt<float> m;
    m.config = c;
    m.wte = Mat<float>::from_shape({c.vocab, d});
    m.wpe = Mat<float>::from_shape({has_wpe(c) ? c.context : 0, d});
    const std::size_t qkv = qkv_width(c);
    for (std::size_t i = 0; i < c.layers; ++i) {
        GptBlock<float> b;
        b.ln_1_weight = b.ln_1_bias = b.ln_2_weight = b.ln_2_bias = Mat<float>::from_shape({1, d});
        b.c_attn_weight = Mat<float>::from_shape({qkv, d}), b.c_attn_bias = Mat<float>::from_shape({1, qkv});
        b.sinks = Mat<float>::from_shape({1, c.heads});
        b.b_proj_weight = b.a_proj_weight = Mat<float>::from_shape({c.heads, d});
        b.a_proj_bias = Mat<float>::from_shape({1, c.heads});
        b.kv_up_weight = Mat<float>::from_shape({2 * d, c.attention.latent});
        b.kv_up_bias = Mat<float>::from_shape({1, 2 * d});
        b.attn_proj_weight = Mat<float>::from_shape({d, d}), b.attn_proj_bias = Mat<float>::from_shape({1, d});
        b.c_fc_weight = Mat<float>::from_shape({4 * d, d}), b.c_fc_bias = Mat<float>::from_shape({1, 4 * d});
        b.mlp_proj_weight = Mat<float>::from_shape({d, 4 * d}), b.mlp_proj_bias = Mat<float>::from_shape({1, d});
        m.h.push_back(b);
    }
    m.ln_f_weight = m.ln_f_bias = Mat<float>::from_shape({1, d});
    for (NamedParameter<float>& p : named_parameters(m)) p.tensor->fill(0.0f);
    return m;
}

Gpt<float> fresh_gpt(const GptConfig& c, std::uint64_t seed) {
    Gpt<float> m = zero_gpt(c);
    // GPT-2's residual projections start smaller: L blocks each add two of them to the stream
    const float std_all = 0.02f, std_proj = 0.02f / std::sqrt(2.0f * float(c.layers));
    Random rng(seed);
    for (NamedParameter<float>& p : named_parameters(m)) {
        const bool is_weight = p.name.size() >= 7 && p.name.compare(p.name.size() - 7, 7, ".weight") == 0;
        const bool is_proj = p.name.find("c_proj.weight") != std::string::npos;
        if (p.name.find("a_proj.bias") != std::string::npos) p.tensor->fill(std::log(19.0f));  // α = σ(ln 19) = 0.95
        else if (p.vector) p.tensor->fill(is_weight ? 1.0f : 0.0f);  // LayerNorm's γ = 1; biases and sinks 0
        else
            for (float& x : *p.tensor) x = (is_proj ? std_proj : std_all) * rng.normal();
    }
    return m;
}

Gpt<double> gpt_in_double(const Gpt<float>& model) {
    Gpt<float> source = model;
    Gpt<double> r;
    r.config = model.config;
    r.h.resize(model.h.size());
    const std::vector<NamedParameter<float>> from = named_parameters(source);
    const std::vector<NamedParameter<double>> to = named_parameters(r);
    for (std::size_t k = 0; k < from.size(); ++k) *to[k].tensor = xt::cast<double>(*from[k].tensor);
    return r;
}

std::size_t parameter_count(const GptConfig& c) {
    const std::size_t d = c.d_model, H = c.heads, qkv = qkv_width(c);
    const GptAttention& a = c.attention;
    const std::size_t gates = a.mixer == Mixer::delta ? H * d : a.mixer == Mixer::gated_delta ? 2 * H * d + H : 0;
    const std::size_t latent = a.latent > 0 ? 2 * d * a.latent + 2 * d : 0;  // kv_up
    const std::size_t block = 2 * d + (qkv * d + qkv) + latent + (d * d + d) + (a.sink_logit ? H : 0) + gates +
                              2 * d + (4 * d * d + 4 * d) + (4 * d * d + d);
    return c.vocab * d + (has_wpe(c) ? c.context * d : 0) + c.layers * block + 2 * d;
}

namespace {

// z_h ← the replacement's rows (one row: every token's), in [z_0 … z_{H−1}] (N × d).
template <class T>
void replace_head(const HeadReplacement<T>& r, std::size_t dh, Mat<T>& heads) {
    const std::size_t N = heads.shape(0), one = r.rows.shape(0) == 1 ? 0 : 1;
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t col = 0; col < dh; ++col) heads(i, r.head * dh + col) = r.rows(i * one, col);
}

template <class T>
void require_replacements(const std::vector<HeadReplacement<T>>& replaced, const GptConfig& c, std::size_t N) {
    const std::size_t dh = c.d_model / c.heads;
    for (const HeadReplacement<T>& r : replaced) {
        if (r.layer >= c.layers || r.head >= c.heads)
            throw InputError(describe("no head ", r.head, " in block ", r.layer, " of a model of ", c.layers,
                                      " blocks of ", c.heads, " heads"));
        if (r.rows.dimension() != 2 || (r.rows.shape(0) != 1 && r.rows.shape(0) != N) || r.rows.shape(1) != dh)
            throw InputError(describe("a head's replacement of ", r.rows.shape(0), " rows of ", r.rows.shape(1),
                                      " numbers: 1 or ", N, " rows of d_h = ", dh));
    }
}

}  // namespace

template <class T>
void gpt_forward_into(const Gpt<T>& m, const std::vector<Tokens>& batch, GptForward<T>& f,
                      const std::vector<HeadReplacement<T>>& replaced) {
    const GptConfig& c = m.config;
    require_tokens(batch, c, "sequences");
    const std::size_t B = batch.size(), n = batch[0].size(), d = c.d_model, N = B * n;
    require_replacements(replaced, c, N);
    f.batch = B, f.length = n;
    f.blocks.resize(c.layers);
    // 1. x₀ = wte[token] + wpe[position] (with RoPE or MLA: wte[token])     (N × d)
    const bool wpe = has_wpe(c);
    Mat<T>& x_0 = f.blocks[0].x;  // the residual stream entering block 0
    reshape_to(x_0, N, d);
    threads::split(N, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r)
            for (std::size_t col = 0; col < d; ++col)
                x_0(r, col) = wpe ? m.wte(batch[r / n][r % n], col) + m.wpe(r % n, col) : m.wte(batch[r / n][r % n], col);
    }, 64);
    if (const std::size_t r = rope_width(c)) rope_table(n, r, f.rope_cos, f.rope_sin);
    // 2. each block: x_mid = x + attention(ln_1(x)); x_next = x_mid + MLP(ln_2(x_mid))
    for (std::size_t l = 0; l < c.layers; ++l) {
        const GptBlock<T>& block = m.h[l];
        GptBlockForward<T>& bf = f.blocks[l];
        layer_norm(bf.x, block.ln_1_weight, block.ln_1_bias, bf.ln_1, bf.ln_1_stats);
        attention_forward(block, c, bf, f.rope_cos, f.rope_sin, B, n);
        for (const HeadReplacement<T>& r : replaced)
            if (r.layer == l) replace_head(r, d / c.heads, bf.heads);
        linear(bf.heads, block.attn_proj_weight, block.attn_proj_bias, f.branch);
        sum_into(bf.x, f.branch, bf.x_mid);
        layer_norm(bf.x_mid, block.ln_2_weight, block.ln_2_bias, bf.ln_2, bf.ln_2_stats);
        linear(bf.ln_2, block.c_fc_weight, block.c_fc_bias, bf.fc);  // (N × 4d)
        gelu(bf.fc, bf.gelu, &bf.fc_cdf);
        linear(bf.gelu, block.mlp_proj_weight, block.mlp_proj_bias, f.branch);
        sum_into(bf.x_mid, f.branch, l + 1 < c.layers ? f.blocks[l + 1].x : f.x_final);
    }
    // 3. logits = ln_f(x) · wteᵀ                                     (N × V)
    layer_norm(f.x_final, m.ln_f_weight, m.ln_f_bias, f.ln_f, f.ln_f_stats);
    reshape_to(f.logits, N, c.vocab);
    product_by_transpose_into(Operand<T>{f.ln_f.data(), d, 1}, m.wte.data(), f.logits.data(), N, d, c.vocab);
}

template <class T>
GptForward<T> gpt_forward(const Gpt<T>& m, const std::vector<Tokens>& batch,
                          const std::vector<HeadReplacement<T>>& replaced) {
    GptForward<T> f;
    gpt_forward_into(m, batch, f, replaced);
    return f;
}

template <class T>
double gpt_loss(const GptForward<T>& f, const std::vector<Tokens>& targets, Mat<T>* d_logits) {
    const std::size_t B = f.batch, n = f.length, V = f.logits.shape(1), N = B * n;
    if (targets.size() != B) throw InputError(describe(targets.size(), " target sequences for ", B, " sequences"));
    for (const Tokens& s : targets) {
        if (s.size() != n) throw InputError(describe("a target sequence of ", s.size(), " tokens for ", n));
        for (std::size_t t : s)
            if (t >= V) throw InputError(describe("target ", t, " outside the vocabulary of ", V));
    }
    // each row's loss (threads take rows), then their sum in order
    std::vector<double> row_loss(N);
    if (d_logits) reshape_to(*d_logits, N, V);
    threads::split(N, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r) row_loss[r] = token_loss(f.logits, r, targets[r / n][r % n]);
        if (d_logits)  // (softmax(row) − onehot(target)) / N
            for (std::size_t r = r0; r < r1; ++r) {
                const T* l = f.logits.data() + r * V;
                T* p = d_logits->data() + r * V;
                const T largest = *std::max_element(l, l + V);
                T sum = 0;
                for (std::size_t v = 0; v < V; ++v) p[v] = std::exp(l[v] - largest);
                for (std::size_t v = 0; v < V; ++v) sum += p[v];
                for (std::size_t v = 0; v < V; ++v) p[v] = p[v] / sum / T(N);
                p[targets[r / n][r % n]] -= T(1) / T(N);
            }
    });
    double loss = 0.0;
    for (const double l : row_loss) loss += l;
    return loss / double(N);
}

template <class T>
void gpt_backward_into(const Gpt<T>& m, const std::vector<Tokens>& batch, const GptForward<T>& f,
                       const Mat<T>& d_logits, Gpt<T>& g, GptBackwardBuffers<T>& w) {
    const GptConfig& c = m.config;
    const std::size_t B = f.batch, n = f.length, d = c.d_model, N = B * n, V = c.vocab;
    g.config = c;
    g.h.resize(m.h.size());
    // 1. logits = ln_f · wteᵀ: dwte = d_logitsᵀ ln_f (V × d), d ln_f = d_logits wte (N × d)
    reshape_to(g.wte, V, d), reshape_to(w.d_ln, N, d), reshape_to(w.dx, N, d);
    product_into(Operand<T>{d_logits.data(), 1, V}, f.ln_f.data(), g.wte.data(), V, N, d);
    product_into(Operand<T>{d_logits.data(), V, 1}, m.wte.data(), w.d_ln.data(), N, V, d);
    w.dx.fill(T(0));  // ∂loss/∂ the residual stream, from the top down
    layer_norm_backward(f.x_final, f.ln_f_stats, m.ln_f_weight, w.d_ln, g.ln_f_weight, g.ln_f_bias, w.dx);
    // 2. each block from the last: what a residual branch takes back adds to dx
    for (std::size_t l = m.h.size(); l-- > 0;) {
        const GptBlock<T>& block = m.h[l];
        const GptBlockForward<T>& bf = f.blocks[l];
        GptBlock<T>& gb = g.h[l];
        // x_out = x_mid + GELU(ln_2(x_mid) c_fcᵀ + b) mlp.c_projᵀ + b
        linear_backward(bf.gelu, block.mlp_proj_weight, w.dx, gb.mlp_proj_weight, gb.mlp_proj_bias, &w.d_fc);
        gelu_backward(bf.fc, bf.fc_cdf, w.d_fc);  // now ∂loss/∂u
        linear_backward(bf.ln_2, block.c_fc_weight, w.d_fc, gb.c_fc_weight, gb.c_fc_bias, &w.d_ln);
        layer_norm_backward(bf.x_mid, bf.ln_2_stats, block.ln_2_weight, w.d_ln, gb.ln_2_weight, gb.ln_2_bias, w.dx);
        // x_mid = x + attention(ln_1(x)) attn.c_projᵀ + b
        linear_backward(bf.heads, block.attn_proj_weight, w.dx, gb.attn_proj_weight, gb.attn_proj_bias, &w.d_heads);
        attention_backward(block, c, bf, f.rope_cos, f.rope_sin, w, gb, B, n);  // → w.d_ln
        layer_norm_backward(bf.x, bf.ln_1_stats, block.ln_1_weight, w.d_ln, gb.ln_1_weight, gb.ln_1_bias, w.dx);
    }
    // 3. x₀ = wte[token] + wpe[position]: each row to its token (after the output layer's share)
    //    and its position, rows in order
    const bool wpe = has_wpe(c);
    reshape_to(g.wpe, wpe ? c.context : 0, d);
    g.wpe.fill(T(0));
    threads::split(d, [&](std::size_t c0, std::size_t c1) {  // threads take columns: each sum in row order
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t col = c0; col < c1; ++col) {
                    g.wte(batch[b][i], col) += w.dx(b * n + i, col);
                    if (wpe) g.wpe(i, col) += w.dx(b * n + i, col);
                }
    }, 16);
}

template <class T>
Gpt<T> gpt_backward(const Gpt<T>& m, const std::vector<Tokens>& batch, const GptForward<T>& f,
                    const Mat<T>& d_logits) {
    Gpt<T> g;
    GptBackwardBuffers<T> buffers;
    gpt_backward_into(m, batch, f, d_logits, g, buffers);
    return g;
}

#define INSTANTIATE(T)                                                                                  \
    template std::vector<NamedParameter<T>> named_parameters(Gpt<T>&);                                  \
    template GptForward<T> gpt_forward(const Gpt<T>&, const std::vector<Tokens>&,                       \
                                       const std::vector<HeadReplacement<T>>&);                         \
    template void gpt_forward_into(const Gpt<T>&, const std::vector<Tokens>&, GptForward<T>&,           \
                                   const std::vector<HeadReplacement<T>>&);                             \
    template double gpt_loss(const GptForward<T>&, const std::vector<Tokens>&, Mat<T>*);                \
    template Gpt<T> gpt_backward(const Gpt<T>&, const std::vector<Tokens>&, const GptForward<T>&,       \
                                 const Mat<T>&);                                                        \
    template void gpt_backward_into(const Gpt<T>&, const std::vector<Tokens>&, const GptForward<T>&,    \
                                    const Mat<T>&, Gpt<T>&, GptBackwardBuffers<T>&);
INSTANTIATE(float)
INSTANTIATE(double)
#undef INSTANTIATE
