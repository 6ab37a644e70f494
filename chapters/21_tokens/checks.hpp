// Chapter 21 · the self-checks: each claim of the lesson against something computed another
// way (the merges recounted from scratch, the merges applied in order, the text decoded).
#pragma once

#include <cstddef>
#include <string>

#include "chapters/21_tokens/math.hpp"
#include "chapters/21_tokens/reading.hpp"
#include "common/lesson/self_check.hpp"

void check_tokens(SelfChecks& check, const Reading& reading, const Tokenizer& tokenizer, std::size_t vocab,
                  const TokensResult& r, const std::u32string& text, const std::u32string& held_out);
