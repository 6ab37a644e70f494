// The fixed-order product (fixed_order_product.hpp says why): every entry starts at 0 and adds
// its terms for k = 0, 1, 2, … in turn. The loops are vectorised across columns j (independent
// sums), never across k, so the order holds whatever the vector width.
#include "common/numbers/fixed_order_product.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "common/numbers/eight_floats.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/threads.hpp"

namespace fixed_order {

template <class T>
using MatrixOf = xt::xtensor<T, 2>;

namespace {

// c[i0 … i0+R) × [j0 … j0+8) of op(a) · b, b (K × m) by rows: R × 8 sums kept in
// registers while k runs, eight floats at a time (one AVX register, or two SSE ones): an
// element-wise multiply and add, so each sum still adds its k in turn. In a triangle, the
// block's rows start (from_i) or stop (up_to_i) at different k: the block's first or last
// few k add to some of its rows only.
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
COMPILED_FOR_AVX2_AND_ANY_X86_64
void product_in_blocks(Operand<float> a, const float* b, float* c, std::size_t n, std::size_t K, std::size_t m,
                       Terms terms) {
    if (terms == Terms::all) blocks<Terms::all>(a, b, c, n, K, m);
    if (terms == Terms::up_to_i) blocks<Terms::up_to_i>(a, b, c, n, K, m);
    if (terms == Terms::from_i) blocks<Terms::from_i>(a, b, c, n, K, m);
}

// ---- whole products (Terms::all) in float: packed panels, 6 × 16 sums per block ----
//
// GotoBLAS's plan, with each sum's order kept: for each run of KC terms k, the run's rows of b
// are copied into panels of 16 columns ([k][16], contiguous), and for each 6 rows of op(a) their
// run of terms into [k][6]; a block then adds those KC terms to its 6 × 16 sums (12 registers of
// eight floats, each sum waiting only for its own last addition), and stores them in c until
// the next run adds its terms. A float kept in memory between runs is the same float, so every
// entry is still 0 + term₀ + term₁ + … in turn: the numbers of the blocks above, bit for bit.
// The copies make every read of the inner loop contiguous (aᵀ read in place ran at 26 GFLOP/s
// where a ran at 41) and a run's panels stay in the caches while every row block passes them.
constexpr std::size_t block_rows = 6, block_cols = 16, run = 256;  // KC = 256 terms

// The 6 × 16 sums at c (rows `stride` apart) += the run's kc terms, ap [k][6], bp [k][16]; on
// the first run the sums start at 0 instead of being read from c.
__attribute__((always_inline)) inline void add_run(const float* __restrict ap, const float* __restrict bp,
                                                   std::size_t kc, float* __restrict c, std::size_t stride,
                                                   bool first) {
    eight_floats left[block_rows], right[block_rows];
    for (std::size_t r = 0; r < block_rows; ++r) {
        left[r] = first ? eight_floats{} : *reinterpret_cast<const eight_floats_anywhere*>(c + r * stride);
        right[r] = first ? eight_floats{} : *reinterpret_cast<const eight_floats_anywhere*>(c + r * stride + 8);
    }
    for (std::size_t k = 0; k < kc; ++k) {
        const eight_floats b0 = *reinterpret_cast<const eight_floats_anywhere*>(bp + k * block_cols);
        const eight_floats b1 = *reinterpret_cast<const eight_floats_anywhere*>(bp + k * block_cols + 8);
        for (std::size_t r = 0; r < block_rows; ++r) {
            const float a_rk = ap[k * block_rows + r];
            left[r] += a_rk * b0;
            right[r] += a_rk * b1;
        }
    }
    for (std::size_t r = 0; r < block_rows; ++r) {
        *reinterpret_cast<eight_floats_anywhere*>(c + r * stride) = left[r];
        *reinterpret_cast<eight_floats_anywhere*>(c + r * stride + 8) = right[r];
    }
}

// b (K × m) by rows, or (b_transposed) bᵀ (m × K) by rows, read in place while packing.
COMPILED_FOR_AVX2_AND_ANY_X86_64
void product_packed(Operand<float> a, const float* b, bool b_transposed, float* c, std::size_t n, std::size_t K,
                    std::size_t m) {
    const std::size_t panels = (m + block_cols - 1) / block_cols;
    // reused from call to call: a fresh large buffer is fresh pages, each a fault to the kernel
    thread_local std::vector<float> b_packed, a_packed;
    b_packed.resize(run * panels * block_cols);
    a_packed.resize(run * block_rows);
    float tile[block_rows * block_cols];  // a block at the edge of c, which holds fewer than 6 × 16
    if (K == 0) std::fill(c, c + n * m, 0.0f);
    for (std::size_t k0 = 0; k0 < K; k0 += run) {
        const std::size_t kc = std::min(run, K - k0);
        for (std::size_t p = 0; p < panels; ++p) {  // rows k0 … k0 + kc − 1 of b, 16 columns a panel (0 past m)
            float* panel = b_packed.data() + p * run * block_cols;
            if (b_transposed)  // b's column j is bᵀ's row j: read along it
                for (std::size_t j = 0; j < block_cols; ++j) {
                    const std::size_t col = p * block_cols + j;
                    for (std::size_t k = 0; k < kc; ++k) panel[k * block_cols + j] = col < m ? b[col * K + k0 + k] : 0.0f;
                }
            else
                for (std::size_t k = 0; k < kc; ++k)
                    for (std::size_t j = 0; j < block_cols; ++j) {
                        const std::size_t col = p * block_cols + j;
                        panel[k * block_cols + j] = col < m ? b[(k0 + k) * m + col] : 0.0f;
                    }
        }
        for (std::size_t i0 = 0; i0 < n; i0 += block_rows) {
            const std::size_t rows_here = std::min(block_rows, n - i0);
            const float* a_i = a.a + i0 * a.row_step + k0 * a.k_step;
            for (std::size_t k = 0; k < kc; ++k)  // op(a)'s rows i0 … i0 + 5, terms k0 …, as [k][r] (0 past n)
                for (std::size_t r = 0; r < block_rows; ++r)
                    a_packed[k * block_rows + r] = r < rows_here ? a_i[r * a.row_step + k * a.k_step] : 0.0f;
            for (std::size_t p = 0; p < panels; ++p) {
                const std::size_t j0 = p * block_cols, cols_here = std::min(block_cols, m - j0);
                const float* bp = b_packed.data() + p * run * block_cols;
                if (rows_here == block_rows && cols_here == block_cols) {  // in c itself
                    add_run(a_packed.data(), bp, kc, c + i0 * m + j0, m, k0 == 0);
                    continue;
                }
                for (std::size_t r = 0; r < block_rows; ++r)  // at an edge: through the tile
                    for (std::size_t j = 0; j < block_cols; ++j)
                        tile[r * block_cols + j] = k0 > 0 && r < rows_here && j < cols_here ? c[(i0 + r) * m + j0 + j] : 0.0f;
                add_run(a_packed.data(), bp, kc, tile, block_cols, false);
                for (std::size_t r = 0; r < rows_here; ++r)
                    for (std::size_t j = 0; j < cols_here; ++j) c[(i0 + r) * m + j0 + j] = tile[r * block_cols + j];
            }
        }
    }
}

// Every term of every entry, on packed panels. Rows cut between threads, six at a time
// (threads.hpp): an entry is one thread's sum over k in turn, whichever rows the thread has. A
// small product runs on one.
void whole_product(Operand<float> a, const float* b, bool b_transposed, float* c, std::size_t n, std::size_t K,
                   std::size_t m) {
    if (n * K * m < (std::size_t(1) << 20)) return product_packed(a, b, b_transposed, c, n, K, m);
    // one piece a thread: each piece packs b anew
    const std::size_t blocks = (n + block_rows - 1) / block_rows, count = threads::count();
    threads::split(n, [&](std::size_t begin, std::size_t end) {
        product_packed(Operand<float>{a.a + begin * a.row_step, a.row_step, a.k_step}, b, b_transposed,
                       c + begin * m, end - begin, K, m);
    }, (blocks + count - 1) / count * block_rows);
}

}  // namespace

// The float blocks, then by plain loops the columns they leave and every entry in double. Out of
// line: inlined into `product` below, GCC compiled those loops into a third more instructions
// (chapter 20 for 30 steps: 286 M where out of line 217 M).
template <class T>
__attribute__((noinline)) void product_into(Operand<T> a, const T* b, T* c, std::size_t n, std::size_t K, std::size_t m,
                  Terms terms) {
    std::size_t j_blocks = 0;  // the columns [0, j_blocks) the float blocks cover
    if constexpr (std::is_same_v<T, float>) {
        if (terms == Terms::all) return whole_product(a, b, false, c, n, K, m);
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
void product_by_transpose_into(Operand<T> a, const T* w, T* c, std::size_t n, std::size_t K, std::size_t m) {
    if constexpr (std::is_same_v<T, float>) return whole_product(a, w, true, c, n, K, m);
    std::vector<T> w_t(K * m);  // in double (the checks), wᵀ copied by rows
    for (std::size_t j = 0; j < m; ++j)
        for (std::size_t k = 0; k < K; ++k) w_t[k * m + j] = w[j * K + k];
    product_into(a, w_t.data(), c, n, K, m);
}

namespace {
template <class T>
MatrixOf<T> product(bool ta, bool tb, const MatrixOf<T>& a_in, const MatrixOf<T>& b_in) {
    const std::size_t inner_a = ta ? rows(a_in) : cols(a_in), inner_b = tb ? cols(b_in) : rows(b_in);
    if (inner_a != inner_b) throw InputError(describe("a product with inner sizes ", inner_a, " and ", inner_b));
    const std::size_t n = ta ? cols(a_in) : rows(a_in), K = inner_a, m = tb ? rows(b_in) : cols(b_in);
    const std::size_t row_step = ta ? 1 : K, k_step = ta ? cols(a_in) : 1;  // op(a)(i, k) = a[i·row_step + k·k_step]
    MatrixOf<T> c = MatrixOf<T>::from_shape({n, m});
    if (tb) product_by_transpose_into(Operand<T>{a_in.data(), row_step, k_step}, b_in.data(), c.data(), n, K, m);
    else product_into(Operand<T>{a_in.data(), row_step, k_step}, b_in.data(), c.data(), n, K, m);
    return c;
}
}  // namespace

template <class T>
MatrixOf<T> mm(const MatrixOf<T>& a, const MatrixOf<T>& b) { return product(false, false, a, b); }  // a · b
template <class T>
MatrixOf<T> mm_tn(const MatrixOf<T>& a, const MatrixOf<T>& b) { return product(true, false, a, b); }  // aᵀ · b
template <class T>
MatrixOf<T> mm_nt(const MatrixOf<T>& a, const MatrixOf<T>& b) { return product(false, true, a, b); }  // a · bᵀ

#define INSTANTIATE(T)                                                                                  \
    template void product_into(Operand<T>, const T*, T*, std::size_t, std::size_t, std::size_t, Terms); \
    template void product_by_transpose_into(Operand<T>, const T*, T*, std::size_t, std::size_t, std::size_t); \
    template MatrixOf<T> mm(const MatrixOf<T>&, const MatrixOf<T>&);                                    \
    template MatrixOf<T> mm_tn(const MatrixOf<T>&, const MatrixOf<T>&);                                 \
    template MatrixOf<T> mm_nt(const MatrixOf<T>&, const MatrixOf<T>&);
INSTANTIATE(float)
INSTANTIATE(double)
#undef INSTANTIATE

}  // namespace fixed_order
