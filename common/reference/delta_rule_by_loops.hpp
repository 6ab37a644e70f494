// The delta rule (DeltaNet: Schlag et al. 2021; Yang et al. 2024) and its gated form (Gated
// DeltaNet: Yang et al. 2025) written out as loops in double, token by token: the reference
// that chapter 19's state updates are compared with.
//
//   S_0 = 0 (d_k × d_v)
//   S_t = α_t S_{t−1} + β_t k_t (v_t − α_t S_{t−1}ᵀ k_t)ᵀ      "write the error, not the value"
//   o_t = S_tᵀ q_t                                              (d_v)
//
// α_t = 1 for every t is the delta rule; β_t = 1 and a unit key k_t make S_tᵀ k_t = v_t
// exactly. Q, K (n × d_k), V (n × d_v); beta and alpha hold n numbers each (alpha empty:
// all 1). The keys are used as given: the caller normalises them.
#pragma once

#include <vector>

#include "common/numbers/matrix.hpp"

struct DeltaRuleByLoops {
    Matrix output;  // (n × d_v) o_t = S_tᵀ q_t
    Matrix state;   // (d_k × d_v) S_n, after the last token
};

DeltaRuleByLoops delta_rule_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, const std::vector<double>& beta,
                                     const std::vector<double>& alpha = {});
