// Embeddings for a sentence without a table: one random row per distinct word, so
// that a repeated word ("the … the") has the same embedding, as a lookup would give.
#pragma once

#include "common/numbers/matrix.hpp"
#include "common/numbers/random.hpp"

// (n × d_model): row i is the embedding of tokens[i], drawn from N(0, 1) the first
// time its word is met.
Matrix random_embeddings(const Labels& tokens, std::size_t d_model, Random& random);
