// Milliseconds per training step of the GPT (common/gpt/gpt_training.hpp) at nanoGPT's
// char recipe (V 81, T 64, B 12, L 4, H 4, d 128), on one thread or N: the whole step, then
// where its time goes (forward, loss, backward, clipping and AdamW), and the rate of its matrix
// products (fixed_order::product_into at the step's shapes) against OpenBLAS's sgemm at the
// same shapes.
//
//   cmake --build build/release --target gpt_step_bench
//   OPENBLAS_NUM_THREADS=1 build/release/bench/gpt_step_bench [STEPS] [--steps-only] [--threads N]
//
// (--steps-only: the steps and nothing else, for a profiler or bench/gpt_side_by_side, with the
// median processor time of a step, every thread's, beside its wall times.) On a busy machine
// the fastest step and the processor time say most about the code: the other steps waited for
// other processes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cblas.h>
#include <time.h>

#include "common/gpt/gpt_training.hpp"
#include "common/numbers/fixed_order_product.hpp"
#include "common/numbers/random.hpp"
#include "common/numbers/threads.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Milliseconds of processor time the program's threads have used (time spent waiting for a core
// not counted).
double processor_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

// A product c (n × m) = op(a) (n × K) · b (K × m) of the step, and how many times a step takes it.
struct Shape {
    const char* what;
    std::size_t n, K, m, count;
    bool a_transposed;
};

// The step's products: forward, then backward (dW = dyᵀ x reads a transposed; dx = dy W).
std::vector<Shape> step_products(const GptConfig& c, std::size_t B) {
    const std::size_t N = B * c.context, d = c.d_model, L = c.layers, T = c.context, dh = d / c.heads;
    const std::size_t heads = B * c.heads * L;  // (sequence, head) pairs of the step
    return {
        {"c_attn   x·Wᵀ", N, d, 3 * d, L, false},   {"c_proj   x·Wᵀ", N, d, d, L, false},
        {"c_fc     x·Wᵀ", N, d, 4 * d, L, false},   {"mlp_proj x·Wᵀ", N, 4 * d, d, L, false},
        {"lm_head  x·wteᵀ", N, d, c.vocab, 1, false},
        {"c_attn   dyᵀ·x", 3 * d, N, d, L, true},   {"c_attn   dy·W", N, 3 * d, d, L, false},
        {"c_proj   dyᵀ·x", d, N, d, L, true},       {"c_proj   dy·W", N, d, d, L, false},
        {"c_fc     dyᵀ·x", 4 * d, N, d, L, true},   {"c_fc     dy·W", N, 4 * d, d, L, false},
        {"mlp_proj dyᵀ·x", d, N, 4 * d, L, true},   {"mlp_proj dy·W", N, d, 4 * d, L, false},
        {"lm_head  dlᵀ·x", c.vocab, N, d, 1, true}, {"lm_head  dl·wte", N, c.vocab, d, 1, false},
        {"attn     q·kᵀ", T, dh, T, heads, false},  {"attn     dz·vᵀ", T, dh, T, heads, false},
        // A·V, Aᵀ·dZ, dS·K, dSᵀ·Q: triangles, counted whole below as the other libraries compute them
        {"attn     A·v (causal)", T, T, dh, 4 * heads, false},
    };
}

double flops(const Shape& s) { return 2.0 * double(s.n) * double(s.K) * double(s.m) * double(s.count); }

// ms for `repeat` rounds of every product of the step, by the fixed-order kernel or by sgemm.
double time_products(const std::vector<Shape>& shapes, bool blas, int repeat) {
    std::vector<std::vector<float>> a, b, c;
    Random rng(3);
    for (const Shape& s : shapes) {
        a.emplace_back(s.n * s.K), b.emplace_back(s.K * s.m), c.emplace_back(s.n * s.m);
        for (float& x : a.back()) x = rng.normal();
        for (float& x : b.back()) x = rng.normal();
    }
    const Clock::time_point t0 = Clock::now();
    for (int r = 0; r < repeat; ++r)
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            const Shape& s = shapes[i];
            for (std::size_t k = 0; k < s.count; ++k) {
                if (blas)
                    cblas_sgemm(CblasRowMajor, s.a_transposed ? CblasTrans : CblasNoTrans, CblasNoTrans, int(s.n), int(s.m),
                                int(s.K), 1.0f, a[i].data(), s.a_transposed ? int(s.n) : int(s.K), b[i].data(), int(s.m),
                                0.0f, c[i].data(), int(s.m));
                else
                    fixed_order::product_into(fixed_order::Operand<float>{a[i].data(), s.a_transposed ? 1 : s.K,
                                                                          s.a_transposed ? s.n : 1},
                                              b[i].data(), c[i].data(), s.n, s.K, s.m);
            }
        }
    return ms_since(t0) / repeat;
}

}  // namespace

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::atoi(argv[1]) : 30;
    if (steps < 1) {
        std::fprintf(stderr, "gpt_step_bench: STEPS must be a whole number ≥ 1, got '%s'\n", argv[1]);
        return 2;
    }
    bool steps_only = false;
    int thread_count = 1;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--steps-only") steps_only = true;
        else if (arg == "--threads" && i + 1 < argc && std::atoi(argv[i + 1]) >= 1) thread_count = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "gpt_step_bench: unknown argument '%s' (expected --steps-only or --threads N, N ≥ 1)\n",
                         argv[i]);
            return 2;
        }
    }
    threads::set_count(std::size_t(thread_count));
    const GptConfig config{81, 64, 4, 4, 128};
    const std::size_t B = 12;
    Gpt<float> model = fresh_gpt(config, 1);
    GptTrainer trainer;
    Random rng(2);
    std::vector<Tokens> inputs(B, Tokens(config.context)), targets = inputs;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < config.context; ++i)
            inputs[b][i] = std::size_t(rng.uniform() * 81), targets[b][i] = std::size_t(rng.uniform() * 81);

    for (int s = 0; s < 3; ++s) trainer.step(model, inputs, targets, 1e-3f);  // warm up
    std::vector<double> whole, processor;
    double loss = 0;
    for (int s = 0; s < steps; ++s) {
        const Clock::time_point t0 = Clock::now();
        const double p0 = processor_ms();
        loss = trainer.step(model, inputs, targets, 1e-3f).loss;
        whole.push_back(ms_since(t0));
        processor.push_back(processor_ms() - p0);
    }
    std::sort(whole.begin(), whole.end());
    std::sort(processor.begin(), processor.end());
    if (steps_only) {
        std::printf("%d steps: fastest %.2f ms, median %.2f ms, median processor time %.2f ms\n", steps, whole.front(),
                    whole[whole.size() / 2], processor[processor.size() / 2]);
        return 0;
    }
    const double median = whole[whole.size() / 2];

    // the parts, each timed on its own over the same steps (the fastest of each)
    double forward_ms = 1e9, loss_ms = 1e9, backward_ms = 1e9, update_ms = 1e9;
    const auto keep_fastest = [](double& fastest, Clock::time_point& t0) {
        fastest = std::min(fastest, ms_since(t0));
        t0 = Clock::now();
    };
    GptForward<float> f;  // the trainer's steps, pass by pass, in buffers kept as it keeps them
    Gpt<float> g;
    GptBackwardBuffers<float> buffers;
    Mat<float> d_logits;
    AdamW optimiser;
    for (int s = 0; s < steps; ++s) {
        Clock::time_point t0 = Clock::now();
        gpt_forward_into(model, inputs, f);
        keep_fastest(forward_ms, t0);
        gpt_loss(f, targets, &d_logits);
        keep_fastest(loss_ms, t0);
        gpt_backward_into(model, inputs, f, d_logits, g, buffers);
        keep_fastest(backward_ms, t0);
        std::vector<Mat<float>*> p, gp;
        std::vector<const Mat<float>*> gr;
        std::vector<bool> decays;
        for (const auto& x : named_parameters(model)) p.push_back(x.tensor), decays.push_back(!x.vector);
        for (const auto& x : named_parameters(g)) gp.push_back(x.tensor), gr.push_back(x.tensor);
        clip_gradient_norm(gp, 1.0);
        optimiser.step(p, gr, decays, 1e-3f);
        keep_fastest(update_ms, t0);
    }
    const std::vector<Shape> shapes = step_products(config, B);
    double total_flops = 0;
    for (const Shape& s : shapes) total_flops += flops(s);
    double ours_ms = 1e9, blas_ms = 1e9;  // the fastest of five rounds each
    for (int r = 0; r < 5; ++r)
        ours_ms = std::min(ours_ms, time_products(shapes, false, 1)), blas_ms = std::min(blas_ms, time_products(shapes, true, 1));

    std::printf("GPT training step, V 81, T 64, B 12, L 4, H 4, d 128, %d thread%s (%d steps, loss %.4f)\n",
                thread_count, thread_count == 1 ? "" : "s", steps, loss);
    std::printf("  step                     %7.2f ms fastest, %.2f median, %.2f slowest\n", whole.front(), median,
                whole.back());
    std::printf("  forward                  %7.2f ms\n", forward_ms);
    std::printf("  loss and d_logits        %7.2f ms\n", loss_ms);
    std::printf("  backward                 %7.2f ms\n", backward_ms);
    std::printf("  clipping and AdamW       %7.2f ms\n", update_ms);
    std::printf("  the step's products: %.2f GFLOP (triangles counted whole)\n", total_flops * 1e-9);
    std::printf("    fixed order            %7.2f ms   %5.1f GFLOP/s\n", ours_ms, total_flops / ours_ms * 1e-6);
    std::printf("    OpenBLAS sgemm         %7.2f ms   %5.1f GFLOP/s   (fixed order reaches %.0f %%)\n", blas_ms,
                total_flops / blas_ms * 1e-6, 100.0 * blas_ms / ours_ms);
    std::printf("  per shape (fixed order against sgemm, GFLOP/s):\n");
    for (const Shape& s : shapes) {
        const double o = time_products({s}, false, 5), b = time_products({s}, true, 5);
        std::printf("    %-22s (%4zu × %4zu)·(%4zu × %4zu) ×%-4zu %6.1f %6.1f\n", s.what, s.n, s.K, s.K, s.m, s.count,
                    flops(s) / o * 1e-6, flops(s) / b * 1e-6);
    }
    return 0;
}
