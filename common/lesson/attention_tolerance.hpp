// How far attention computed in float32 may lie from the same attention summed in
// double (a loop form), for inputs of any size.
//
// A score q_i · k_j / √d_k adds d_k products; in float each addition may round by
// FLT_EPSILON of the terms' sizes, so a score may be off by about
//   δ = d_k · FLT_EPSILON · max_ij Σ_d |q_id| |k_jd| / √d_k.
// The softmax moves no weight by more than δ, and the whole row by at most 2δ
// (‖Δw‖₁ ≤ 2 ‖Δs‖∞), so an output row moves by at most 2δ · max |v|. On top comes
// the rounding of the float sums over the m keys, m · FLT_EPSILON, and a floor of
// 1e-5. With scores of size 1 (the chapters' data) the tolerances are 1e-5 and
// 1e-5 · max(1, max |V|): a missing factor like the √d_k is far above them.
#pragma once

#include "common/numbers/matrix.hpp"

struct AttentionTolerance {
    double weights;  // per weight
    double output;   // per entry of the output
};

// Q (n × d_k), K (m × d_k), V (m × d_v).
AttentionTolerance attention_tolerance(const Matrix& Q, const Matrix& K, const Matrix& V);
