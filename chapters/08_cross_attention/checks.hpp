// Chapter 08 · the self-checks: each claim of the lesson against something computed
// another way (the reference loops in double of common/reference, one decoder token at
// a time over m ≠ n encoder tokens; the reversed columns; the words of the sentences).
#pragma once

#include <string>

#include "chapters/08_cross_attention/math.hpp"
#include "common/lesson/self_check.hpp"

// english: the encoder's tokens, french: the decoder's; own_states: read from
// --encoder/--decoder files, not looked up in data/translation/; alignment_text: what
// the alignment step says, whose quoted words must be words of the two sentences.
void check_cross_attention(SelfChecks& check, const Labels& english, const Labels& french, bool own_states,
                           const CrossAttention& r, const std::string& alignment_text);
