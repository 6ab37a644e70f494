#include "common/math/attention_only_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>

#include "common/math/input_error.hpp"
#include "common/math/random.hpp"

namespace {

// op(a) · b by loops in a fixed order: every entry starts at 0 and adds its terms
// for k = 0, 1, 2, … in turn. BLAS would sum in an order that depends on the processor
// (OpenBLAS picks a Haswell, SkylakeX or Zen kernel at run time), and a thousand training
// steps turn those last-bit differences into different printed losses: this chapter must
// print the same numbers on every machine. The loops are vectorised across columns j
// (independent sums), never across k, so the order holds whatever the vector width.

// The operand a of a product, entry (i, k) at a[i·row_step + k·k_step]: a by rows
// (row_step K, k_step 1), or aᵀ read in place (row_step 1, k_step = a's width).
template <class T>
struct Operand {
    const T* a;
    std::size_t row_step, k_step;
};

// Which terms k of c_ij = Σ_k op(a)_ik b_kj a product adds: every k, or one triangle of a
// sequence's (n × n) weights: k ≤ i (a query reads its earlier keys: Z = A V, dQ = dS K)
// or k ≥ i (a key is read by its later queries: dV = Aᵀ dZ, dK = dSᵀ Q).
enum class Terms { all, up_to_i, from_i };

// c[i0 … i0+R) × [j0 … j0+8) of op(a) · b, b (K × m) by rows: R × 8 sums kept in
// registers while k runs, eight floats at a time (one AVX register, or two SSE ones): an
// element-wise multiply and add, so each sum still adds its k in turn. In a triangle, the
// block's rows start (from_i) or stop (up_to_i) at different k: the block's first or last
// few k add to some of its rows only.
typedef float eight_floats __attribute__((vector_size(32)));
// the same eight floats read or written at any float of a matrix (no 32-byte alignment)
typedef float eight_floats_anywhere __attribute__((vector_size(32), aligned(4), may_alias));
template <std::size_t R>
__attribute__((always_inline)) inline void add_term(eight_floats (&sum)[R], Operand<float> a, const float* b,
                                                    std::size_t m, std::size_t i0, std::size_t j0, std::size_t k,
                                                    std::size_t r_begin, std::size_t r_end) {
    const eight_floats b_k = *reinterpret_cast<const eight_floats_anywhere*>(b + k * m + j0);
    const float* a_k = a.a + i0 * a.row_step + k * a.k_step;
    for (std::size_t r = 0; r < R; ++r)  // r runs over constants: sum stays in registers
        if (r >= r_begin && r < r_end) sum[r] += a_k[r * a.row_step] * b_k;
}
template <std::size_t R, Terms terms>
__attribute__((always_inline)) inline void product_block(Operand<float> a, const float* __restrict b,
                                                         float* __restrict c, std::size_t K, std::size_t m,
                                                         std::size_t i0, std::size_t j0) {
    eight_floats sum[R];
    for (std::size_t r = 0; r < R; ++r) sum[r] = eight_floats{};
    if (terms == Terms::from_i)  // k = i0 … i0 + R − 2: rows i ≤ k only
        for (std::size_t k = i0; k + 1 < i0 + R; ++k) add_term(sum, a, b, m, i0, j0, k, 0, k - i0 + 1);
    const std::size_t k_begin = terms == Terms::from_i ? i0 + R - 1 : 0, k_end = terms == Terms::up_to_i ? i0 + 1 : K;
    for (std::size_t k = k_begin; k < k_end; ++k) add_term(sum, a, b, m, i0, j0, k, 0, R);
    if (terms == Terms::up_to_i)  // k = i0 + 1 … i0 + R − 1: rows i ≥ k only
        for (std::size_t k = i0 + 1; k < i0 + R; ++k) add_term(sum, a, b, m, i0, j0, k, k - i0, R);
    for (std::size_t r = 0; r < R; ++r) *reinterpret_cast<eight_floats_anywhere*>(c + (i0 + r) * m + j0) = sum[r];
}
template <Terms terms>
__attribute__((always_inline)) inline void blocks(Operand<float> a, const float* b, float* c, std::size_t n,
                                                  std::size_t K, std::size_t m) {
    for (std::size_t j = 0; j + 8 <= m; j += 8) {
        std::size_t i = 0;
        for (; i + 6 <= n; i += 6) product_block<6, terms>(a, b, c, K, m, i, j);
        // the last rows in one block too: each of a block's sums waits for its previous addition,
        // and a block of one row would wait R times as long for its K additions as a block of R
        switch (n - i) {
            case 5: product_block<5, terms>(a, b, c, K, m, i, j); break;
            case 4: product_block<4, terms>(a, b, c, K, m, i, j); break;
            case 3: product_block<3, terms>(a, b, c, K, m, i, j); break;
            case 2: product_block<2, terms>(a, b, c, K, m, i, j); break;
            case 1: product_block<1, terms>(a, b, c, K, m, i, j); break;
        }
    }
}

// The columns [0, m − m mod 8) of c = op(a) · b (n × m) in blocks of 6 × 8. Compiled twice, for
// AVX2 and for any x86-64, the machine picking at run time: the same sums in the same order
// either way (no fused multiply-add, which would round once instead of twice).
__attribute__((target_clones("avx2", "default")))
void product_in_blocks(Operand<float> a, const float* b, float* c, std::size_t n, std::size_t K, std::size_t m,
                       Terms terms) {
    if (terms == Terms::all) blocks<Terms::all>(a, b, c, n, K, m);
    if (terms == Terms::up_to_i) blocks<Terms::up_to_i>(a, b, c, n, K, m);
    if (terms == Terms::from_i) blocks<Terms::from_i>(a, b, c, n, K, m);
}

// c = op(a) · b (n × m), b (K × m) by rows, into c's n·m numbers; with a triangle of terms, c's
// entries outside it are left as they were.
template <class T>
void product_into(Operand<T> a, const T* b, T* c, std::size_t n, std::size_t K, std::size_t m,
                  Terms terms = Terms::all) {
    std::size_t j_blocks = 0;  // the columns [0, j_blocks) the float blocks cover
    if constexpr (std::is_same_v<T, float>) {
        j_blocks = m - m % 8;
        product_in_blocks(a, b, c, n, K, m, terms);
    }
    for (std::size_t j = j_blocks; j < m; ++j) {  // the edges (a gate's m = 1), and every entry in double
        std::size_t i = 0;
        if (terms == Terms::all)  // eight rows side by side: each sum waits only for its own last addition
            for (; i + 8 <= n; i += 8) {
                T sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                for (std::size_t k = 0; k < K; ++k)
                    for (std::size_t r = 0; r < 8; ++r) sum[r] += a.a[(i + r) * a.row_step + k * a.k_step] * b[k * m + j];
                for (std::size_t r = 0; r < 8; ++r) c[(i + r) * m + j] = sum[r];
            }
        for (; i < n; ++i) {  // one entry at a time
            const std::size_t k_begin = terms == Terms::from_i ? i : 0, k_end = terms == Terms::up_to_i ? i + 1 : K;
            T sum = 0;
            for (std::size_t k = k_begin; k < k_end; ++k) sum += a.a[i * a.row_step + k * a.k_step] * b[k * m + j];
            c[i * m + j] = sum;
        }
    }
}

template <class T>
Mat<T> product(bool ta, bool tb, const Mat<T>& a_in, const Mat<T>& b_in) {
    const std::size_t inner_a = ta ? rows(a_in) : cols(a_in), inner_b = tb ? cols(b_in) : rows(b_in);
    if (inner_a != inner_b) throw InputError(describe("a product with inner sizes ", inner_a, " and ", inner_b));
    // A transposed b is copied once (it is a small weight matrix), so that b is read by rows.
    const Mat<T> b_t = tb ? Mat<T>(xt::transpose(b_in)) : Mat<T>();
    const Mat<T>& b = tb ? b_t : b_in;  // (K × m)
    const std::size_t n = ta ? cols(a_in) : rows(a_in), K = inner_a, m = cols(b);
    const std::size_t row_step = ta ? 1 : K, k_step = ta ? cols(a_in) : 1;  // op(a)(i, k) = a[i·row_step + k·k_step]
    Mat<T> c = Mat<T>::from_shape({n, m});
    product_into(Operand<T>{a_in.data(), row_step, k_step}, b.data(), c.data(), n, K, m);
    return c;
}
template <class T>
Mat<T> mm(const Mat<T>& a, const Mat<T>& b) { return product(false, false, a, b); }  // a · b
template <class T>
Mat<T> mm_tn(const Mat<T>& a, const Mat<T>& b) { return product(true, false, a, b); }  // aᵀ · b
template <class T>
Mat<T> mm_nt(const Mat<T>& a, const Mat<T>& b) { return product(false, true, a, b); }  // a · bᵀ

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

template <class T>
bool is_ablated(const std::vector<bool>& ablated, std::size_t k) { return k < ablated.size() && ablated[k]; }

// Rows [r0, r0 + n) of M (n × d_h), transposed (d_h × n): the loops below then run across
// keys j, many at a time, while each sum still adds its terms in the order of the formula.
template <class T>
std::vector<T> rows_transposed(const Mat<T>& M, std::size_t r0, std::size_t n) {
    const std::size_t dh = cols(M);
    std::vector<T> t(dh * n);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t c = 0; c < dh; ++c) t[c * n + j] = M(r0 + j, c);
    return t;
}

// The products of one sequence's head (rows r0 … r0 + n − 1 of its (B·n × ·) matrices), each
// sum in the order of the formula:
//   scores       S = Q Kᵀ (n × n): s_ij = Σ_c q_ic k_jc, c = 0, 1, … (for every j; those after i
//                are not used), from k_t = Kᵀ (d_h × n); also dA = dZ Vᵀ
//   causal_rows  Z = A V (n × d_h): z_i = Σ_{j≤i} a_ij v_j, j = 0, 1, …; also dQ = dS K
//   causal_cols  dV = Aᵀ dZ (n × d_h): dv_j = Σ_{i≥j} a_ij dz_i, i = j, j + 1, …; also dK = dSᵀ Q
template <class T>
void scores(const T* q, const std::vector<T>& k_t, T* s, std::size_t n, std::size_t dh) {
    product_into(Operand<T>{q, dh, 1}, k_t.data(), s, n, dh, n);
}
template <class T>
void causal_rows(const T* a, const T* v, T* z, std::size_t n, std::size_t dh) {
    product_into(Operand<T>{a, n, 1}, v, z, n, n, dh, Terms::up_to_i);
}
template <class T>
void causal_cols(const T* a, const T* dz, T* dv, std::size_t n, std::size_t dh) {
    product_into(Operand<T>{a, 1, n}, dz, dv, n, n, dh, Terms::from_i);
}

// Which keys a softmax head reads, and its sink (the variants of the header); the defaults:
// every earlier key, no sink.
template <class T>
struct KeyChoice {
    std::size_t window = 0, sinks = 0, top_k = 0;
    const Mat<T>* index_scores = nullptr;  // (B·n × n) the indexer's scores (top_k)
    const Mat<T>* sink = nullptr;          // (1 × 1) s_h (sink_logit)
    Mat<T>* sink_share = nullptr;          // (B·n × 1) a_sink,i, written by attend
    bool plain() const { return window == 0 && top_k == 0 && !sink; }
};

// seen[j] for the keys query i reads (j ≤ i): in the window or a sink, then, with top_k, the
// k of those the indexer ranks highest (equal scores: the lower position first).
template <class T>
void visible_keys(const KeyChoice<T>& choice, const T* index_i, std::size_t i, std::vector<char>& seen,
                  std::vector<std::size_t>& order) {
    order.clear();
    for (std::size_t j = 0; j <= i; ++j) {
        seen[j] = choice.window == 0 || j + choice.window > i || j < choice.sinks;
        if (seen[j]) order.push_back(j);
    }
    if (choice.top_k == 0 || order.size() <= choice.top_k) return;  // every visible key: nothing to choose
    std::partial_sort(order.begin(), order.begin() + long(choice.top_k), order.end(), [&](std::size_t a, std::size_t b) {
        return index_i[a] > index_i[b] || (index_i[a] == index_i[b] && a < b);
    });
    for (std::size_t r = choice.top_k; r < order.size(); ++r) seen[order[r]] = 0;
}

// One head on one sequence (rows r0 … r0 + n − 1): causal softmax of Q Kᵀ / √d_h, then A · V.
// Raw row pointers (the matrices are row-major): the innermost loops run on every step.
// With a KeyChoice, only the keys it keeps (the others get 0), and the sink's column in the sum.
template <class T>
void attend(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, Mat<T>& A, Mat<T>& Z, std::size_t r0, std::size_t n,
            const KeyChoice<T>& choice = {}) {
    const std::size_t dh = cols(Q);
    const T scale = T(1) / std::sqrt(T(dh));
    T *a = A.data() + r0 * n, *z = Z.data() + r0 * dh;
    scores(Q.data() + r0 * dh, rows_transposed(K, r0, n), a, n, dh);  // a_ij = q_i · k_j
    std::vector<char> seen(choice.plain() ? 0 : n);
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; ++i) {
        T* a_i = a + i * n;
        T largest = -std::numeric_limits<T>::infinity();
        if (choice.plain()) {
            for (std::size_t j = 0; j <= i; ++j) largest = std::max(largest, a_i[j] *= scale);
            T sum = 0;  // the exponentials first, then their sum: no running sum to save across each call
            for (std::size_t j = 0; j <= i; ++j) a_i[j] = std::exp(a_i[j] - largest);
            for (std::size_t j = 0; j <= i; ++j) sum += a_i[j];
            for (std::size_t j = 0; j < n; ++j) a_i[j] = j <= i ? a_i[j] / sum : T(0);
        } else {  // the same passes over the keys kept, and the sink's column
            const T* index_i = choice.index_scores ? choice.index_scores->data() + (r0 + i) * n : nullptr;
            visible_keys(choice, index_i, i, seen, order);
            for (std::size_t j = 0; j <= i; ++j)
                if (seen[j]) largest = std::max(largest, a_i[j] *= scale);
            const T s_h = choice.sink ? (*choice.sink)(0, 0) : T(0);
            if (choice.sink) largest = std::max(largest, s_h);
            T sum = 0;
            for (std::size_t j = 0; j <= i; ++j)
                if (seen[j]) sum += (a_i[j] = std::exp(a_i[j] - largest));
            const T e_sink = choice.sink ? std::exp(s_h - largest) : T(0);
            sum += e_sink;
            for (std::size_t j = 0; j < n; ++j) a_i[j] = j <= i && seen[j] ? a_i[j] / sum : T(0);
            if (choice.sink_share) (*choice.sink_share)(r0 + i, 0) = e_sink / sum;
        }
    }
    causal_rows(a, V.data() + r0 * dh, z, n, dh);  // z_i = Σ_{j≤i} a_ij v_j
}

// The backward pass of Z = A V for one sequence: dA = dZ Vᵀ (n × n, the entries after the
// diagonal unused), dV = Aᵀ dZ, and in `dots` rowsum(dA ⊙ A)_i = Σ_{j≤i} dA_ij a_ij, the share
// of dA that each normalisation of a row (softmax, linear) takes back.
template <class T>
void weighted_values_backward(const Mat<T>& V, const T* a, const T* dz, T* dv, T* dA, T* dots, std::size_t r0,
                              std::size_t n, std::size_t dh) {
    scores(dz, rows_transposed(V, r0, n), dA, n, dh);
    causal_cols(a, dz, dv, n, dh);
    for (std::size_t i = 0; i < n; ++i) {
        T dot = 0;
        for (std::size_t j = 0; j <= i; ++j) dot += dA[i * n + j] * a[i * n + j];
        dots[i] = dot;
    }
}

// count numbers, each written before it is read (a std::vector would first set them all to 0:
// two (n × n) matrices per sequence and head, 5 % of a training step).
template <class T>
std::unique_ptr<T[]> unset_numbers(std::size_t count) { return std::unique_ptr<T[]>(new T[count]); }

// The backward pass of attend: dZ → dQ, dK, dV (rows r0 … r0 + n − 1). The same with a
// KeyChoice (a key it hid has A = 0, so dS = 0); with a sink, d_sink += −a_sink,i · rowsum(dA ⊙ A)_i.
template <class T>
void attend_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& A, const Mat<T>& dZ,
                     Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV, std::size_t r0, std::size_t n,
                     const Mat<T>* sink_share = nullptr, T* d_sink = nullptr) {
    const std::size_t dh = cols(Q);
    const T scale = T(1) / std::sqrt(T(dh));
    const T *q = Q.data() + r0 * dh, *k = K.data() + r0 * dh, *a = A.data() + r0 * n;
    // (n × n), (n × n) (dS only at j ≤ i, where the causal products read it), (n)
    const std::unique_ptr<T[]> dA = unset_numbers<T>(n * n), dS = unset_numbers<T>(n * n), dots = unset_numbers<T>(n);
    weighted_values_backward(V, a, dZ.data() + r0 * dh, dV.data() + r0 * dh, dA.get(), dots.get(), r0, n, dh);
    for (std::size_t i = 0; i < n; ++i) {
        if (d_sink) *d_sink -= (*sink_share)(r0 + i, 0) * dots[i];  // the sink's column: dA = 0 there
        for (std::size_t j = 0; j <= i; ++j) dS[i * n + j] = a[i * n + j] * (dA[i * n + j] - dots[i]) * scale;
    }
    causal_rows(dS.get(), k, dQ.data() + r0 * dh, n, dh);  // dQ = dS K
    causal_cols(dS.get(), q, dK.data() + r0 * dh, n, dh);  // dK = dSᵀ Q
}

// ---- linear attention (Katharopoulos et al. 2020) ----

// φ(x) = elu(x) + 1 entrywise: x + 1 for x > 0, eˣ otherwise. Its slope φ'(x) is 1 for
// x > 0 and eˣ = φ(x) otherwise.
template <class T>
Mat<T> features(const Mat<T>& M) {
    Mat<T> f = Mat<T>::from_shape(M.shape());
    for (std::size_t i = 0; i < M.size(); ++i) f.flat(i) = M.flat(i) > 0 ? M.flat(i) + 1 : std::exp(M.flat(i));
    return f;
}

// One head on one sequence (rows r0 … r0 + n − 1), from φ(Q) and φ(K):
// A[i, j] = φ(q_i)·φ(k_j) / Σ_{j'≤i} φ(q_i)·φ(k_j') for j ≤ i, then Z = A V.
template <class T>
void linear_attend(const Mat<T>& phi_Q, const Mat<T>& phi_K, const Mat<T>& V, Mat<T>& A, Mat<T>& Z,
                   std::size_t r0, std::size_t n) {
    const std::size_t dh = cols(phi_Q);
    T *a = A.data() + r0 * n, *z = Z.data() + r0 * dh;
    scores(phi_Q.data() + r0 * dh, rows_transposed(phi_K, r0, n), a, n, dh);  // s_ij = φ(q_i)·φ(k_j)
    for (std::size_t i = 0; i < n; ++i) {
        T* a_i = a + i * n;
        T sum = 0;  // every s_ij > 0: the sum is never 0
        for (std::size_t j = 0; j <= i; ++j) sum += a_i[j];
        for (std::size_t j = 0; j < n; ++j) a_i[j] = j <= i ? a_i[j] / sum : T(0);
    }
    causal_rows(a, V.data() + r0 * dh, z, n, dh);  // z_i = Σ_{j≤i} a_ij v_j
}

// The backward pass of linear_attend: dZ → dQ, dK, dV (rows r0 … r0 + n − 1).
template <class T>
void linear_attend_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& phi_Q, const Mat<T>& phi_K,
                            const Mat<T>& V, const Mat<T>& A, const Mat<T>& dZ, Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV,
                            std::size_t r0, std::size_t n) {
    const std::size_t dh = cols(Q);
    const T *fq = phi_Q.data() + r0 * dh, *fk = phi_K.data() + r0 * dh;  // (n × d_h)
    const T* a = A.data() + r0 * n;
    const std::unique_ptr<T[]> dA = unset_numbers<T>(n * n), dS = unset_numbers<T>(n * n), dots = unset_numbers<T>(n),
                               dfq = unset_numbers<T>(n * dh), dfk = unset_numbers<T>(n * dh);
    std::vector<T> k_sum(dh, T(0));
    weighted_values_backward(V, a, dZ.data() + r0 * dh, dV.data() + r0 * dh, dA.get(), dots.get(), r0, n, dh);
    for (std::size_t i = 0; i < n; ++i) {
        T norm = 0;  // Σ_{j≤i} s_ij = φ(q_i) · Σ_{j≤i} φ(k_j)
        for (std::size_t c = 0; c < dh; ++c) norm += fq[i * dh + c] * (k_sum[c] += fk[i * dh + c]);
        for (std::size_t j = 0; j <= i; ++j) dS[i * n + j] = (dA[i * n + j] - dots[i]) / norm;
    }
    causal_rows(dS.get(), fk, dfq.get(), n, dh);  // dφ(Q) = dS φ(K)
    causal_cols(dS.get(), fq, dfk.get(), n, dh);  // dφ(K) = dSᵀ φ(Q)
    for (std::size_t i = 0; i < n; ++i)  // dq = dφ(q) ⊙ φ'(q), dk likewise
        for (std::size_t c = 0; c < dh; ++c) {
            const std::size_t e = i * dh + c;
            dQ(r0 + i, c) = dfq[e] * (Q(r0 + i, c) > 0 ? T(1) : fq[e]);
            dK(r0 + i, c) = dfk[e] * (K(r0 + i, c) > 0 ? T(1) : fk[e]);
        }
}

// ---- the delta rule (Schlag et al. 2021; Yang et al. 2024) and its gated form (Yang et al. 2025) ----

constexpr double unit_epsilon = 1e-6;  // q̂ = q / max(‖q‖, ε)

// a · b over n entries in a fixed order: four running sums (entries c ≡ 0, 1, 2, 3 mod 4, each
// adding c in turn), then (s₀ + s₁) + (s₂ + s₃). Four independent sums run side by side (one
// vector of four floats); one running sum would wait for every addition before the next.
template <class T>
__attribute__((always_inline)) inline T dot(const T* a, const T* b, std::size_t n) {
    T s[4] = {0, 0, 0, 0};
    std::size_t c = 0;
    for (; c + 4 <= n; c += 4)
        for (std::size_t i = 0; i < 4; ++i) s[i] += a[c + i] * b[c + i];
    for (; c < n; ++c) s[c % 4] += a[c] * b[c];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

// Rows [r0, r0 + n) of M (n × d_h), each divided by max(‖row‖, ε) (its length in `lengths`).
template <class T>
std::vector<T> unit_rows(const Mat<T>& M, std::size_t r0, std::size_t n, std::vector<T>& lengths) {
    const std::size_t dh = cols(M);
    std::vector<T> u(n * dh);
    lengths.assign(n, T(0));
    for (std::size_t t = 0; t < n; ++t) {
        const T* m = M.data() + (r0 + t) * dh;
        T squares = 0;
        for (std::size_t c = 0; c < dh; ++c) squares += m[c] * m[c];
        lengths[t] = std::max(std::sqrt(squares), T(unit_epsilon));
        for (std::size_t c = 0; c < dh; ++c) u[t * dh + c] = m[c] / lengths[t];
    }
    return u;
}

// dM rows [r0, r0 + n) from d(unit rows): (du − û (û · du)) / ‖m‖, or du / ε where the length was ε.
template <class T>
void unit_rows_backward(const std::vector<T>& u, const std::vector<T>& lengths, const std::vector<T>& du,
                        Mat<T>& dM, std::size_t r0, std::size_t n) {
    const std::size_t dh = cols(dM);
    for (std::size_t t = 0; t < n; ++t) {
        const T *u_t = u.data() + t * dh, *du_t = du.data() + t * dh;
        T dot = 0;
        if (lengths[t] > T(unit_epsilon))
            for (std::size_t c = 0; c < dh; ++c) dot += u_t[c] * du_t[c];
        for (std::size_t c = 0; c < dh; ++c) dM(r0 + t, c) = (du_t[c] - u_t[c] * dot) / lengths[t];
    }
}

// σ(X w + b) (B·n × 1): a gate per token.
template <class T>
Mat<T> gate(const Mat<T>& X, const Mat<T>& w, T b) {
    Mat<T> g = mm(X, w);
    for (T& x : g) x = T(1) / (T(1) + std::exp(-(x + b)));
    return g;
}

// The delta rule's state unrolled (rows r0 … r0 + n − 1 of A, from the unit rows q̂, k̂ of the
// sequence): z_t = Σ_{j≤t} M[t, j] v_j. Column j of C (d_h × n) holds
// α_t(I − β_t k̂_t k̂_tᵀ) ⋯ α_{j+1}(I − β_{j+1} k̂_{j+1} k̂_{j+1}ᵀ) β_j k̂_j after token t, and
// M[t, j] = q̂_t · C[:, j]. It shows what a head reads; the loss and its gradient never need it.
template <class T>
void unrolled_weights(const std::vector<T>& q, const std::vector<T>& k, const Mat<T>& beta, const Mat<T>* alpha,
                      Mat<T>& A, std::size_t r0, std::size_t n, std::size_t dh) {
    T* a = A.data() + r0 * n;
    std::vector<T> C(dh * n, T(0)), kc(n);
    for (std::size_t t = 0; t < n; ++t) {
        const T b_t = beta(r0 + t, 0), g_t = alpha ? (*alpha)(r0 + t, 0) : T(1);
        const T *q_t = q.data() + t * dh, *k_t = k.data() + t * dh;
        for (std::size_t j = 0; j < t; ++j) kc[j] = 0;
        for (std::size_t r = 0; r < dh; ++r)
            for (std::size_t j = 0; j < t; ++j) kc[j] += k_t[r] * C[r * n + j];
        T* a_t = a + t * n;
        for (std::size_t j = 0; j < n; ++j) a_t[j] = 0;
        for (std::size_t r = 0; r < dh; ++r) {
            T* C_r = C.data() + r * n;
            C_r[t] = b_t * k_t[r];
            for (std::size_t j = 0; j < t; ++j) C_r[j] = g_t * (C_r[j] - b_t * k_t[r] * kc[j]);
            for (std::size_t j = 0; j <= t; ++j) a_t[j] += q_t[r] * C_r[j];
        }
    }
}

// One head on one sequence (rows r0 … r0 + n − 1), α = 1 when alpha is null (the delta rule):
//   S' = α_t S_{t−1},  S_t = S' + β_t k̂_t (v_t − S'ᵀ k̂_t)ᵀ,  z_t = S_tᵀ q̂_t,
// every S_t kept in `states` (row r0 + t), and, when A is given, the unrolled matrix M
// (z_t = Σ_j M[t, j] v_j) in it. DH is d_h when the caller knows it at compile time (0: read
// it from Q): the loops over a row of the state then have a fixed length and unroll fully.
// One token of delta_rule, S_{t−1} → S_t and z_t. The pointers never overlap (__restrict): the
// compiler may keep e and z_t in registers and run the loops over c as vectors.
template <std::size_t DH, class T>
__attribute__((always_inline)) inline void delta_step(const T* __restrict S_prev, T* __restrict S,
                                                      const T* __restrict q_t, const T* __restrict k_t,
                                                      const T* __restrict v_t, T b_t, T g_t, T* __restrict e,
                                                      T* __restrict z_t, std::size_t dh_at_run_time) {
    const std::size_t dh = DH > 0 ? DH : dh_at_run_time;
    // 1. e = β_t (v_t − α_t S_{t−1}ᵀ k̂_t): what the state returns for the key, corrected towards v_t
    for (std::size_t c = 0; c < dh; ++c) e[c] = 0;
    for (std::size_t r = 0; r < dh; ++r)
        for (std::size_t c = 0; c < dh; ++c) e[c] += k_t[r] * S_prev[r * dh + c];
    for (std::size_t c = 0; c < dh; ++c) e[c] = b_t * (v_t[c] - g_t * e[c]);
    // 2. S_t = α_t S_{t−1} + k̂_t eᵀ (d_h × d_h), and z_t = S_tᵀ q̂_t (d_h) row by row of S_t
    for (std::size_t c = 0; c < dh; ++c) z_t[c] = 0;
    for (std::size_t r = 0; r < dh; ++r)
        for (std::size_t c = 0; c < dh; ++c) z_t[c] += q_t[r] * (S[r * dh + c] = g_t * S_prev[r * dh + c] + k_t[r] * e[c]);
}

// delta_step above and delta_step_backward below, for float at d_h = 4·W, written with vectors of
// four floats (a row of the state is W of them, each one SSE register, which every x86-64 has):
// every entry adds the same terms in the same order, but the vectors run along a row, where the
// compiler, left alone, vectorised across rows and paid for it in shuffles and stores through
// the stack (chapter 19's delta rule trained 20 % faster for it).
typedef float four_floats __attribute__((vector_size(16)));
typedef float four_floats_anywhere __attribute__((vector_size(16), aligned(4), may_alias));
inline const four_floats_anywhere* fours(const float* x) { return reinterpret_cast<const four_floats_anywhere*>(x); }
inline four_floats_anywhere* fours(float* x) { return reinterpret_cast<four_floats_anywhere*>(x); }
// dot(a, b, 4·W) of above: its four running sums as one vector
template <std::size_t W>
__attribute__((always_inline)) inline float dot_in_vectors(const float* a, const float* b) {
    four_floats s = {0, 0, 0, 0};
    for (std::size_t j = 0; j < W; ++j) s += fours(a)[j] * fours(b)[j];
    return (s[0] + s[1]) + (s[2] + s[3]);
}
template <std::size_t W>
__attribute__((always_inline)) inline void delta_step_in_vectors(const float* __restrict S_prev, float* __restrict S,
                                                                 const float* __restrict q_t,
                                                                 const float* __restrict k_t,
                                                                 const float* __restrict v_t, float b_t, float g_t,
                                                                 float* __restrict z_t) {
    constexpr std::size_t dh = 4 * W;
    four_floats e[W], z[W];
    for (std::size_t i = 0; i < W; ++i) e[i] = z[i] = four_floats{};
    for (std::size_t r = 0; r < dh; ++r)
        for (std::size_t i = 0; i < W; ++i) e[i] += k_t[r] * fours(S_prev + r * dh)[i];
    for (std::size_t i = 0; i < W; ++i) e[i] = b_t * (fours(v_t)[i] - g_t * e[i]);
    for (std::size_t r = 0; r < dh; ++r)
        for (std::size_t i = 0; i < W; ++i) {
            const four_floats s = g_t * fours(S_prev + r * dh)[i] + k_t[r] * e[i];
            fours(S + r * dh)[i] = s;
            z[i] += q_t[r] * s;
        }
    for (std::size_t i = 0; i < W; ++i) fours(z_t)[i] = z[i];
}
template <std::size_t W>
__attribute__((always_inline)) inline float delta_step_backward_in_vectors(
    const float* __restrict S_t, const float* __restrict S_prev, const float* __restrict q_t,
    const float* __restrict k_t, const float* __restrict v_t, const float* __restrict dz_t, float b_t, float g_t,
    float* __restrict D, float* __restrict dq_t, float* __restrict dk_t, float* __restrict dv_t,
    float* __restrict d_alpha_t) {
    constexpr std::size_t dh = 4 * W;
    four_floats w[W], e[W], da[W];
    for (std::size_t i = 0; i < W; ++i) w[i] = e[i] = da[i] = four_floats{};
    for (std::size_t r = 0; r < dh; ++r) {
        four_floats_anywhere* D_r = fours(D + r * dh);
        dq_t[r] = dot_in_vectors<W>(S_t + r * dh, dz_t);
        for (std::size_t i = 0; i < W; ++i) {
            const four_floats d = D_r[i] += q_t[r] * fours(dz_t)[i];
            w[i] += k_t[r] * d;
            e[i] += k_t[r] * fours(S_prev + r * dh)[i];
        }
    }
    float db = 0;
    alignas(16) float e_row[dh], w_row[dh];
    for (std::size_t i = 0; i < W; ++i) {
        e[i] = fours(v_t)[i] - g_t * e[i];
        fours(dv_t)[i] = b_t * w[i];
        fours(e_row)[i] = e[i], fours(w_row)[i] = w[i];
    }
    for (std::size_t c = 0; c < dh; ++c) db += w_row[c] * e_row[c];
    for (std::size_t r = 0; r < dh; ++r) {
        four_floats_anywhere* D_r = fours(D + r * dh);
        const float* S_prev_r = S_prev + r * dh;
        dk_t[r] = b_t * (dot_in_vectors<W>(D + r * dh, e_row) - g_t * dot_in_vectors<W>(S_prev_r, w_row));
        for (std::size_t i = 0; i < W; ++i) {
            const four_floats d_before = D_r[i] - b_t * k_t[r] * w[i];
            if (d_alpha_t) da[i] += d_before * fours(S_prev_r)[i];
            D_r[i] = g_t * d_before;
        }
    }
    if (d_alpha_t) {
        alignas(16) float da_row[dh];
        for (std::size_t i = 0; i < W; ++i) fours(da_row)[i] = da[i];
        for (std::size_t c = 0; c < dh; ++c) *d_alpha_t += da_row[c];
    }
    return db;
}

template <std::size_t DH, class T>
void delta_rule_of(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta, const Mat<T>* alpha,
                   Mat<T>& states, Mat<T>* A, Mat<T>& Z, std::size_t r0, std::size_t n) {
    const std::size_t dh = DH > 0 ? DH : cols(Q), dd = dh * dh;
    std::vector<T> q_len, k_len;
    const std::vector<T> q = unit_rows(Q, r0, n, q_len), k = unit_rows(K, r0, n, k_len);  // (n × d_h)
    const T* v = V.data() + r0 * dh;
    T *s_all = states.data() + r0 * dd, *z = Z.data() + r0 * dh;
    const std::vector<T> zero(dd, T(0));  // S_{−1}
    std::vector<T> e(dh);
    for (std::size_t t = 0; t < n; ++t) {
        const T b_t = beta(r0 + t, 0), g_t = alpha ? (*alpha)(r0 + t, 0) : T(1);
        const T *q_t = q.data() + t * dh, *k_t = k.data() + t * dh, *v_t = v + t * dh;
        const T* S_prev = t > 0 ? s_all + (t - 1) * dd : zero.data();
        // S_t (d_h × d_h) keys × values, by rows
        if constexpr (DH > 0 && std::is_same_v<T, float>)
            delta_step_in_vectors<DH / 4>(S_prev, s_all + t * dd, q_t, k_t, v_t, b_t, g_t, z + t * dh);
        else
            delta_step<DH>(S_prev, s_all + t * dd, q_t, k_t, v_t, b_t, g_t, e.data(), z + t * dh, dh);
    }
    if (A) unrolled_weights(q, k, beta, alpha, *A, r0, n, dh);
}

// The same for any d_h, compiled for the chapters' widths 8 and 16 (d_model 32, 4 or 2 heads).
template <class T>
void delta_rule(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta, const Mat<T>* alpha,
                Mat<T>& states, Mat<T>* A, Mat<T>& Z, std::size_t r0, std::size_t n) {
    if (cols(Q) == 8) return delta_rule_of<8>(Q, K, V, beta, alpha, states, A, Z, r0, n);
    if (cols(Q) == 16) return delta_rule_of<16>(Q, K, V, beta, alpha, states, A, Z, r0, n);
    delta_rule_of<0>(Q, K, V, beta, alpha, states, A, Z, r0, n);
}

// One token of delta_rule_backward, D = ∂loss/∂S_t → ∂loss/∂S_{t−1}: writes dq̂_t, dk̂_t, dv_t
// (and dα_t when asked), returns dβ_t. Two passes over the rows r of the state: the first adds
// q̂_t dz_tᵀ to D and sums w and e over r; the second, once e and w are whole, gives dk̂_t and
// moves D back. The pointers never overlap (__restrict), so the loops over c run as vectors.
template <std::size_t DH, class T>
__attribute__((always_inline)) inline T delta_step_backward(
    const T* __restrict S_t, const T* __restrict S_prev, const T* __restrict q_t, const T* __restrict k_t,
    const T* __restrict v_t, const T* __restrict dz_t, T b_t, T g_t, T* __restrict D, T* __restrict w,
    T* __restrict e, T* __restrict da, T* __restrict dq_t, T* __restrict dk_t, T* __restrict dv_t,
    T* __restrict d_alpha_t, std::size_t dh_at_run_time) {
    const std::size_t dh = DH > 0 ? DH : dh_at_run_time;
    // z_t = S_tᵀ q̂_t: dq̂_t = S_t dz_t, D += q̂_t dz_tᵀ; then, with S_t = S' + β_t k̂_t e_tᵀ,
    // S' = α_t S_{t−1}, e_t = v_t − S'ᵀ k̂_t: w = Dᵀ k̂_t and S_{t−1}ᵀ k̂_t, summed over r in turn
    for (std::size_t c = 0; c < dh; ++c) w[c] = e[c] = 0;
    for (std::size_t r = 0; r < dh; ++r) {
        T* D_r = D + r * dh;
        const T* S_prev_r = S_prev + r * dh;
        dq_t[r] = dot(S_t + r * dh, dz_t, dh);
        for (std::size_t c = 0; c < dh; ++c) {
            D_r[c] += q_t[r] * dz_t[c];
            w[c] += k_t[r] * D_r[c];
            e[c] += k_t[r] * S_prev_r[c];
        }
    }
    T db = 0;
    for (std::size_t c = 0; c < dh; ++c) {
        e[c] = v_t[c] - g_t * e[c];
        dv_t[c] = b_t * w[c];  // dv_t = β_t w
        db += w[c] * e[c];     // dβ_t = w · e_t
    }
    // dk̂_t = β_t (D e_t − α_t S_{t−1} w); dS' = D − β_t k̂_t wᵀ; dα_t = Σ dS' ⊙ S_{t−1} (by
    // columns, then across them); D ← α_t dS'
    for (std::size_t c = 0; c < dh; ++c) da[c] = 0;
    for (std::size_t r = 0; r < dh; ++r) {
        T* D_r = D + r * dh;
        const T* S_prev_r = S_prev + r * dh;
        dk_t[r] = b_t * (dot(D_r, e, dh) - g_t * dot(S_prev_r, w, dh));
        for (std::size_t c = 0; c < dh; ++c) {
            const T d_before = D_r[c] - b_t * k_t[r] * w[c];
            if (d_alpha_t) da[c] += d_before * S_prev_r[c];
            D_r[c] = g_t * d_before;
        }
    }
    if (d_alpha_t)
        for (std::size_t c = 0; c < dh; ++c) *d_alpha_t += da[c];
    return db;
}

// The backward pass of delta_rule, back through time: dZ → dQ, dK, dV, dβ (and dα).
template <std::size_t DH, class T>
void delta_rule_backward_of(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta,
                            const Mat<T>* alpha, const Mat<T>& states, const Mat<T>& dZ, Mat<T>& dQ, Mat<T>& dK,
                            Mat<T>& dV, Mat<T>& d_beta, Mat<T>* d_alpha, std::size_t r0, std::size_t n) {
    const std::size_t dh = DH > 0 ? DH : cols(Q), dd = dh * dh;
    std::vector<T> q_len, k_len;
    const std::vector<T> q = unit_rows(Q, r0, n, q_len), k = unit_rows(K, r0, n, k_len);  // (n × d_h)
    const T *v = V.data() + r0 * dh, *s_all = states.data() + r0 * dd, *dz = dZ.data() + r0 * dh;
    T* dv = dV.data() + r0 * dh;
    std::vector<T> D(dd, T(0)), w(dh), e(dh), da(dh), dq(n * dh), dk(n * dh);  // D = ∂loss/∂S_t (d_h × d_h)
    const std::vector<T> zero(dd, T(0));
    for (std::size_t t = n; t-- > 0;) {
        const T b_t = beta(r0 + t, 0), g_t = alpha ? (*alpha)(r0 + t, 0) : T(1);
        const T* S_prev = t > 0 ? s_all + (t - 1) * dd : zero.data();
        const std::size_t o = t * dh;  // row t of the (n × d_h) matrices
        T d_alpha_t = 0;
        T* d_alpha_p = d_alpha ? &d_alpha_t : nullptr;
        if constexpr (DH > 0 && std::is_same_v<T, float>)
            d_beta(r0 + t, 0) = delta_step_backward_in_vectors<DH / 4>(
                s_all + t * dd, S_prev, q.data() + o, k.data() + o, v + o, dz + o, b_t, g_t, D.data(), dq.data() + o,
                dk.data() + o, dv + o, d_alpha_p);
        else
            d_beta(r0 + t, 0) = delta_step_backward<DH>(s_all + t * dd, S_prev, q.data() + o, k.data() + o, v + o,
                                                        dz + o, b_t, g_t, D.data(), w.data(), e.data(), da.data(),
                                                        dq.data() + o, dk.data() + o, dv + o, d_alpha_p, dh);
        if (d_alpha) (*d_alpha)(r0 + t, 0) = d_alpha_t;
    }
    unit_rows_backward(q, q_len, dq, dQ, r0, n);  // through q̂ = q / ‖q‖ and k̂ = k / ‖k‖
    unit_rows_backward(k, k_len, dk, dK, r0, n);
}

template <class T>
void delta_rule_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta,
                         const Mat<T>* alpha, const Mat<T>& states, const Mat<T>& dZ, Mat<T>& dQ, Mat<T>& dK,
                         Mat<T>& dV, Mat<T>& d_beta, Mat<T>* d_alpha, std::size_t r0, std::size_t n) {
    if (cols(Q) == 8)
        return delta_rule_backward_of<8>(Q, K, V, beta, alpha, states, dZ, dQ, dK, dV, d_beta, d_alpha, r0, n);
    if (cols(Q) == 16)
        return delta_rule_backward_of<16>(Q, K, V, beta, alpha, states, dZ, dQ, dK, dV, d_beta, d_alpha, r0, n);
    delta_rule_backward_of<0>(Q, K, V, beta, alpha, states, dZ, dQ, dK, dV, d_beta, d_alpha, r0, n);
}

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

// The indexer's scores of every sequence: row b·n + i holds q_i^I · k_j^I for j ≤ i, c = 0, 1, …
// in turn (0 after i). IQ, IK (B·n × r).
template <class T>
Mat<T> indexer_scores(const Mat<T>& IQ, const Mat<T>& IK, std::size_t B, std::size_t n) {
    Mat<T> S = xt::zeros<T>({B * n, n});
    const std::size_t r = cols(IQ);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                T sum = 0;
                for (std::size_t c = 0; c < r; ++c) sum += IQ(b * n + i, c) * IK(b * n + j, c);
                S(b * n + i, j) = sum;
            }
    return S;
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
    ModelForward<T> f;
    const std::size_t B = batch.size(), n = batch[0].size(), d = cols(m.E);
    f.batch = B, f.length = n;
    // 1. X₀ = E[tokens] + P                                   (B·n × d)
    Mat<T> X = Mat<T>::from_shape({B * n, d});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < d; ++c) X(b * n + i, c) = m.E(batch[b][i], c) + m.P(i, c);
    const bool delta = m.mixer == Mixer::delta || m.mixer == Mixer::gated_delta;
    const bool gated = m.mixer == Mixer::gated_delta;
    const Variant& var = m.variant;
    require_variant(var, m.mixer, m.heads);
    const std::size_t head_count = m.layers * m.heads;
    if ((var.sink_logit && m.sink.size() != head_count) || (var.top_k > 0 && m.W_IQ.size() != head_count))
        throw InputError("a sink logit or top-k without their numbers (a sink per head, an indexer per head)");
    // 2. each layer: X_{l+1} = X_l + Σ_h Z_h W_O^h
    for (std::size_t l = 0; l < m.layers; ++l) {
        f.X.push_back(X);
        if (var.latent > 0) f.latent.push_back(mm(f.X[l], m.W_DKV[l]));  // c = X_l W_DKV (B·n × d_c)
        for (std::size_t h = 0; h < m.heads; ++h) {
            const std::size_t k = l * m.heads + h, kv = kv_index(m, k);
            f.Q.push_back(mm(f.X[l], m.W_Q[k]));  // (B·n × d_h)
            if (var.latent > 0) {                 // K_h = c W_UK^h, V_h = c W_UV^h
                f.K.push_back(mm(f.latent[l], m.W_UK[k]));
                f.V.push_back(mm(f.latent[l], m.W_UV[k]));
            } else if (h > 0 && kv_index(m, k - 1) == kv) {  // the group's keys and values, once
                f.K.push_back(f.K[k - 1]), f.V.push_back(f.V[k - 1]);
            } else {
                f.K.push_back(mm(f.X[l], m.W_K[kv]));
                f.V.push_back(mm(f.X[l], m.W_V[kv]));
            }
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
            for (std::size_t b = 0; b < B; ++b) {  // each sequence on its own
                if (m.mixer == Mixer::softmax) attend(f.Q[k], f.K[k], f.V[k], f.weights[k], f.Z[k], b * n, n, choice);
                if (m.mixer == Mixer::linear)
                    linear_attend(f.phi_Q[k], f.phi_K[k], f.V[k], f.weights[k], f.Z[k], b * n, n);
                if (delta)
                    delta_rule(f.Q[k], f.K[k], f.V[k], f.beta[k], gated ? &f.alpha[k] : nullptr, f.states[k],
                               unrolled ? &f.weights[k] : nullptr, f.Z[k], b * n, n);
            }
            if (!is_ablated<T>(ablated, k)) add_into(X, mm(f.Z[k], m.W_O[k]));
        }
    }
    f.X.push_back(X);
    // 3. logits = X_L U, p = softmax_rows(logits)            (B·n × V)
    f.logits = mm(X, m.U);
    f.probs = f.logits;
    const std::size_t V = cols(f.probs);
    for (std::size_t r = 0; r < rows(f.probs); ++r) {
        T* p = f.probs.data() + r * V;  // a raw row: the division below runs as vectors
        T largest = p[0], sum = 0;
        for (std::size_t v = 1; v < V; ++v) largest = std::max(largest, p[v]);
        for (std::size_t v = 0; v < V; ++v) p[v] = std::exp(p[v] - largest);
        for (std::size_t v = 0; v < V; ++v) sum += p[v];
        for (std::size_t v = 0; v < V; ++v) p[v] /= sum;
    }
    return f;
}

template <class T>
double token_loss(const Mat<T>& logits, std::size_t r, std::size_t next) {
    double largest = double(logits(r, 0)), sum = 0.0;
    for (std::size_t v = 1; v < cols(logits); ++v) largest = std::max(largest, double(logits(r, v)));
    for (std::size_t v = 0; v < cols(logits); ++v) sum += std::exp(double(logits(r, v)) - largest);
    return largest + std::log(sum) - double(logits(r, next));
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
    const std::size_t B = f.batch, n = f.length;
    const bool delta = m.mixer == Mixer::delta || m.mixer == Mixer::gated_delta;
    const bool gated = m.mixer == Mixer::gated_delta;
    // 1. dU = X_Lᵀ d_logits, dX_L = d_logits Uᵀ
    g.U = mm_tn(f.X[m.layers], d_logits);
    Mat<T> G = mm_nt(d_logits, m.U);
    // 2. each layer from the last: the residual passes G down, each head adds its share
    for (std::size_t l = m.layers; l-- > 0;) {
        Mat<T> dX = G;
        Mat<T> dc = m.variant.latent > 0 ? Mat<T>(xt::zeros<T>(f.latent[l].shape())) : Mat<T>();  // ∂loss/∂c
        for (std::size_t h = 0; h < m.heads; ++h) {
            const std::size_t k = l * m.heads + h, kv = kv_index(m, k);
            if (is_ablated<T>(ablated, k)) continue;
            g.W_O[k] = mm_tn(f.Z[k], G);
            const Mat<T> dZ = mm_nt(G, m.W_O[k]);
            // every row is written, sequence by sequence, below
            Mat<T> dQ = Mat<T>::from_shape(f.Q[k].shape()), dK = Mat<T>::from_shape(f.Q[k].shape()),
                   dV = Mat<T>::from_shape(f.Q[k].shape());
            Mat<T> d_beta = xt::zeros<T>({B * n, std::size_t(1)}), d_alpha = d_beta;  // ∂loss/∂β_t, ∂loss/∂α_t
            for (std::size_t b = 0; b < B; ++b) {
                if (m.mixer == Mixer::softmax)
                    attend_backward(f.Q[k], f.K[k], f.V[k], f.weights[k], dZ, dQ, dK, dV, b * n, n,
                                    f.sink_share.empty() ? nullptr : &f.sink_share[k],
                                    g.sink.empty() ? nullptr : &g.sink[k](0, 0));
                if (m.mixer == Mixer::linear)
                    linear_attend_backward(f.Q[k], f.K[k], f.phi_Q[k], f.phi_K[k], f.V[k], f.weights[k], dZ, dQ, dK,
                                           dV, b * n, n);
                if (delta)
                    delta_rule_backward(f.Q[k], f.K[k], f.V[k], f.beta[k], gated ? &f.alpha[k] : nullptr,
                                        f.states[k], dZ, dQ, dK, dV, d_beta, gated ? &d_alpha : nullptr, b * n, n);
            }
            g.W_Q[k] = mm_tn(f.X[l], dQ);
            if (m.variant.latent > 0) {  // K_h = c W_UK^h, V_h = c W_UV^h: to the latent, then to X_l below
                g.W_UK[k] = mm_tn(f.latent[l], dK), g.W_UV[k] = mm_tn(f.latent[l], dV);
                dc += mm_nt(dK, m.W_UK[k]) + mm_nt(dV, m.W_UV[k]);
                add_into(dX, mm_nt(dQ, m.W_Q[k]));
            } else {  // a group's heads add to its W_K and W_V (each head its own with MHA: 0 + x = x)
                add_into(g.W_K[kv], mm_tn(f.X[l], dK)), add_into(g.W_V[kv], mm_tn(f.X[l], dV));
                add_into(dX, mm_nt(dQ, m.W_Q[k]), mm_nt(dK, m.W_K[kv]), mm_nt(dV, m.W_V[kv]));
            }
            if (!delta) continue;
            // the gates: β = σ(s_β), ds_β = dβ ⊙ β(1 − β); s_β = X_l w_β, so dw_β = X_lᵀ ds_β, dX_l += ds_β w_βᵀ
            const Mat<T> ds_beta = d_beta * f.beta[k] * (T(1) - f.beta[k]);
            g.W_beta[k] = mm_tn(f.X[l], ds_beta);
            add_into(dX, mm_nt(ds_beta, m.W_beta[k]));
            if (!gated) continue;
            const Mat<T> ds_alpha = d_alpha * f.alpha[k] * (T(1) - f.alpha[k]);
            g.W_alpha[k] = mm_tn(f.X[l], ds_alpha);
            T db = 0;  // s_α = X_l w_α + b_α: every row adds b_α, so db_α = Σ_t ds_α (t = 0, 1, … in turn)
            for (T x : ds_alpha) db += x;
            g.b_alpha[k](0, 0) = db;
            add_into(dX, mm_nt(ds_alpha, m.W_alpha[k]));
        }
        if (m.variant.latent > 0) {  // c = X_l W_DKV
            g.W_DKV[l] = mm_tn(f.X[l], dc);
            add_into(dX, mm_nt(dc, m.W_DKV[l]));
        }
        G = dX;
    }
    // 3. X₀ = E[tokens] + P: each row's gradient goes to its token and its position
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < cols(G); ++c) {
                g.E(batch[b][i], c) += G(b * n + i, c);
                if (m.learned_positions) g.P(i, c) += G(b * n + i, c);
            }
    return g;
}

#define INSTANTIATE(T)                                                                                        \
    template std::vector<Mat<T>*> parameters(AttentionOnlyModel<T>&);                                         \
    template ModelForward<T> model_forward(const AttentionOnlyModel<T>&, const std::vector<Tokens>&,          \
                                           const std::vector<bool>&, Fill);                                   \
    template double token_loss(const Mat<T>&, std::size_t, std::size_t);                                      \
    template double next_token_loss(const ModelForward<T>&, const std::vector<Tokens>&, Mat<T>*);             \
    template Mat<T> next_token_gradient(const ModelForward<T>&, const std::vector<Tokens>&);                  \
    template AttentionOnlyModel<T> model_backward(const AttentionOnlyModel<T>&, const std::vector<Tokens>&,   \
                                                  const ModelForward<T>&, const Mat<T>&, const std::vector<bool>&);
INSTANTIATE(float)
INSTANTIATE(double)
