// Copying, measured (Olsson et al. 2022): sequences written twice, and what a model does on the
// second copy. Chapter 23 measures with these, and every training logs them (the probe):
//
//   induction score  a head's mean weight A_h[i, i − s + 1] over the queries i = s … 2s − 1 of
//                    sequences of s tokens each written twice: the token after the earlier copy
//                    (on R random sequences of s = T/2 tokens, uniform ids from Random(seed))
//   first copy,      the mean loss on tokens 2 … s of P held-out passages of s tokens spread
//   second copy      evenly, each written twice: on the first copy, then on the second
//
// A model that copies reads the second copy from the first: its second-copy loss falls below
// the first's, and an induction head's score rises, in a phase change.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/gpt/gpt_model.hpp"

constexpr std::size_t probe_sequences = 40, probe_passages = 40;  // R and P, chapter 23's defaults
constexpr std::uint64_t probe_seed = 1;                           // of the random sequences

// `count` random sequences of s tokens (ids uniform in the vocabulary, from Random(seed)).
std::vector<Tokens> random_halves(std::size_t vocab, std::size_t count, std::size_t s, std::uint64_t seed);
// At most `count` passages of s held-out tokens, passage p starting at s·⌊p·all/P⌋ (all = n / s).
std::vector<Tokens> held_out_halves(const Tokens& held_out, std::size_t count, std::size_t s);
// Each sequence followed by itself (2s tokens).
std::vector<Tokens> doubled(const std::vector<Tokens>& halves);

// Every head's induction score on `sequences` (each of 2s tokens, written twice), heads
// `replaced` as gpt_forward takes them: [l·H + h]; 0 for heads without weights (the delta rules).
std::vector<double> induction_scores(const Gpt<float>& model, const std::vector<Tokens>& sequences,
                                     const std::vector<HeadReplacement<float>>& replaced = {});
// {first copy, second copy} of `passages` (each of 2s tokens, written twice), in double.
std::array<double, 2> copy_losses(const Gpt<float>& model, const std::vector<Tokens>& passages,
                                  const std::vector<HeadReplacement<float>>& replaced = {});

// What a training logs: {the largest induction score of a head of block 1 or later (0 with one
// block; −1 for the delta rules, whose heads keep a state and no weights), first copy, second
// copy}, on R = probe_sequences random sequences and P = probe_passages held-out passages.
std::vector<double> copying_probe(const Gpt<float>& model, const Tokens& held_out);
