// What a training logs beside its loss (gpt_training.hpp's probe), to watch copying appear:
//
//   induction     the largest induction score of a head of block 1 or later: its mean weight
//                 A_h[i, i − s + 1] over the queries i ≥ s of R random sequences of s = T/2
//                 tokens, each written twice (chapter 23's score, on the same R sequences);
//                 −1 for the delta rules, whose heads keep a state and no weights
//   first copy,   the mean loss on tokens 2 … s of P held-out passages of s tokens spread evenly,
//   second copy   each written twice: on the first copy, then on the second (chapter 23's test)
//
// A model that copies reads the second copy from the first: its second-copy loss falls below
// the first's, and an induction head's score rises, in a phase change (Olsson et al. 2022).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/gpt/gpt_model.hpp"

constexpr std::size_t probe_sequences = 40, probe_passages = 40;  // R and P, chapter 23's defaults
constexpr std::uint64_t probe_seed = 1;                           // of the random sequences

// {induction, first copy, second copy} (the induction score is 0 for a model of one block).
std::vector<double> copying_probe(const Gpt<float>& model, const Tokens& held_out);

// The R random sequences of s tokens (token ids uniform in the vocabulary, from Random(seed)).
std::vector<Tokens> random_halves(std::size_t vocab, std::size_t count, std::size_t s, std::uint64_t seed);
