// Adam (Kingma & Ba 2015): gradient descent with a step size per entry.
//
//   m ← β₁ m + (1 − β₁) g          a running mean of the gradient (momentum)
//   v ← β₂ v + (1 − β₂) g²         a running mean of its square
//   m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ)   both start at 0: undo that bias
//   W ← W − lr · m̂ / (√v̂ + ε)
//
// m̂ / √v̂ is about ±1 for an entry whose gradient keeps its sign, whatever the
// gradient's size, so every entry moves by about lr per step: small gradients
// are not left behind, large ones do not overshoot.
#pragma once

#include <cmath>
#include <vector>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>

#include "common/numbers/matrix.hpp"

class Adam {
public:
    explicit Adam(float lr, float beta1 = 0.9f, float beta2 = 0.999f, float epsilon = 1e-8f)
        : lr_(lr), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {}

    // One update of every parameter by its gradient (same order every call).
    void step(const std::vector<Matrix*>& parameters, const std::vector<const Matrix*>& gradients) {
        if (m_.empty())
            for (const Matrix* p : parameters) {
                m_.push_back(xt::zeros<float>(p->shape()));
                v_.push_back(xt::zeros<float>(p->shape()));
            }
        ++t_;
        const float correction1 = 1.0f - std::pow(beta1_, static_cast<float>(t_));
        const float correction2 = 1.0f - std::pow(beta2_, static_cast<float>(t_));
        for (std::size_t k = 0; k < parameters.size(); ++k) {  // whole matrices at once (chapter 11: a loop)
            const Matrix& g = *gradients[k];
            Matrix &w = *parameters[k], &m = m_[k], &v = v_[k];
            xt::noalias(m) = beta1_ * m + (1.0f - beta1_) * g;
            xt::noalias(v) = beta2_ * v + (1.0f - beta2_) * g * g;
            xt::noalias(w) -= lr_ * (m / correction1) / (xt::sqrt(v / correction2) + epsilon_);
        }
    }

    // The step size from the next step on (a schedule lowers it as training ends).
    void set_learning_rate(float lr) { lr_ = lr; }

private:
    float lr_, beta1_, beta2_, epsilon_;
    int t_ = 0;
    std::vector<Matrix> m_, v_;
};
