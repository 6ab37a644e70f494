// The fixed-order products (common/numbers/fixed_order_product.hpp) against the plain loop of
// their definition, bit for bit: every entry starts at 0 and adds op(a)_ik · b_kj for
// k = 0, 1, 2, … in turn, whatever the blocks, panels and runs of terms the kernel uses.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "common/numbers/fixed_order_product.hpp"
#include "common/numbers/random.hpp"
#include "common/numbers/threads.hpp"

namespace {

// c = op(a) · b by the definition, one entry at a time.
std::vector<float> product_by_definition(const fixed_order::Operand<float>& a, const std::vector<float>& b,
                                         std::size_t n, std::size_t K, std::size_t m) {
    std::vector<float> c(n * m);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j) {
            float sum = 0.0f;
            for (std::size_t k = 0; k < K; ++k) sum += a.a[i * a.row_step + k * a.k_step] * b[k * m + j];
            c[i * m + j] = sum;
        }
    return c;
}

}  // namespace

TEST_CASE("fixed-order products equal the definition's loop bit for bit, a and aᵀ, every edge") {
    Random rng(11);
    // rows past a block of 6, columns past a panel of 16, terms past a run of 256, and none
    for (std::size_t n : {1u, 5u, 6u, 13u, 64u})
        for (std::size_t K : {0u, 1u, 7u, 256u, 300u})
            for (std::size_t m : {1u, 8u, 17u, 81u})
                for (bool transposed : {false, true}) {
                    std::vector<float> a(n * K), b(K * m), c(n * m, 42.0f);
                    for (float& x : a) x = rng.normal();
                    for (float& x : b) x = rng.normal();
                    // a by rows (n × K), or the same op(a) stored as aᵀ (K × n) and read in place
                    const fixed_order::Operand<float> op = transposed ? fixed_order::Operand<float>{a.data(), 1, n}
                                                                      : fixed_order::Operand<float>{a.data(), K, 1};
                    fixed_order::product_into(op, b.data(), c.data(), n, K, m);
                    INFO("n ", n, ", K ", K, ", m ", m, transposed ? ", aᵀ" : "");
                    CHECK(c == product_by_definition(op, b, n, K, m));
                }
}

TEST_CASE("a product by a transpose read in place equals the product by the transpose copied out, bit for bit") {
    Random rng(12);
    for (std::size_t count : {1u, 3u}) {  // a large product is split between the threads
    threads::set_count(count);
    for (std::size_t n : {1u, 6u, 13u, 64u, 768u})
        for (std::size_t K : {0u, 1u, 32u, 300u})
            for (std::size_t m : {1u, 17u, 81u, 384u}) {
                std::vector<float> a(n * K), w(m * K), w_t(K * m), c(n * m, 42.0f);
                for (float& x : a) x = rng.normal();
                for (float& x : w) x = rng.normal();
                for (std::size_t j = 0; j < m; ++j)
                    for (std::size_t k = 0; k < K; ++k) w_t[k * m + j] = w[j * K + k];
                const fixed_order::Operand<float> op{a.data(), K, 1};
                fixed_order::product_by_transpose_into(op, w.data(), c.data(), n, K, m);
                INFO("n ", n, ", K ", K, ", m ", m, ", ", count, " threads");
                CHECK(c == product_by_definition(op, w_t, n, K, m));
            }
    }
    threads::set_count(1);
}
