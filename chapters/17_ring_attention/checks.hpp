// Chapter 17 · the self-checks, on rank 0: both rings' outputs against chapter 10's
// materialised attention and common/reference's attention in double (causal when the ring
// is), each rank's final m and ℓ against common/reference's softmax statistics, the pairs,
// bytes and buffers against independent counts, and what striping does to causal work.
#pragma once

#include "chapters/17_ring_attention/math.hpp"
#include "chapters/17_ring_attention/ring.hpp"
#include "common/lesson/self_check.hpp"

void check_ring(SelfChecks& check, const RingInputs& in, const Rings& rings, bool causal,
                const CausalBalance& balance);
