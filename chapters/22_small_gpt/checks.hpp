// Chapter 22 · the self-checks: every head's weights against common/reference's causal attention
// in double; the logits against the KV-cached decoding of the same tokens and against the
// forward pass in double; the predictions against the logits; the round trip of the sentence;
// the curve's start against ln V; the trained model against the loss logged when it was trained.
#pragma once

#include <cstdint>
#include <string>

#include "chapters/22_small_gpt/math.hpp"
#include "common/language_model/language_model.hpp"
#include "common/lesson/self_check.hpp"

void check_language_model(SelfChecks& check, const LanguageModel& lm, const SentenceRead& s,
                          const std::u32string& sentence);

// --generate: at every token, the cache's logits = the full forward pass's over the text so far,
// and the new token's attention from the cache = the full pass's last row, head by head; the
// tokens = generate()'s with the same seed.
void check_writing(SelfChecks& check, const LanguageModel& lm, const Writing& w, double temperature, std::size_t top_k,
                   double top_p, std::uint64_t seed);
