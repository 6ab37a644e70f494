#include "common/long_context/long_attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>

#include <sys/mman.h>

#if !defined(__EMSCRIPTEN__)  // WebAssembly has neither BLAS nor xsimd: there the loops below do all
#include <cblas.h>
#include <xsimd/xsimd.hpp>
#endif

#include "common/numbers/input_error.hpp"
#include "common/numbers/memory_budget.hpp"

namespace {

#if !defined(__EMSCRIPTEN__)
using Batch = xsimd::batch<float>;  // as many floats as one SIMD register holds
constexpr std::size_t lanes = Batch::size;
#endif
constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

#if defined(__EMSCRIPTEN__)
// WebAssembly has no BLAS: the same products as loops (C is not read when beta is 0, as in BLAS).
void gemm_abt(std::size_t rows_, std::size_t cols_, std::size_t inner, float alpha, const float* A, const float* B,
              float beta, float* C) {
    for (std::size_t i = 0; i < rows_; ++i)
        for (std::size_t j = 0; j < cols_; ++j) {
            float sum = 0.0f;
            for (std::size_t k = 0; k < inner; ++k) sum += A[i * inner + k] * B[j * inner + k];
            C[i * cols_ + j] = alpha * sum + (beta == 0.0f ? 0.0f : beta * C[i * cols_ + j]);
        }
}

void gemm_ab(std::size_t rows_, std::size_t cols_, std::size_t inner, const float* A, const float* B, float beta,
             float* C) {
    for (std::size_t i = 0; i < rows_; ++i) {
        float* c = C + i * cols_;
        for (std::size_t j = 0; j < cols_; ++j) c[j] = beta == 0.0f ? 0.0f : beta * c[j];
        for (std::size_t k = 0; k < inner; ++k)
            for (std::size_t j = 0; j < cols_; ++j) c[j] += A[i * inner + k] * B[k * cols_ + j];
    }
}
#else
int blas_int(std::size_t n) { return static_cast<int>(n); }

// C (rows × cols) = alpha · A · Bᵀ + beta · C, all row-major and contiguous:
// A (rows × inner), B (cols × inner).
void gemm_abt(std::size_t rows_, std::size_t cols_, std::size_t inner, float alpha, const float* A, const float* B,
              float beta, float* C) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, blas_int(rows_), blas_int(cols_), blas_int(inner), alpha, A,
                blas_int(inner), B, blas_int(inner), beta, C, blas_int(cols_));
}

// C (rows × cols) = A · B + beta · C: A (rows × inner), B (inner × cols).
void gemm_ab(std::size_t rows_, std::size_t cols_, std::size_t inner, const float* A, const float* B, float beta,
             float* C) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(rows_), blas_int(cols_), blas_int(inner), 1.0f, A,
                blas_int(inner), B, blas_int(cols_), beta, C, blas_int(cols_));
}
#endif

// max_j x[j], a SIMD register at a time.
float max_of(const float* x, std::size_t len) {
    float best = minus_infinity;
    std::size_t j = 0;
#if !defined(__EMSCRIPTEN__)
    if (len >= lanes) {
        Batch b = Batch::load_unaligned(x);
        for (j = lanes; j + lanes <= len; j += lanes) b = xsimd::max(b, Batch::load_unaligned(x + j));
        alignas(64) float lane[lanes];
        b.store_aligned(lane);
        for (const float v : lane) best = std::max(best, v);
    }
#endif
    for (; j < len; ++j) best = std::max(best, x[j]);
    return best;
}

// x[j] ← exp(x[j] − shift) in place; returns Σ_j of the new x[j].
float exp_shifted_sum(float* x, std::size_t len, float shift) {
    std::size_t j = 0;
#if defined(__EMSCRIPTEN__)
    float sum = 0.0f;
#else
    const Batch s(shift);
    Batch sum0(0.0f), sum1(0.0f);  // two sums, so two exps are in flight at once
    for (; j + 2 * lanes <= len; j += 2 * lanes) {
        const Batch e0 = xsimd::exp(Batch::load_unaligned(x + j) - s);
        const Batch e1 = xsimd::exp(Batch::load_unaligned(x + j + lanes) - s);
        e0.store_unaligned(x + j);
        e1.store_unaligned(x + j + lanes);
        sum0 += e0;
        sum1 += e1;
    }
    // The lanes summed in order by hand: xsimd's horizontal sum was renamed between versions
    // (hadd in xsimd 8, reduce_add from 9 on), and an order of our own is the same on both.
    alignas(64) float lane[lanes];
    (sum0 + sum1).store_aligned(lane);
    float sum = 0.0f;
    for (const float v : lane) sum += v;
#endif
    for (; j < len; ++j) {
        x[j] = std::exp(x[j] - shift);
        sum += x[j];
    }
    return sum;
}

void scale(float* x, std::size_t len, float factor) {
    std::size_t j = 0;
#if !defined(__EMSCRIPTEN__)
    const Batch f(factor);
    for (; j + lanes <= len; j += lanes) (Batch::load_unaligned(x + j) * f).store_unaligned(x + j);
#endif
    for (; j < len; ++j) x[j] *= factor;
}

// Room for `count` floats, in 2 MiB pages where the buffer is large. The
// operating system hands out memory a page at a time on first touch; with 4 KiB
// pages, the 64 MiB of weights at n = 4096 cost 16 384 page faults per call,
// which on a virtual machine took longer than the arithmetic (250 ms against
// 58 ms). Asking for transparent huge pages (as numpy does for arrays over
// 4 MiB) makes that 32 faults. Where the kernel says no, it is only slower.
struct FloatBuffer {
    std::unique_ptr<float, decltype(&std::free)> memory{nullptr, &std::free};
    float* data() const { return memory.get(); }
};

FloatBuffer allocate_floats(std::size_t count) {
    constexpr std::size_t huge_page = std::size_t{2} << 20;
    const std::size_t bytes = std::max<std::size_t>(count, 1) * sizeof(float);
    FloatBuffer buffer;
    if (bytes < 2 * huge_page) {
        buffer.memory.reset(static_cast<float*>(std::malloc(bytes)));
        if (!buffer.data()) throw std::bad_alloc();
        return buffer;
    }
    const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;  // aligned_alloc needs a multiple
    buffer.memory.reset(static_cast<float*>(std::aligned_alloc(huge_page, rounded)));
    if (!buffer.data()) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(buffer.data(), rounded, MADV_HUGEPAGE);  // a hint: where it is refused, only slower
#endif
    return buffer;
}

// Which keys query i sees: [begin(i), end(i)). Both grow with i, so a block of
// queries [i0, i1) needs the keys [begin(i0), end(i1 − 1)).
struct KeyRule {
    enum Kind { all, causal, window } kind = all;
    std::size_t w = 0;
    std::size_t begin(std::size_t i, std::size_t keys) const {
        return kind == window ? window_begin(i, keys, w) : 0;
    }
    std::size_t end(std::size_t i, std::size_t keys) const {
        switch (kind) {
            case causal: return std::min(i + 1, keys);
            case window: return std::min(window_begin(i, keys, w) + w, keys);
            default: return keys;
        }
    }
};

// The streaming kernel. Q (n × d), K (keys × d), V (keys × dv) contiguous.
// Writes the normalised output O (n × dv), which may be Q's own storage when
// dv = d; and, if asked, each query's final maximum and denominator, so that
// outputs over different sets of keys can be merged later.
void attend(const float* Q, std::size_t n, const float* K, const float* V, std::size_t keys, std::size_t d,
            std::size_t dv, KeyRule rule, AttentionBlocks blocks, float* O, float* final_max = nullptr,
            float* final_sum = nullptr) {
    const AttentionBlocks tiles = clamped_blocks(blocks, n, keys);
    const std::size_t bq = tiles.q, bk = tiles.k;
    const float alpha = 1.0f / std::sqrt(static_cast<float>(d));
    std::vector<float> S(bq * bk);     // (bq × bk)  one tile of scores, then of exp(scores − m)
    std::vector<float> acc(bq * dv);   // (bq × dv)  the running output, not yet divided by l
    std::vector<float> m(bq), l(bq);   // (bq)       running maximum and denominator

    for (std::size_t i0 = 0; i0 < n; i0 += bq) {
        const std::size_t qb = std::min(bq, n - i0);
        std::fill(m.begin(), m.end(), minus_infinity);
        std::fill(l.begin(), l.end(), 0.0f);
        std::fill(acc.begin(), acc.end(), 0.0f);
        const std::size_t first_key = rule.begin(i0, keys), last_key = rule.end(i0 + qb - 1, keys);

        for (std::size_t j0 = first_key; j0 < last_key; j0 += bk) {
            const std::size_t kb = std::min(bk, last_key - j0);
            // 1. the tile of scaled scores: (qb × d) · (kb × d)ᵀ / √d → (qb × kb)
            gemm_abt(qb, kb, d, alpha, Q + i0 * d, K + j0 * d, 0.0f, S.data());
            // 2. per query: new maximum, exp of the visible scores, rescale what came before
            for (std::size_t r = 0; r < qb; ++r) {
                float* s = S.data() + r * kb;
                const std::size_t a = std::max(rule.begin(i0 + r, keys), j0) - j0;
                const std::size_t e = std::max(std::min(rule.end(i0 + r, keys), j0 + kb), j0) - j0;
                if (a >= e) {  // this query sees no key of this tile
                    std::fill(s, s + kb, 0.0f);
                    continue;
                }
                std::fill(s, s + a, 0.0f);
                std::fill(s + e, s + kb, 0.0f);
                const float m_new = std::max(m[r], max_of(s + a, e - a));
                const float correction = std::exp(m[r] - m_new);  // 0 on the first tile (m = −inf)
                l[r] = l[r] * correction + exp_shifted_sum(s + a, e - a, m_new);
                m[r] = m_new;
                if (correction != 1.0f) scale(acc.data() + r * dv, dv, correction);
            }
            // 3. acc += P · V_tile: (qb × kb) · (kb × dv)
            gemm_ab(qb, dv, kb, S.data(), V + j0 * dv, 1.0f, acc.data());
        }
        // 4. divide by the denominators; a query that saw no key gets zeros
        for (std::size_t r = 0; r < qb; ++r) {
            float* out = O + (i0 + r) * dv;
            const float inverse = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
            for (std::size_t c = 0; c < dv; ++c) out[c] = acc[r * dv + c] * inverse;
            if (final_max) final_max[i0 + r] = m[r];
            if (final_sum) final_sum[i0 + r] = l[r];
        }
    }
}

void require_shapes(const Matrix& Q, const Matrix& K, const Matrix& V, const char* what) {
    if (cols(Q) != cols(K) || rows(K) != rows(V) || cols(Q) == 0 || cols(V) == 0)
        throw InputError(describe(what, ": Q ", rows(Q), "×", cols(Q), ", K ", rows(K), "×", cols(K), ", V ", rows(V), "×", cols(V), " do not fit together"));
}

}  // namespace

// (A block of 0 would never advance: at least 1.)
AttentionBlocks clamped_blocks(AttentionBlocks blocks, std::size_t n, std::size_t m) {
    return {std::max<std::size_t>(1, std::min(blocks.q, n)), std::max<std::size_t>(1, std::min(blocks.k, m))};
}

std::size_t window_begin(std::size_t i, std::size_t n, std::size_t w) {
    if (w >= n) return 0;
    const std::size_t start = i >= w / 2 ? i - w / 2 : 0;
    return std::min(start, n - w);
}

Matrix materialised_attention(const Matrix& Q, const Matrix& K, const Matrix& V, bool causal) {
    require_shapes(Q, K, V, "materialised attention");
    const std::size_t n = rows(Q), m = rows(K), d = cols(Q), dv = cols(V);
    Matrix output = Matrix::from_shape({n, dv});  // (n × d_v)
    if (n == 0 || m == 0) {
        output.fill(0.0f);
        return output;
    }
    const FloatBuffer weights = allocate_floats(n * m);  // (n × m): the matrix that grows as n²
    // scaled_scores = Q · Kᵀ / √d_k, one BLAS call
    gemm_abt(n, m, d, 1.0f / std::sqrt(static_cast<float>(d)), Q.data(), K.data(), 0.0f, weights.data());
    // weights = softmax of each row, in place (the scores are not needed again)
    for (std::size_t i = 0; i < n; ++i) {
        float* row = weights.data() + i * m;
        const std::size_t visible = causal ? std::min(i + 1, m) : m;
        std::fill(row + visible, row + m, 0.0f);
        const float row_sum = exp_shifted_sum(row, visible, max_of(row, visible));
        scale(row, visible, 1.0f / row_sum);
    }
    gemm_ab(n, dv, m, weights.data(), V.data(), 0.0f, output.data());  // output = weights · V
    return output;
}

Matrix streaming_attention(const Matrix& Q, const Matrix& K, const Matrix& V, AttentionBlocks blocks, bool causal) {
    require_shapes(Q, K, V, "streaming attention");
    Matrix output = Matrix::from_shape({rows(Q), cols(V)});
    KeyRule rule;
    rule.kind = causal ? KeyRule::causal : KeyRule::all;
    attend(Q.data(), rows(Q), K.data(), V.data(), rows(K), cols(Q), cols(V), rule, blocks, output.data());
    return output;
}

void streaming_attention_in_place(Matrix& Q_then_output, const Matrix& K, const Matrix& V, AttentionBlocks blocks) {
    require_shapes(Q_then_output, K, V, "streaming attention");
    if (cols(V) != cols(Q_then_output))
        throw InputError("streaming attention in place: d_v must equal d_k to write the output over Q");
    attend(Q_then_output.data(), rows(Q_then_output), K.data(), V.data(), rows(K), cols(K), cols(V), KeyRule{},
           blocks, Q_then_output.data());
}

Matrix sliding_window_attention(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t window,
                                AttentionBlocks blocks) {
    require_shapes(Q, K, V, "sliding-window attention");
    if (rows(Q) != rows(K)) throw InputError("sliding-window attention: needs as many queries as keys");
    if (window == 0) throw InputError("sliding-window attention: the window must hold at least one key");
    Matrix output = Matrix::from_shape({rows(Q), cols(V)});
    KeyRule rule;
    rule.kind = KeyRule::window;
    rule.w = window;
    attend(Q.data(), rows(Q), K.data(), V.data(), rows(K), cols(Q), cols(V), rule, blocks, output.data());
    return output;
}

Matrix dilated_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const std::vector<DilatedPair>& pairs,
                         AttentionBlocks blocks) {
    require_shapes(Q, K, V, "dilated attention");
    const std::size_t n = rows(Q), d = cols(Q), dv = cols(V);
    if (rows(K) != n) throw InputError("dilated attention: needs as many queries as keys");
    bool covered = false;
    for (const DilatedPair& p : pairs) {
        if (p.segment == 0 || p.dilation == 0)
            throw InputError(describe("dilated attention: pair (", p.segment, ", ", p.dilation, "): w and r must be at least 1"));
        covered = covered || p.dilation == 1;
    }
    if (!covered) throw InputError("dilated attention: no pair has r = 1, so some tokens would attend to nothing");

    // Mixed over the pairs like blocks of an online softmax: per token the
    // largest maximum M, the denominator L and the sum acc, all relative to M.
    std::vector<float> M(n, minus_infinity), L(n, 0.0f), acc(n * dv, 0.0f);
    std::vector<float> q, k, v, o, m, l;  // one segment's gathered rows and results
    for (const DilatedPair& p : pairs) {
        const std::size_t w = std::min(p.segment, n), r = p.dilation;
        for (std::size_t s0 = 0; s0 < n; s0 += w) {
            const std::size_t count = (std::min(s0 + w, n) - s0 + r - 1) / r;  // tokens s0, s0 + r, …
            q.resize(count * d);
            k.resize(count * d);
            v.resize(count * dv);
            o.resize(count * dv);
            m.resize(count);
            l.resize(count);
            for (std::size_t t = 0; t < count; ++t) {  // gather every r-th row (a copy also when r = 1)
                const std::size_t i = s0 + t * r;
                std::copy_n(Q.data() + i * d, d, q.data() + t * d);
                std::copy_n(K.data() + i * d, d, k.data() + t * d);
                std::copy_n(V.data() + i * dv, dv, v.data() + t * dv);
            }
            attend(q.data(), count, k.data(), v.data(), count, d, dv, KeyRule{}, blocks, o.data(), m.data(),
                   l.data());
            for (std::size_t t = 0; t < count; ++t) {  // merge into the token's running mixture
                const std::size_t i = s0 + t * r;
                const float M_new = std::max(M[i], m[t]);
                const float old_factor = std::exp(M[i] - M_new), new_factor = l[t] * std::exp(m[t] - M_new);
                for (std::size_t c = 0; c < dv; ++c)
                    acc[i * dv + c] = acc[i * dv + c] * old_factor + o[t * dv + c] * new_factor;
                L[i] = L[i] * old_factor + new_factor;
                M[i] = M_new;
            }
        }
    }
    Matrix output = Matrix::from_shape({n, dv});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < dv; ++c) output(i, c) = acc[i * dv + c] / L[i];
    return output;
}

double exact_attention_flops(std::size_t n, std::size_t m, std::size_t d) {
    return 4.0 * static_cast<double>(n) * static_cast<double>(m) * static_cast<double>(d);
}

double sliding_window_flops(std::size_t n, std::size_t window, std::size_t d) {
    return exact_attention_flops(n, std::min(window, n), d);
}

double dilated_flops(std::size_t n, const std::vector<DilatedPair>& pairs, std::size_t d) {
    double flops = 0.0;
    for (const DilatedPair& p : pairs) {
        const std::size_t w = std::min(std::max<std::size_t>(p.segment, 1), std::max<std::size_t>(n, 1));
        const std::size_t r = std::max<std::size_t>(p.dilation, 1);
        for (std::size_t s0 = 0; s0 < n; s0 += w) {
            const std::size_t count = (std::min(s0 + w, n) - s0 + r - 1) / r;
            flops += exact_attention_flops(count, count, d);
        }
    }
    return flops;
}

std::uint64_t materialised_extra_bytes(std::size_t n, std::size_t m, std::size_t d_v) {
    return add_bytes(bytes_of_floats({n, m}), bytes_of_floats({n, d_v}));
}

std::uint64_t streaming_extra_bytes(std::size_t n, std::size_t d_v, AttentionBlocks blocks) {
    const AttentionBlocks tiles = clamped_blocks(blocks, n, n);
    // S (bq × bk), the running output (bq × d_v), m and l (bq each): as attend() allocates them
    const std::uint64_t tile = add_bytes(bytes_of_floats({tiles.q, tiles.k}), bytes_of_floats({tiles.q, d_v + 2}));
    return add_bytes(bytes_of_floats({n, d_v}), tile);
}

#if defined(__EMSCRIPTEN__)
void set_blas_threads(int) {}  // one thread, no BLAS
int blas_threads() { return 1; }
#else
void set_blas_threads(int threads) { openblas_set_num_threads(threads); }
int blas_threads() { return openblas_get_num_threads(); }
#endif
