// Matrix products whose every sum adds its terms in a fixed order: the attention-only model's
// products (chapters 16, 19 and 20 train it), the same digits on every machine.
//
// Why not OpenBLAS: it picks its kernel per processor at run time (Haswell, SkylakeX, Zen, …)
// and each kernel sums in its own order. A thousand training steps turn those last-bit
// differences into other printed numbers: on an AMD EPYC (SkylakeX kernel) chapter 16's loss at
// step 480 read 4.063 where the golden output says 4.067, and the doc's pictures moved. Here
// entry c_ij starts at 0 and adds op(a)_ik b_kj for k = 0, 1, 2, … in turn, on every machine.
// Why no fused multiply-add: it rounds a·b + c once where a multiply then an add round twice,
// so a processor with FMA would print other digits than one without. Threads (threads.hpp)
// share a large product by its rows: each entry is still one thread's sum in that order.
// What it costs: the first blocked loops (6 × 8 sums in four-float vectors) trained chapter 16's
// 1000 steps in 3.7 s of one core, against 2.4 s with OpenBLAS; eight-float vectors compiled
// for AVX2 and for any x86-64 (fixed_order_product.cpp), aᵀ read in place, brought 4000 steps
// from 13.8 s to 10.0 s. Whole products (every k) now run on packed panels, 6 × 16 sums a
// block (fixed_order_product.cpp): a GPT's training step (gpt_model.hpp, nanoGPT's char recipe)
// reaches about 86 GFLOP/s in them at one thread, 89 % of OpenBLAS's sgemm at the same shapes.
//
// op(a) is a or aᵀ, read in place: entry (i, k) at a[i·row_step + k·k_step].
#pragma once

#include <cstddef>

#include <xtensor/xtensor.hpp>

namespace fixed_order {

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

// c = op(a) · b (n × m), b (K × m) by rows, into c's n·m numbers; with a triangle of terms, c's
// entries outside it are left as they were. For float and double.
template <class T>
void product_into(Operand<T> a, const T* b, T* c, std::size_t n, std::size_t K, std::size_t m,
                  Terms terms = Terms::all);

// c = op(a) · wᵀ (n × m), w (m × K) by rows read in place (a layer's x Wᵀ with W as stored):
// the same numbers as product_into with b = wᵀ copied out, without the copy.
template <class T>
void product_by_transpose_into(Operand<T> a, const T* w, T* c, std::size_t n, std::size_t K, std::size_t m);

// a · b, aᵀ · b and a · bᵀ; an InputError when the inner sizes differ.
template <class T>
xt::xtensor<T, 2> mm(const xt::xtensor<T, 2>& a, const xt::xtensor<T, 2>& b);
template <class T>
xt::xtensor<T, 2> mm_tn(const xt::xtensor<T, 2>& a, const xt::xtensor<T, 2>& b);
template <class T>
xt::xtensor<T, 2> mm_nt(const xt::xtensor<T, 2>& a, const xt::xtensor<T, 2>& b);

// The products of one sequence's head (rows r0 … r0 + n − 1 of its (B·n × ·) matrices), each
// sum in the order of the formula:
//   scores       S = Q Kᵀ (n × n): s_ij = Σ_c q_ic k_jc, c = 0, 1, … (for every j; those after i
//                are not used), K's rows read in place; also dA = dZ Vᵀ
//   causal_rows  Z = A V (n × d_h): z_i = Σ_{j≤i} a_ij v_j, j = 0, 1, …; also dQ = dS K
//   causal_cols  dV = Aᵀ dZ (n × d_h): dv_j = Σ_{i≥j} a_ij dz_i, i = j, j + 1, …; also dK = dSᵀ Q
template <class T>
void scores(const T* q, const T* k, T* s, std::size_t n, std::size_t dh) {
    product_by_transpose_into(Operand<T>{q, dh, 1}, k, s, n, dh, n);
}
template <class T>
void causal_rows(const T* a, const T* v, T* z, std::size_t n, std::size_t dh) {
    product_into(Operand<T>{a, n, 1}, v, z, n, n, dh, Terms::up_to_i);
}
template <class T>
void causal_cols(const T* a, const T* dz, T* dv, std::size_t n, std::size_t dh) {
    product_into(Operand<T>{a, 1, n}, dz, dv, n, n, dh, Terms::from_i);
}

}  // namespace fixed_order
