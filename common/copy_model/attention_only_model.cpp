// The attention-only model: its random start, its forward pass, its loss and its backward
// pass, layer by layer and head by head (attention_only_model.hpp gives the formulas). The heads'
// token mixers are in mixer_*.cpp (token_mixers.hpp), the products in fixed_order_product.hpp.
#include "common/copy_model/attention_only_model.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xbuilder.hpp>

#include "common/token_mixers/token_mixers.hpp"
#include "common/numbers/fixed_order_product.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"

using namespace fixed_order;
using namespace token_mixers;

namespace {

// x += a, or x += (a + b) + c: the sums of xtensor's x += a + b + c, entry by entry in that order,
// on raw numbers (the compiler runs them as vectors; xtensor's expressions took 4 % of training).
template <class T>
void add_into(Mat<T>& x, const Mat<T>& a) {
    T* x_ = x.data();
    const T* a_ = a.data();
    for (std::size_t i = 0; i < x.size(); ++i) x_[i] += a_[i];
}
template <class T>
void add_into(Mat<T>& x, const Mat<T>& a, const Mat<T>& b, const Mat<T>& c) {
    T* x_ = x.data();
    const T *a_ = a.data(), *b_ = b.data(), *c_ = c.data();
    for (std::size_t i = 0; i < x.size(); ++i) x_[i] += (a_[i] + b_[i]) + c_[i];
}

bool is_ablated(const std::vector<bool>& ablated, std::size_t k) { return k < ablated.size() && ablated[k]; }

void require_batch(const std::vector<Tokens>& batch, std::size_t vocabulary, std::size_t positions) {
    if (batch.empty()) throw InputError("an empty batch of sequences");
    for (const Tokens& s : batch) {
        if (s.size() != batch[0].size() || s.size() > positions)
            throw InputError(describe("a sequence of ", s.size(), " tokens (the model has ", positions, " positions)"));
        for (std::size_t t : s)
            if (t >= vocabulary) throw InputError(describe("token ", t, " outside the vocabulary of ", vocabulary));
    }
}

// The variant fits the model: the softmax mixer's variants on it only, g dividing h, and
// either shared or latent keys.
void require_variant(const Variant& v, Mixer mixer, std::size_t heads) {
    const bool choice = v.window > 0 || v.sinks > 0 || v.top_k > 0 || v.sink_logit;
    if (choice && mixer != Mixer::softmax)
        throw InputError("a window, sinks, top-k or a sink logit need the softmax mixer");
    if (v.kv_heads > 0 && heads % v.kv_heads != 0)
        throw InputError(describe(heads, " heads do not split into ", v.kv_heads, " key–value groups"));
    if (v.latent > 0 && v.kv_heads > 0 && v.kv_heads != heads)
        throw InputError("latent keys and values with shared key–value heads: choose one");
}

// The model's numbers fit its variant: a sink per head for a sink logit, an indexer per head for top-k.
template <class T>
void require_variant_numbers(const AttentionOnlyModel<T>& m) {
    const Variant& var = m.variant;
    require_variant(var, m.mixer, m.heads);
    const std::size_t head_count = m.layers * m.heads;
    if ((var.sink_logit && m.sink.size() != head_count) || (var.top_k > 0 && m.W_IQ.size() != head_count))
        throw InputError("a sink logit or top-k without their numbers (a sink per head, an indexer per head)");
}

bool is_delta(Mixer mixer) { return mixer == Mixer::delta || mixer == Mixer::gated_delta; }

// X₀ = E[tokens] + P (B·n × d).
template <class T>
Mat<T> embed(const AttentionOnlyModel<T>& m, const std::vector<Tokens>& batch) {
    const std::size_t B = batch.size(), n = batch[0].size(), d = cols(m.E);
    Mat<T> X = Mat<T>::from_shape({B * n, d});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < d; ++c) X(b * n + i, c) = m.E(batch[b][i], c) + m.P(i, c);
    return X;
}

// Head k's queries, keys and values (B·n × d_h) from X_l: the keys and values from the latent,
// from the group's first head (computed once), or from the head's own W_K, W_V.
template <class T>
void project(const AttentionOnlyModel<T>& m, ModelForward<T>& f, std::size_t l, std::size_t k) {
    const std::size_t kv = kv_index(m, k);
    f.Q.push_back(mm(f.X[l], m.W_Q[k]));
    if (m.variant.latent > 0) {  // K_h = c W_UK^h, V_h = c W_UV^h
        f.K.push_back(mm(f.latent[l], m.W_UK[k]));
        f.V.push_back(mm(f.latent[l], m.W_UV[k]));
    } else if (k % m.heads > 0 && kv_index(m, k - 1) == kv) {  // the group's keys and values, once
        f.K.push_back(f.K[k - 1]), f.V.push_back(f.V[k - 1]);
    } else {
        f.K.push_back(mm(f.X[l], m.W_K[kv]));
        f.V.push_back(mm(f.X[l], m.W_V[kv]));
    }
}

// Head k mixes the tokens of each sequence on its own, by the model's mixer: A (for the delta
// rules the unrolled M, only when `fill` asks for everything) and Z (B·n × d_h), with what the
// backward pass reads: the indexer's scores and the sink's share; φ(Q), φ(K); β, α, the states.
template <class T>
void mix(const AttentionOnlyModel<T>& m, ModelForward<T>& f, std::size_t l, std::size_t k, Fill fill) {
    const std::size_t B = f.batch, n = f.length;
    const bool delta = is_delta(m.mixer), gated = m.mixer == Mixer::gated_delta;
    const Variant& var = m.variant;
    KeyChoice<T> choice{var.window, var.sinks, var.top_k, nullptr, nullptr, nullptr};
    if (var.top_k > 0) {  // the indexer's scores q^I k^Iᵀ, q^I = X_l W_IQ, k^I = X_l W_IK
        f.index_scores.push_back(indexer_scores(mm(f.X[l], m.W_IQ[k]), mm(f.X[l], m.W_IK[k]), B, n));
        choice.index_scores = &f.index_scores[k];
    }
    if (var.sink_logit) {
        f.sink_share.push_back(Mat<T>::from_shape({B * n, std::size_t(1)}));
        choice.sink = &m.sink[k], choice.sink_share = &f.sink_share[k];
    }
    const bool unrolled = delta && fill == Fill::everything;  // the delta rule's M, to show
    f.weights.push_back(delta && !unrolled ? Mat<T>() : Mat<T>::from_shape({B * n, n}));
    f.Z.push_back(Mat<T>::from_shape({B * n, cols(m.W_Q[k])}));
    const std::size_t dh = cols(m.W_Q[k]);
    if (m.mixer == Mixer::linear) f.phi_Q.push_back(features(f.Q[k])), f.phi_K.push_back(features(f.K[k]));
    if (delta) {  // the gates of every token: β (B·n × 1), α (gated)
        f.beta.push_back(gate(f.X[l], m.W_beta[k], T(0)));
        if (gated) f.alpha.push_back(gate(f.X[l], m.W_alpha[k], m.b_alpha[k](0, 0)));
        f.states.push_back(Mat<T>::from_shape({B * n, dh * dh}));
    }
    for (std::size_t b = 0; b < B; ++b) {
        if (m.mixer == Mixer::softmax) attend(f.Q[k], f.K[k], f.V[k], f.weights[k], f.Z[k], b * n, n, choice);
        if (m.mixer == Mixer::linear) linear_attend(f.phi_Q[k], f.phi_K[k], f.V[k], f.weights[k], f.Z[k], b * n, n);
        if (delta)
            delta_rule(f.Q[k], f.K[k], f.V[k], f.beta[k], gated ? &f.alpha[k] : nullptr, f.states[k],
                       unrolled ? &f.weights[k] : nullptr, f.Z[k], b * n, n);
    }
}

// softmax of each row of the logits (B·n × V), on raw rows: the division runs as vectors.
template <class T>
Mat<T> softmax_rows(const Mat<T>& logits) {
    Mat<T> probs = logits;
    const std::size_t V = cols(probs);
    for (std::size_t r = 0; r < rows(probs); ++r) {
        T* p = probs.data() + r * V;
        T largest = p[0], sum = 0;
        for (std::size_t v = 1; v < V; ++v) largest = std::max(largest, p[v]);
        for (std::size_t v = 0; v < V; ++v) p[v] = std::exp(p[v] - largest);
        for (std::size_t v = 0; v < V; ++v) sum += p[v];
        for (std::size_t v = 0; v < V; ++v) p[v] /= sum;
    }
    return probs;
}

// ∂loss/∂ of what head k's mixer read: dQ, dK, dV (B·n × d_h), dβ_t and dα_t (B·n × 1).
template <class T>
struct MixerGradient {
    Mat<T> dQ, dK, dV, d_beta, d_alpha;
};

// The backward pass of mix, each sequence on its own: dZ → dQ, dK, dV (and dβ, dα; a sink
// logit's ds_h adds to g.sink[k]).
template <class T>
MixerGradient<T> mix_backward(const AttentionOnlyModel<T>& m, const ModelForward<T>& f, std::size_t k,
                              const Mat<T>& dZ, AttentionOnlyModel<T>& g) {
    const std::size_t B = f.batch, n = f.length;
    const bool delta = is_delta(m.mixer), gated = m.mixer == Mixer::gated_delta;
    // every row of dQ, dK, dV is written, sequence by sequence, below
    MixerGradient<T> d{Mat<T>::from_shape(f.Q[k].shape()), Mat<T>::from_shape(f.Q[k].shape()),
                       Mat<T>::from_shape(f.Q[k].shape()), xt::zeros<T>({B * n, std::size_t(1)}), Mat<T>()};
    d.d_alpha = d.d_beta;
    for (std::size_t b = 0; b < B; ++b) {
        if (m.mixer == Mixer::softmax)
            attend_backward(f.Q[k], f.K[k], f.V[k], f.weights[k], dZ, d.dQ, d.dK, d.dV, b * n, n,
                            f.sink_share.empty() ? nullptr : &f.sink_share[k],
                            g.sink.empty() ? nullptr : &g.sink[k](0, 0));
        if (m.mixer == Mixer::linear)
            linear_attend_backward(f.Q[k], f.K[k], f.phi_Q[k], f.phi_K[k], f.V[k], f.weights[k], dZ, d.dQ, d.dK,
                                   d.dV, b * n, n);
        if (delta)
            delta_rule_backward(f.Q[k], f.K[k], f.V[k], f.beta[k], gated ? &f.alpha[k] : nullptr, f.states[k], dZ,
                                d.dQ, d.dK, d.dV, d.d_beta, gated ? &d.d_alpha : nullptr, b * n, n);
    }
    return d;
}

// Head k's backward pass, G = ∂loss/∂X_{l+1}: its W_O, its mixer, its projections and gates; what
// they pass down adds to dX (∂loss/∂X_l) and, with a latent, to dc (∂loss/∂c).
template <class T>
void head_backward(const AttentionOnlyModel<T>& m, const ModelForward<T>& f, std::size_t l, std::size_t k,
                   const Mat<T>& G, AttentionOnlyModel<T>& g, Mat<T>& dX, Mat<T>& dc) {
    const std::size_t kv = kv_index(m, k);
    g.W_O[k] = mm_tn(f.Z[k], G);
    const MixerGradient<T> d = mix_backward(m, f, k, mm_nt(G, m.W_O[k]), g);  // dZ = G W_Oᵀ
    g.W_Q[k] = mm_tn(f.X[l], d.dQ);
    if (m.variant.latent > 0) {  // K_h = c W_UK^h, V_h = c W_UV^h: to the latent, then to X_l
        g.W_UK[k] = mm_tn(f.latent[l], d.dK), g.W_UV[k] = mm_tn(f.latent[l], d.dV);
        dc += mm_nt(d.dK, m.W_UK[k]) + mm_nt(d.dV, m.W_UV[k]);
        add_into(dX, mm_nt(d.dQ, m.W_Q[k]));
    } else {  // a group's heads add to its W_K and W_V (each head its own with MHA: 0 + x = x)
        add_into(g.W_K[kv], mm_tn(f.X[l], d.dK)), add_into(g.W_V[kv], mm_tn(f.X[l], d.dV));
        add_into(dX, mm_nt(d.dQ, m.W_Q[k]), mm_nt(d.dK, m.W_K[kv]), mm_nt(d.dV, m.W_V[kv]));
    }
    if (!is_delta(m.mixer)) return;
    // the gates: β = σ(s_β), ds_β = dβ ⊙ β(1 − β); s_β = X_l w_β, so dw_β = X_lᵀ ds_β, dX_l += ds_β w_βᵀ
    const Mat<T> ds_beta = d.d_beta * f.beta[k] * (T(1) - f.beta[k]);
    g.W_beta[k] = mm_tn(f.X[l], ds_beta);
    add_into(dX, mm_nt(ds_beta, m.W_beta[k]));
    if (m.mixer != Mixer::gated_delta) return;
    const Mat<T> ds_alpha = d.d_alpha * f.alpha[k] * (T(1) - f.alpha[k]);
    g.W_alpha[k] = mm_tn(f.X[l], ds_alpha);
    T db = 0;  // s_α = X_l w_α + b_α: every row adds b_α, so db_α = Σ_t ds_α (t = 0, 1, … in turn)
    for (T x : ds_alpha) db += x;
    g.b_alpha[k](0, 0) = db;
    add_into(dX, mm_nt(ds_alpha, m.W_alpha[k]));
}

}  // namespace

AttentionOnlyModel<float> random_model(std::size_t vocabulary, std::size_t length, std::size_t d_model,
                                       std::size_t layers, std::size_t heads, bool learned_positions,
                                       std::uint64_t seed, Mixer mixer, const Variant& variant) {
    if (heads == 0 || d_model % heads != 0)
        throw InputError(describe("d_model ", d_model, " does not split into ", heads, " heads"));
    require_variant(variant, mixer, heads);
    Random rng(seed);
    const std::size_t dh = d_model / heads;
    const float s = 1.0f / std::sqrt(float(d_model)), s_h = 1.0f / std::sqrt(float(dh));
    AttentionOnlyModel<float> m;
    m.layers = layers, m.heads = heads, m.learned_positions = learned_positions;
    m.E = rng.normal_matrix(vocabulary, d_model, 1.0f);
    m.P = learned_positions ? rng.normal_matrix(length, d_model, 1.0f)
                            : Mat<float>(xt::zeros<float>({length, d_model}));
    for (std::size_t k = 0; k < layers * heads; ++k) {
        m.W_Q.push_back(rng.normal_matrix(d_model, dh, s));
        m.W_K.push_back(rng.normal_matrix(d_model, dh, s));
        m.W_V.push_back(rng.normal_matrix(d_model, dh, s));
        m.W_O.push_back(rng.normal_matrix(dh, d_model, s_h));
    }
    m.U = rng.normal_matrix(d_model, vocabulary, s);
    // the gates' weights come last, so that the numbers above are the softmax model's
    m.mixer = mixer;
    const bool gated = mixer == Mixer::gated_delta;
    if (mixer == Mixer::delta || gated)
        for (std::size_t k = 0; k < layers * heads; ++k) {
            m.W_beta.push_back(rng.normal_matrix(d_model, 1, s));
            if (!gated) continue;
            m.W_alpha.push_back(rng.normal_matrix(d_model, 1, s));
            m.b_alpha.push_back(Mat<float>({{std::log(19.0f)}}));  // σ(ln 19) = 19/20 = 0.95
        }
    // the variant's numbers come after all of those: the model above is the MHA one of this seed
    m.variant = variant;
    const std::size_t g = variant.kv_heads == 0 ? heads : variant.kv_heads;
    if (variant.latent > 0 || g != heads) {  // a group keeps its first head's W_K, W_V; a latent none
        std::vector<Mat<float>> W_K, W_V;
        for (std::size_t k = 0; k < layers * heads && variant.latent == 0; k += heads / g)
            W_K.push_back(m.W_K[k]), W_V.push_back(m.W_V[k]);
        m.W_K = W_K, m.W_V = W_V;
    }
    if (variant.sink_logit)
        for (std::size_t k = 0; k < layers * heads; ++k) m.sink.push_back(xt::zeros<float>({1, 1}));
    const std::size_t r = variant.indexer_rank == 0 ? dh : variant.indexer_rank;
    if (variant.top_k > 0)
        for (std::size_t k = 0; k < layers * heads; ++k) {
            m.W_IQ.push_back(rng.normal_matrix(d_model, r, s));
            m.W_IK.push_back(rng.normal_matrix(d_model, r, s));
        }
    if (variant.latent > 0) {
        const float s_c = 1.0f / std::sqrt(float(variant.latent));
        for (std::size_t l = 0; l < layers; ++l) m.W_DKV.push_back(rng.normal_matrix(d_model, variant.latent, s));
        for (std::size_t k = 0; k < layers * heads; ++k) {
            m.W_UK.push_back(rng.normal_matrix(variant.latent, dh, s_c));
            m.W_UV.push_back(rng.normal_matrix(variant.latent, dh, s_c));
        }
    }
    return m;
}

AttentionOnlyModel<double> in_double(const AttentionOnlyModel<float>& m) {
    auto cast = [](const Mat<float>& a) { return Mat<double>(xt::cast<double>(a)); };
    AttentionOnlyModel<double> r;
    r.layers = m.layers, r.heads = m.heads, r.learned_positions = m.learned_positions;
    r.E = cast(m.E), r.P = cast(m.P), r.U = cast(m.U);
    for (std::size_t k = 0; k < m.W_Q.size(); ++k) r.W_Q.push_back(cast(m.W_Q[k])), r.W_O.push_back(cast(m.W_O[k]));
    for (std::size_t k = 0; k < m.W_K.size(); ++k) r.W_K.push_back(cast(m.W_K[k])), r.W_V.push_back(cast(m.W_V[k]));
    r.mixer = m.mixer;
    for (const Mat<float>& w : m.W_beta) r.W_beta.push_back(cast(w));
    for (const Mat<float>& w : m.W_alpha) r.W_alpha.push_back(cast(w));
    for (const Mat<float>& b : m.b_alpha) r.b_alpha.push_back(cast(b));
    r.variant = m.variant;
    for (const Mat<float>& x : m.sink) r.sink.push_back(cast(x));
    for (const Mat<float>& w : m.W_IQ) r.W_IQ.push_back(cast(w));
    for (const Mat<float>& w : m.W_IK) r.W_IK.push_back(cast(w));
    for (const Mat<float>& w : m.W_DKV) r.W_DKV.push_back(cast(w));
    for (const Mat<float>& w : m.W_UK) r.W_UK.push_back(cast(w));
    for (const Mat<float>& w : m.W_UV) r.W_UV.push_back(cast(w));
    return r;
}

template <class T>
std::vector<Mat<T>*> parameters(AttentionOnlyModel<T>& m) {
    std::vector<Mat<T>*> p{&m.E};
    if (m.learned_positions) p.push_back(&m.P);
    p.push_back(&m.U);
    for (std::size_t k = 0; k < m.W_Q.size(); ++k) {
        p.push_back(&m.W_Q[k]);
        const std::size_t kv = kv_index(m, k);
        if (!m.W_K.empty() && (k == 0 || kv_index(m, k - 1) != kv)) p.push_back(&m.W_K[kv]), p.push_back(&m.W_V[kv]);
        p.push_back(&m.W_O[k]);
    }
    for (std::size_t k = 0; k < m.W_beta.size(); ++k) {  // after the others: a softmax model's order stays
        p.push_back(&m.W_beta[k]);
        if (k < m.W_alpha.size()) p.push_back(&m.W_alpha[k]), p.push_back(&m.b_alpha[k]);
    }
    for (Mat<T>& x : m.sink) p.push_back(&x);
    for (Mat<T>& w : m.W_DKV) p.push_back(&w);
    for (std::size_t k = 0; k < m.W_UK.size(); ++k) p.push_back(&m.W_UK[k]), p.push_back(&m.W_UV[k]);
    return p;
}

template <class T>
ModelForward<T> model_forward(const AttentionOnlyModel<T>& m, const std::vector<Tokens>& batch,
                              const std::vector<bool>& ablated, Fill fill) {
    require_batch(batch, rows(m.E), rows(m.P));
    require_variant_numbers(m);
    ModelForward<T> f;
    f.batch = batch.size(), f.length = batch[0].size();
    // 1. X₀ = E[tokens] + P                                   (B·n × d)
    Mat<T> X = embed(m, batch);
    // 2. each layer: X_{l+1} = X_l + Σ_h Z_h W_O^h
    for (std::size_t l = 0; l < m.layers; ++l) {
        f.X.push_back(X);
        if (m.variant.latent > 0) f.latent.push_back(mm(f.X[l], m.W_DKV[l]));  // c = X_l W_DKV (B·n × d_c)
        for (std::size_t h = 0; h < m.heads; ++h) {
            const std::size_t k = l * m.heads + h;
            project(m, f, l, k);  // Q, K, V (B·n × d_h)
            mix(m, f, l, k, fill);  // A, Z (B·n × d_h)
            if (!is_ablated(ablated, k)) add_into(X, mm(f.Z[k], m.W_O[k]));
        }
    }
    f.X.push_back(X);
    // 3. logits = X_L U, p = softmax_rows(logits)            (B·n × V)
    f.logits = mm(X, m.U);
    f.probs = softmax_rows(f.logits);
    return f;
}

template <class T>
Mat<T> next_token_gradient(const ModelForward<T>& f, const std::vector<Tokens>& batch) {
    const std::size_t n = f.length;
    const double N = double(f.batch * (n - 1));
    Mat<T> d_logits = xt::zeros<T>(f.probs.shape());
    for (std::size_t b = 0; b < f.batch; ++b)
        for (std::size_t i = 0; i + 1 < n; ++i) {
            const std::size_t r = b * n + i, next = batch[b][i + 1], V = cols(f.probs);
            const T* p = f.probs.data() + r * V;
            T* d = d_logits.data() + r * V;
            for (std::size_t v = 0; v < V; ++v) d[v] = p[v] / T(N);
            d[next] -= T(1) / T(N);
        }
    return d_logits;
}

template <class T>
double next_token_loss(const ModelForward<T>& f, const std::vector<Tokens>& batch, Mat<T>* d_logits) {
    const std::size_t n = f.length;
    const double N = double(f.batch * (n - 1));
    double loss = 0.0;
    for (std::size_t b = 0; b < f.batch; ++b)
        for (std::size_t i = 0; i + 1 < n; ++i) loss += token_loss(f.logits, b * n + i, batch[b][i + 1]);
    if (d_logits) *d_logits = next_token_gradient(f, batch);
    return loss / N;
}

template <class T>
AttentionOnlyModel<T> model_backward(const AttentionOnlyModel<T>& m, const std::vector<Tokens>& batch,
                                     const ModelForward<T>& f, const Mat<T>& d_logits,
                                     const std::vector<bool>& ablated) {
    AttentionOnlyModel<T> g = m;
    for (Mat<T>* p : parameters(g)) p->fill(T(0));
    g.P.fill(T(0));
    // 1. dU = X_Lᵀ d_logits, dX_L = d_logits Uᵀ
    g.U = mm_tn(f.X[m.layers], d_logits);
    Mat<T> G = mm_nt(d_logits, m.U);
    // 2. each layer from the last: the residual passes G down, each head adds its share
    for (std::size_t l = m.layers; l-- > 0;) {
        Mat<T> dX = G;
        Mat<T> dc = m.variant.latent > 0 ? Mat<T>(xt::zeros<T>(f.latent[l].shape())) : Mat<T>();  // ∂loss/∂c
        for (std::size_t h = 0; h < m.heads; ++h) {
            const std::size_t k = l * m.heads + h;
            if (!is_ablated(ablated, k)) head_backward(m, f, l, k, G, g, dX, dc);
        }
        if (m.variant.latent > 0) {  // c = X_l W_DKV
            g.W_DKV[l] = mm_tn(f.X[l], dc);
            add_into(dX, mm_nt(dc, m.W_DKV[l]));
        }
        G = dX;
    }
    // 3. X₀ = E[tokens] + P: each row's gradient goes to its token and its position
    for (std::size_t b = 0; b < f.batch; ++b)
        for (std::size_t i = 0; i < f.length; ++i)
            for (std::size_t c = 0; c < cols(G); ++c) {
                g.E(batch[b][i], c) += G(b * f.length + i, c);
                if (m.learned_positions) g.P(i, c) += G(b * f.length + i, c);
            }
    return g;
}

#define INSTANTIATE(T)                                                                                        \
    template std::vector<Mat<T>*> parameters(AttentionOnlyModel<T>&);                                         \
    template ModelForward<T> model_forward(const AttentionOnlyModel<T>&, const std::vector<Tokens>&,          \
                                           const std::vector<bool>&, Fill);                                   \
    template double next_token_loss(const ModelForward<T>&, const std::vector<Tokens>&, Mat<T>*);             \
    template Mat<T> next_token_gradient(const ModelForward<T>&, const std::vector<Tokens>&);                  \
    template AttentionOnlyModel<T> model_backward(const AttentionOnlyModel<T>&, const std::vector<Tokens>&,   \
                                                  const ModelForward<T>&, const Mat<T>&, const std::vector<bool>&);
INSTANTIATE(float)
INSTANTIATE(double)
#undef INSTANTIATE
