// A GPT block's attention and its backward pass, for every variant of GptAttention
// (gpt_attention.hpp gives the formulas): the projections, each (head, sequence) through its
// token mixer (token_mixers.hpp), RoPE's turn, the key–value heads' sums and the gates.
#include "common/gpt/gpt_attention.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xbuilder.hpp>

#include "common/token_mixers/token_mixers.hpp"
#include "common/gpt/gpt_layers.hpp"
#include "common/numbers/threads.hpp"

using namespace gpt_layers;

std::size_t kv_heads(const GptConfig& c) { return c.attention.kv_heads == 0 ? c.heads : c.attention.kv_heads; }

std::size_t rope_width(const GptConfig& c) {
    const std::size_t dh = c.d_model / c.heads;
    return c.attention.rotary ? dh : c.attention.latent > 0 ? dh / 2 : 0;
}

bool has_wpe(const GptConfig& c) { return rope_width(c) == 0; }

std::size_t qkv_width(const GptConfig& c) {
    if (c.attention.latent > 0) return c.d_model + (c.heads + 1) * rope_width(c) + c.attention.latent;
    return c.d_model + 2 * kv_heads(c) * (c.d_model / c.heads);
}

std::string attention_text(const GptAttention& a) {
    if (a.mixer == Mixer::softmax && a.kv_heads == 0 && a.window == 0 && a.sinks == 0 && !a.sink_logit && !a.rotary &&
        a.latent == 0 && a.top_k == 0)
        return "";
    const char* mixers[] = {"softmax", "linear", "delta", "gated_delta"};
    return std::string("mixer ") + mixers[int(a.mixer)] + " kv_heads " + std::to_string(a.kv_heads) + " window " +
           std::to_string(a.window) + " sinks " + std::to_string(a.sinks) + " sink_logit " +
           std::to_string(int(a.sink_logit)) + " rotary " + std::to_string(int(a.rotary)) +
           (a.latent > 0 ? " latent " + std::to_string(a.latent) : "") +
           (a.top_k > 0 ? " top_k " + std::to_string(a.top_k) : "");
}

template <class T>
void rope_table(std::size_t n, std::size_t r, Mat<T>& cos_table, Mat<T>& sin_table) {
    reshape_to(cos_table, n, r / 2), reshape_to(sin_table, n, r / 2);
    for (std::size_t p = 0; p < r / 2; ++p) {
        const double theta = std::pow(10000.0, -2.0 * double(p) / double(r));  // θ_p
        for (std::size_t i = 0; i < n; ++i)
            cos_table(i, p) = T(std::cos(double(i) * theta)), sin_table(i, p) = T(std::sin(double(i) * theta));
    }
}

namespace {

bool is_delta(Mixer m) { return m == Mixer::delta || m == Mixer::gated_delta; }

// Rows [r0, r0 + n) of the w columns from `from_c0` of `from` into the same rows of `to`, from
// its column to_c0.
template <class T>
void copy_columns(const Mat<T>& from, std::size_t from_c0, Mat<T>& to, std::size_t to_c0, std::size_t w,
                  std::size_t r0, std::size_t n) {
    const std::size_t from_width = from.shape(1), to_width = to.shape(1);
    for (std::size_t r = r0; r < r0 + n; ++r)
        std::copy_n(from.data() + r * from_width + from_c0, w, to.data() + r * to_width + to_c0);
}
// The columns [c0, c0 + w) of m into part (· × w), every column of part; or part back into them.
template <class T>
void take_columns(const Mat<T>& m, std::size_t c0, Mat<T>& part, std::size_t r0, std::size_t n) {
    copy_columns(m, c0, part, 0, part.shape(1), r0, n);
}
template <class T>
void put_columns(const Mat<T>& part, Mat<T>& m, std::size_t c0, std::size_t r0, std::size_t n) {
    copy_columns(part, 0, m, c0, part.shape(1), r0, n);
}

// Rows [r0, r0 + n) of the columns [c0, c0 + w) of M: row r0 + i turned by i·θ_p, pair by pair,
// or back by −i·θ_p (the transpose of the turn: what its backward pass applies to a gradient).
template <class T>
void turn_columns(Mat<T>& M, std::size_t c0, std::size_t w, const Mat<T>& cos_t, const Mat<T>& sin_t, std::size_t r0,
                  std::size_t n, bool back) {
    const std::size_t width = M.shape(1), pairs = w / 2;
    for (std::size_t i = 0; i < n; ++i) {
        T* m = M.data() + (r0 + i) * width + c0;
        const T *c = cos_t.data() + i * pairs, *s = sin_t.data() + i * pairs;
        for (std::size_t p = 0; p < pairs; ++p) {
            const T a = m[2 * p], b = m[2 * p + 1], sn = back ? -s[p] : s[p];
            m[2 * p] = a * c[p] - b * sn;
            m[2 * p + 1] = a * sn + b * c[p];
        }
    }
}

// Every head's gate σ(a · Wᵀ + b) (a (N × d), W (H × d)), head h's column into gates[h] (N × 1).
template <class T>
void gate_columns(const Mat<T>& a, const Mat<T>& W, const Mat<T>* bias, std::vector<Mat<T>>& gates) {
    const std::size_t N = a.shape(0), H = W.shape(0);
    const Mat<T> no_bias = xt::zeros<T>({std::size_t(1), H});
    Mat<T> s;
    linear(a, W, bias ? *bias : no_bias, s);  // (N × H)
    gates.resize(H);
    for (std::size_t h = 0; h < H; ++h) {
        reshape_to(gates[h], N, 1);
        for (std::size_t r = 0; r < N; ++r) gates[h](r, 0) = T(1) / (T(1) + std::exp(-s(r, h)));
    }
}

// A gate's backward pass: ds = dg ⊙ g(1 − g) (N × H) through a · Wᵀ + b: dW, db written, d a added.
template <class T>
void gate_backward(const Mat<T>& a, const Mat<T>& W, const std::vector<Mat<T>>& gates, const std::vector<Mat<T>>& d_gates,
                   Mat<T>& ds, Mat<T>& dW, Mat<T>& db, Mat<T>& d_a) {
    const std::size_t N = a.shape(0), H = W.shape(0);
    reshape_to(ds, N, H);
    for (std::size_t r = 0; r < N; ++r)
        for (std::size_t h = 0; h < H; ++h) {
            const T g = gates[h](r, 0);
            ds(r, h) = d_gates[h](r, 0) * g * (T(1) - g);
        }
    linear_backward(a, W, ds, dW, db, static_cast<Mat<T>*>(nullptr), &d_a);
}

template <class T>
void reshape_all(std::vector<Mat<T>>& ms, std::size_t count, std::size_t rows, std::size_t cols) {
    ms.resize(count);
    for (Mat<T>& m : ms) reshape_to(m, rows, cols);
}

}  // namespace

template <class T>
void attention_forward(const GptBlock<T>& block, const GptConfig& c, GptBlockForward<T>& f, const Mat<T>& rope_cos,
                       const Mat<T>& rope_sin, std::size_t B, std::size_t n) {
    const GptAttention& at = c.attention;
    const std::size_t H = c.heads, N = B * n, d = c.d_model, dh = d / H, g = kv_heads(c), group = H / g;
    const std::size_t r = at.latent > 0 ? rope_width(c) : 0;  // MLA's RoPE part of q and k
    const bool delta = is_delta(at.mixer), gated = at.mixer == Mixer::gated_delta;
    // 1. [q k v] = ln_1 · c_attnᵀ + b                               (N × d + 2·g·d_h)
    //    MLA: [q q_R c_KV k_R] = ln_1 · c_attnᵀ + b, then [k v] = c_KV · kv_upᵀ + b     (N × 2d)
    linear(f.ln_1, block.c_attn_weight, block.c_attn_bias, f.qkv);
    if (at.latent > 0) {
        reshape_to(f.latent, N, at.latent);
        take_columns(f.qkv, d + H * r, f.latent, 0, N);
        linear(f.latent, block.kv_up_weight, block.kv_up_bias, f.latent_kv);
    }
    reshape_to(f.heads, N, d);
    reshape_all(f.q, H, N, dh + r), reshape_all(f.k, H, N, dh + r), reshape_all(f.v, H, N, dh);
    reshape_all(f.z, H, N, dh);
    if (delta) f.weights.assign(H, Mat<T>());  // the state is not unrolled
    else reshape_all(f.weights, H, N, n);
    if (at.mixer == Mixer::linear) reshape_all(f.phi_q, H, N, dh), reshape_all(f.phi_k, H, N, dh);
    // 2. the variants' numbers: the gates of every token (N × 1 per head), each head's sink
    if (delta) {
        gate_columns(f.ln_1, block.b_proj_weight, static_cast<const Mat<T>*>(nullptr), f.beta);
        if (gated) gate_columns(f.ln_1, block.a_proj_weight, &block.a_proj_bias, f.alpha);
        reshape_all(f.states, H, N, dh * dh);
    }
    if (at.sink_logit) {
        reshape_all(f.sink, H, 1, 1), reshape_all(f.sink_share, H, N, 1);
        for (std::size_t h = 0; h < H; ++h) f.sink[h](0, 0) = block.sinks(0, h);
    }
    // 3. each (head, sequence): its q, k, v (turned with RoPE), its mixer, its z into [z_0 … z_{H−1}]
    threads::split(H * B, [&](std::size_t u0, std::size_t u1) {
        for (std::size_t u = u0; u < u1; ++u) {
            const std::size_t h = u / B, r0 = u % B * n, j = h / group;  // j: head h's key–value head
            if (at.latent > 0) {  // q_h = [q_h | RoPE(q_R,h)], k_h = [k_h | RoPE(k_R)], v_h
                copy_columns(f.qkv, h * dh, f.q[h], 0, dh, r0, n), copy_columns(f.qkv, d + h * r, f.q[h], dh, r, r0, n);
                copy_columns(f.latent_kv, h * dh, f.k[h], 0, dh, r0, n);
                copy_columns(f.qkv, d + H * r + at.latent, f.k[h], dh, r, r0, n);
                copy_columns(f.latent_kv, d + h * dh, f.v[h], 0, dh, r0, n);
                turn_columns(f.q[h], dh, r, rope_cos, rope_sin, r0, n, false);
                turn_columns(f.k[h], dh, r, rope_cos, rope_sin, r0, n, false);
            } else {
                take_columns(f.qkv, h * dh, f.q[h], r0, n), take_columns(f.qkv, d + j * dh, f.k[h], r0, n);
                take_columns(f.qkv, d + g * dh + j * dh, f.v[h], r0, n);
            }
            if (at.rotary) {
                turn_columns(f.q[h], 0, dh, rope_cos, rope_sin, r0, n, false);
                turn_columns(f.k[h], 0, dh, rope_cos, rope_sin, r0, n, false);
            }
            if (at.mixer == Mixer::softmax) {
                const token_mixers::KeyChoice<T> choice{at.window, at.sinks, at.top_k, nullptr,
                                                        at.sink_logit ? &f.sink[h] : nullptr,
                                                        at.sink_logit ? &f.sink_share[h] : nullptr};
                token_mixers::attend(f.q[h], f.k[h], f.v[h], f.weights[h], f.z[h], r0, n, choice);
            } else if (at.mixer == Mixer::linear) {
                token_mixers::feature_rows(f.q[h], f.phi_q[h], r0, n);
                token_mixers::feature_rows(f.k[h], f.phi_k[h], r0, n);
                token_mixers::linear_attend(f.phi_q[h], f.phi_k[h], f.v[h], f.weights[h], f.z[h], r0, n);
            } else {
                token_mixers::delta_rule(f.q[h], f.k[h], f.v[h], f.beta[h], gated ? &f.alpha[h] : nullptr, f.states[h],
                                         static_cast<Mat<T>*>(nullptr), f.z[h], r0, n);
            }
            put_columns(f.z[h], f.heads, h * dh, r0, n);
        }
    });
}

template <class T>
void attention_backward(const GptBlock<T>& block, const GptConfig& c, const GptBlockForward<T>& f,
                        const Mat<T>& rope_cos, const Mat<T>& rope_sin, GptBackwardBuffers<T>& w, GptBlock<T>& gb,
                        std::size_t B, std::size_t n) {
    const GptAttention& at = c.attention;
    const std::size_t H = c.heads, N = B * n, d = c.d_model, dh = d / H, g = kv_heads(c), group = H / g;
    const std::size_t r = at.latent > 0 ? rope_width(c) : 0;
    const bool delta = is_delta(at.mixer), gated = at.mixer == Mixer::gated_delta;
    reshape_to(w.d_qkv, N, qkv_width(c));
    reshape_all(w.dz, H, N, dh), reshape_all(w.dq, H, N, dh + r), reshape_all(w.dk, H, N, dh + r);
    reshape_all(w.dv, H, N, dh);
    if (delta) reshape_all(w.d_beta, H, N, 1), reshape_all(w.d_alpha, H, N, 1);
    if (at.sink_logit) w.d_sinks.assign(H * B, T(0));
    if (at.latent > 0) reshape_to(w.d_latent_kv, N, 2 * d);
    // 1. each (head, sequence): dz_h → dq_h, dk_h, dv_h (and dβ, dα, its share of ds_h), turned back with RoPE
    threads::split(H * B, [&](std::size_t u0, std::size_t u1) {
        for (std::size_t u = u0; u < u1; ++u) {
            const std::size_t h = u / B, r0 = u % B * n;
            take_columns(w.d_heads, h * dh, w.dz[h], r0, n);
            if (at.mixer == Mixer::softmax)
                token_mixers::attend_backward(f.q[h], f.k[h], f.v[h], f.weights[h], w.dz[h], w.dq[h], w.dk[h], w.dv[h],
                                              r0, n, at.sink_logit ? &f.sink_share[h] : nullptr,
                                              at.sink_logit ? &w.d_sinks[u] : nullptr);
            else if (at.mixer == Mixer::linear)
                token_mixers::linear_attend_backward(f.q[h], f.k[h], f.phi_q[h], f.phi_k[h], f.v[h], f.weights[h],
                                                     w.dz[h], w.dq[h], w.dk[h], w.dv[h], r0, n);
            else
                token_mixers::delta_rule_backward(f.q[h], f.k[h], f.v[h], f.beta[h], gated ? &f.alpha[h] : nullptr,
                                                  f.states[h], w.dz[h], w.dq[h], w.dk[h], w.dv[h], w.d_beta[h],
                                                  gated ? &w.d_alpha[h] : nullptr, r0, n);
            if (at.rotary) {
                turn_columns(w.dq[h], 0, dh, rope_cos, rope_sin, r0, n, true);
                turn_columns(w.dk[h], 0, dh, rope_cos, rope_sin, r0, n, true);
            }
            if (at.latent > 0) {  // dq_h, dq_R,h into d_qkv; dk_h, dv_h into d[k v]
                turn_columns(w.dq[h], dh, r, rope_cos, rope_sin, r0, n, true);
                turn_columns(w.dk[h], dh, r, rope_cos, rope_sin, r0, n, true);
                copy_columns(w.dq[h], 0, w.d_qkv, h * dh, dh, r0, n), copy_columns(w.dq[h], dh, w.d_qkv, d + h * r, r, r0, n);
                copy_columns(w.dk[h], 0, w.d_latent_kv, h * dh, dh, r0, n);
                copy_columns(w.dv[h], 0, w.d_latent_kv, d + h * dh, dh, r0, n);
            } else {
                put_columns(w.dq[h], w.d_qkv, h * dh, r0, n);
            }
        }
    });
    // 2. each key–value head's dk, dv: the sum of its heads', in head order (one head with MHA: a copy);
    //    MLA: the RoPE key's dk_R, the sum of every head's RoPE part, in head order
    if (at.latent > 0) {
        threads::split(B, [&](std::size_t b0, std::size_t b1) {
            for (std::size_t row = b0 * n; row < b1 * n; ++row) {
                T* dk = w.d_qkv.data() + row * w.d_qkv.shape(1) + d + H * r + at.latent;
                std::copy_n(w.dk[0].data() + row * (dh + r) + dh, r, dk);
                for (std::size_t h = 1; h < H; ++h)
                    for (std::size_t col = 0; col < r; ++col) dk[col] += w.dk[h](row, dh + col);
            }
        });
    } else {
        threads::split(g * B, [&](std::size_t u0, std::size_t u1) {
            for (std::size_t u = u0; u < u1; ++u) {
                const std::size_t j = u / B, r0 = u % B * n, first = j * group;
                for (std::size_t row = r0; row < r0 + n; ++row) {
                    T* dk = w.d_qkv.data() + row * w.d_qkv.shape(1) + d + j * dh;
                    T* dv = dk + g * dh;
                    std::copy_n(w.dk[first].data() + row * dh, dh, dk), std::copy_n(w.dv[first].data() + row * dh, dh, dv);
                    for (std::size_t h = first + 1; h < first + group; ++h)
                        for (std::size_t col = 0; col < dh; ++col)
                            dk[col] += w.dk[h](row, col), dv[col] += w.dv[h](row, col);
                }
            }
        });
    }
    // 3. MLA: through kv_up to dc_KV, its columns of d_qkv
    if (at.latent > 0) {
        linear_backward(f.latent, block.kv_up_weight, w.d_latent_kv, gb.kv_up_weight, gb.kv_up_bias, &w.d_latent);
        put_columns(w.d_latent, w.d_qkv, d + H * r, 0, N);
    }
    // 4. through c_attn, then each gate adds its share to d ln_1; ds_h = Σ over the sequences in order
    linear_backward(f.ln_1, block.c_attn_weight, w.d_qkv, gb.c_attn_weight, gb.c_attn_bias, &w.d_ln);
    if (at.sink_logit) {
        reshape_to(gb.sinks, 1, H);
        for (std::size_t h = 0; h < H; ++h) {
            T sum = 0;
            for (std::size_t b = 0; b < B; ++b) sum += w.d_sinks[h * B + b];
            gb.sinks(0, h) = sum;
        }
    }
    if (delta) {
        Mat<T> no_bias;  // b_proj has none: the gradient linear_backward gives it is dropped
        gate_backward(f.ln_1, block.b_proj_weight, f.beta, w.d_beta, w.d_gates, gb.b_proj_weight, no_bias, w.d_ln);
        if (gated)
            gate_backward(f.ln_1, block.a_proj_weight, f.alpha, w.d_alpha, w.d_gates, gb.a_proj_weight, gb.a_proj_bias,
                          w.d_ln);
    }
}

#define INSTANTIATE(T)                                                                                            \
    template void rope_table(std::size_t, std::size_t, Mat<T>&, Mat<T>&);                                         \
    template void attention_forward(const GptBlock<T>&, const GptConfig&, GptBlockForward<T>&, const Mat<T>&,     \
                                    const Mat<T>&, std::size_t, std::size_t);                                     \
    template void attention_backward(const GptBlock<T>&, const GptConfig&, const GptBlockForward<T>&,             \
                                     const Mat<T>&, const Mat<T>&, GptBackwardBuffers<T>&, GptBlock<T>&,          \
                                     std::size_t, std::size_t);
INSTANTIATE(float)
INSTANTIATE(double)
#undef INSTANTIATE
