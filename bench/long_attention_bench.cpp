// Benchmarks of the attention kernels in common/long_context/long_attention.hpp: one head,
// d = 64, float32, n from 512 to 16 384, with a square sgemm as the yardstick
// of what this processor's matrix multiply reaches.
//
//   FLOP/s = the work / the time, where the work of the exact kernels is
//   4·n²·d (Q·Kᵀ and P·V, 2 FLOPs per multiply–add), and of the sparse ones
//   the same count over the keys each query actually sees.
//
// bench/run sets OPENBLAS_NUM_THREADS=1 (one core, for us and for numpy alike).
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

#include "common/long_context/long_attention.hpp"
#include "common/numbers/random.hpp"

namespace {

constexpr std::size_t d = 64;
constexpr std::size_t window = 256;
const std::vector<DilatedPair> pairs = {{256, 1}, {1024, 4}, {4096, 16}};

// The same inputs as bench/numpy_reference.py: seeds 1, 2, 3 for Q, K, V.
struct Inputs {
    Matrix Q, K, V;
    explicit Inputs(std::size_t n)
        : Q(Random(1).normal_matrix(n, d)), K(Random(2).normal_matrix(n, d)), V(Random(3).normal_matrix(n, d)) {}
};

void report(benchmark::State& state, double flops) {
    state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["n"] = static_cast<double>(state.range(0));
}

void BM_materialised(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const Inputs in(n);
    for (auto _ : state) benchmark::DoNotOptimize(materialised_attention(in.Q, in.K, in.V).data());
    report(state, exact_attention_flops(n, n, d));
}

void BM_streaming(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const Inputs in(n);
    for (auto _ : state) benchmark::DoNotOptimize(streaming_attention(in.Q, in.K, in.V).data());
    report(state, exact_attention_flops(n, n, d));
}

void BM_sliding_window(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const Inputs in(n);
    for (auto _ : state) benchmark::DoNotOptimize(sliding_window_attention(in.Q, in.K, in.V, window).data());
    report(state, sliding_window_flops(n, window, d));
}

void BM_dilated(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const Inputs in(n);
    for (auto _ : state) benchmark::DoNotOptimize(dilated_attention(in.Q, in.K, in.V, pairs).data());
    report(state, dilated_flops(n, pairs, d));
}

// The yardstick: C = A · B for square (n × n) matrices, 2·n³ FLOPs.
void BM_sgemm(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const Matrix A = Random(4).normal_matrix(n, n), B = Random(5).normal_matrix(n, n);
    Matrix C = Matrix::from_shape({n, n});
    const int k = static_cast<int>(n);
    for (auto _ : state) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, k, k, k, 1.0f, A.data(), k, B.data(), k, 0.0f,
                    C.data(), k);
        benchmark::DoNotOptimize(C.data());
    }
    report(state, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
}

}  // namespace

BENCHMARK(BM_sgemm)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_materialised)->RangeMultiplier(2)->Range(512, 16384)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_streaming)->RangeMultiplier(2)->Range(512, 16384)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sliding_window)->RangeMultiplier(2)->Range(512, 16384)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_dilated)->RangeMultiplier(2)->Range(512, 16384)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
