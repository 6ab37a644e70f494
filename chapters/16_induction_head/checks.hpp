// Chapter 16 · the self-checks: the backward pass against finite differences, every head's
// weights against common/reference's causal attention in double, the KV-cached decode
// against the full forward pass, the first half against chance, and, at the default
// settings, the circuit that training finds (which head does which job, what zeroing does).
#pragma once

#include "chapters/16_induction_head/math.hpp"
#include "common/lesson/self_check.hpp"

void check_induction(SelfChecks& check, const Induction& r);
