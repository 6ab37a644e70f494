// Tokens as a learner reads them on screen: a space as ␣ and a newline as ⏎, so that " cat" and
// "cat" are told apart, and a list of tokens between bars: |The|␣cat|␣sat|.
#pragma once

#include <string>
#include <vector>

#include "common/math/tokenizer.hpp"

std::string visible_symbol(const std::u32string& symbol);

// The ids' symbols between bars.
std::string bars(const Tokenizer& tokenizer, const TokenIds& ids);
