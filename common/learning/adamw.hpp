// How a GPT is trained (nanoGPT's train.py, torch.optim.AdamW): Adam (adam.hpp) with weight
// decay taken out of the gradient, a learning rate that warms up then falls along a cosine,
// and the gradient clipped to a largest norm.
//
//   decay       w ← w · (1 − lr · wd)           matrices only (biases and LayerNorm's γ, β: none);
//                                               "decoupled" (Loshchilov & Hutter 2019): it does
//                                               not pass through m and v as an L2 term would
//   Adam        m ← β₁ m + (1 − β₁) g,  v ← β₂ v + (1 − β₂) g²
//               w ← w − (lr / (1 − β₁ᵗ)) · m / (√v / √(1 − β₂ᵗ) + ε)
//   schedule    step s = 0, 1, …: lr·(s + 1)/(warmup + 1) while s < warmup; then
//               min + ½(1 + cos(π·(s − warmup)/(decay_steps − warmup)))·(lr − min), min after
//               decay_steps (nanoGPT's get_lr; min = lr/10 there)
//   clipping    n = √(Σ over every gradient entry of g²) (in double); when n > max, every g ← g · max/(n + 1e-6)
//               (torch.nn.utils.clip_grad_norm_): the direction kept, the length at most max
//
// Every loop runs in a fixed order in float (the norm's sum in double): the same digits on
// every machine.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "common/numbers/threads.hpp"

struct AdamWSettings {
    float beta1 = 0.9f, beta2 = 0.99f, epsilon = 1e-8f, weight_decay = 0.1f;
};

class AdamW {
public:
    explicit AdamW(AdamWSettings settings = {}) : s_(settings) {}

    // One update of every parameter by its gradient at rate lr; decays[k] says whether
    // parameter k is decayed. The same parameters in the same order every call.
    void step(const std::vector<xt::xtensor<float, 2>*>& parameters,
              const std::vector<const xt::xtensor<float, 2>*>& gradients, const std::vector<bool>& decays,
              float lr) {
        if (m_.empty()) {
            starts_.push_back(0);
            for (const auto* p : parameters) {
                m_.emplace_back(p->size(), 0.0f);
                v_.emplace_back(p->size(), 0.0f);
                starts_.push_back(starts_.back() + p->size());
            }
        }
        ++t_;
        const float correction1 = 1.0f - std::pow(s_.beta1, float(t_));
        const float correction2 = 1.0f - std::pow(s_.beta2, float(t_));
        const float step_size = lr / correction1, root2 = std::sqrt(correction2);
        const float shrink = 1.0f - lr * s_.weight_decay;
        // every parameter's entries as one run 0, 1, …, starts_.back() − 1 (threads take pieces of
        // it; a piece may span the end of one parameter and the start of the next)
        threads::split(starts_.back(), [&](std::size_t begin, std::size_t end) {
            std::size_t k = std::size_t(std::upper_bound(starts_.begin(), starts_.end(), begin) - starts_.begin()) - 1;
            for (std::size_t at = begin; at < end; ++k) {
                const std::size_t stop = std::min(end, starts_[k + 1]);
                const float keep = decays[k] ? shrink : 1.0f;  // w · 1 is w: no decay, the same numbers
                update(parameters[k]->data(), gradients[k]->data(), m_[k].data(), v_[k].data(), at - starts_[k],
                       stop - starts_[k], keep, step_size, root2);
                at = stop;
            }
        }, 4096);
    }

    int steps_taken() const { return t_; }

private:
    // Entries [i0, i1) of one parameter w, its gradient g and its moments m, v. The settings
    // passed by value, so that the compiler knows no store changes them and runs the loop as vectors.
    void update(float* w, const float* g, float* m, float* v, std::size_t i0, std::size_t i1, float keep,
                float step_size, float root2) const {
        const float beta1 = s_.beta1, beta2 = s_.beta2, epsilon = s_.epsilon;
        for (std::size_t i = i0; i < i1; ++i) {
            w[i] *= keep;
            m[i] = beta1 * m[i] + (1.0f - beta1) * g[i];
            v[i] = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
            w[i] -= step_size * (m[i] / (std::sqrt(v[i]) / root2 + epsilon));
        }
    }

    AdamWSettings s_;
    int t_ = 0;
    std::vector<std::vector<float>> m_, v_;
    std::vector<std::size_t> starts_;  // parameter k's entries are [starts_[k], starts_[k + 1]) of the run
};

// The learning rate of step s (0, 1, …) as nanoGPT's get_lr: warmup, then cosine to min_lr at
// decay_steps, min_lr after.
inline float scheduled_learning_rate(std::size_t s, float lr, std::size_t warmup, std::size_t decay_steps,
                                     float min_lr) {
    if (s < warmup) return lr * float(s + 1) / float(warmup + 1);
    if (s >= decay_steps) return min_lr;
    const double ratio = double(s - warmup) / double(decay_steps - warmup);  // 0 → 1
    const double coefficient = 0.5 * (1.0 + std::cos(M_PI * ratio));         // 1 → 0
    return float(double(min_lr) + coefficient * double(lr - min_lr));
}

// Scales every gradient so that their global norm is at most max_norm; returns the norm
// before clipping.
inline double clip_gradient_norm(const std::vector<xt::xtensor<float, 2>*>& gradients, double max_norm = 1.0) {
    // each tensor's sum as four running sums (a fixed order, run as a vector; threads take
    // tensors), then the tensors' sums in order
    std::vector<double> sums(gradients.size());
    threads::split(gradients.size(), [&](std::size_t t0, std::size_t t1) {
        for (std::size_t t = t0; t < t1; ++t) {
            double part[4] = {0, 0, 0, 0};
            const float* x = gradients[t]->data();
            const std::size_t size = gradients[t]->size();
            std::size_t i = 0;
            for (; i + 4 <= size; i += 4)
                for (std::size_t l = 0; l < 4; ++l) part[l] += double(x[i + l]) * double(x[i + l]);
            for (std::size_t l = 0; i + l < size; ++l) part[l] += double(x[i + l]) * double(x[i + l]);
            sums[t] = (part[0] + part[1]) + (part[2] + part[3]);
        }
    });
    double squares = 0.0;
    for (const double sum : sums) squares += sum;
    const double norm = std::sqrt(squares);
    const double coefficient = max_norm / (norm + 1e-6);
    if (coefficient < 1.0)
        threads::split(gradients.size(), [&](std::size_t t0, std::size_t t1) {
            for (std::size_t t = t0; t < t1; ++t)
                for (float& x : *gradients[t]) x *= float(coefficient);
        });
    return norm;
}
