// Chapter 07 · the mathematics: multi-head attention.
//
// h attention passes side by side, each on its own slice of the projections,
// glued together and mixed by one more projection, W_O:
//
//   head_i = softmax(Q_i · K_iᵀ / √d_k) · V_i,   Q_i = X · W_Q[:, i·d_k : (i+1)·d_k]  (same for K, V)
//   MultiHead(X) = concat(head_0, …, head_{h−1}) · W_O
//
// Shapes: X (n × d_model); W_Q, W_K, W_V (d_model × h·d_k); W_O (h·d_v × d_model);
// Q_i, K_i, V_i (n × d_k); head i's weights (n × n); concat (n × h·d_v); output
// (n × d_model); d_k = d_v = d_model / h.
#pragma once

#include <cstdint>
#include <vector>

#include "common/attention/attention_weights.hpp"
#include "common/attention/multi_head.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"
#include "common/numbers/random.hpp"
#include "common/numbers/random_embeddings.hpp"

// The four projections (common/attention/attention_weights.hpp), drawn at random (seeded: the
// same on every machine): W_Q, W_K, W_V (d_model × h·d_k) each, head i owns columns
// [i·d_k, (i+1)·d_k); W_O (h·d_v × d_model), head i's output meets rows [i·d_v, (i+1)·d_v).
struct MultiHeadWeights : AttentionWeights {
    // The numbers of W_Q, W_K, W_V and W_O: 4·d_model² when h·d_k = d_model.
    std::uint64_t parameters() const { return W_Q.size() + W_K.size() + W_V.size() + W_O.size(); }
    // "head columns": which head a column of W_Q (or a row of W_O) belongs to.
    MatrixList matrices() const {
        return {{"W_Q", W_Q, "", "dimensions", "head columns"},
                {"W_K", W_K, "", "dimensions", "head columns"},
                {"W_V", W_V, "", "dimensions", "head columns"},
                {"W_O", W_O, "", "head columns", "dimensions"}};
    }
};

// One head, computed on its own copied slice of the weights.
struct OneHead {
    Matrix Q, K, V;  // (n × d_k) X · W[:, i·d_k : (i+1)·d_k]
    Matrix weights;  // (n × n)   softmax(Q · Kᵀ / √d_k)
    Matrix output;   // (n × d_v) weights · V
    std::vector<std::size_t> favourite;  // (n) per query: the key of its largest weight (argmax_of_row)
};

// Multiply-adds of one multi-head pass, from the shapes of its products:
// an (r × k) · (k × c) product costs r·k·c.
struct Cost {
    std::uint64_t projections = 0;  // X · W_Q_i, X · W_K_i, X · W_V_i
    std::uint64_t scores = 0;       // Q_i · K_iᵀ
    std::uint64_t mix = 0;          // weights_i · V_i
    std::uint64_t output = 0;       // concat · W_O
    std::uint64_t total() const { return projections + scores + mix + output; }
};

// Everything the lesson shows, computed once.
struct MultiHeadForms {
    std::size_t n = 0, d_model = 0, h = 1, d_k = 1;
    std::vector<OneHead> heads;  // h of them: the loop over heads
    Matrix concat;               // (n × h·d_v) the heads' outputs side by side
    Matrix output;               // (n × d_model) concat · W_O
    Matrix Q;                    // (n × h·d_k) X · W_Q, every head's queries at once
    Heads Q_split;               // (h × n × d_k) split_into_heads(Q)
    MultiHeadSteps split;        // the same layer with one split matrix: split, attend, concat_heads
    Matrix summed;               // (n × d_model) Σ_i head_i · W_O[i·d_v : (i+1)·d_v, :]

    // In the order the lesson shows them: each head's Q_i, K_i, V_i and output (columns
    // "head i columns", the head's slice of "head columns"), every head's weights, concat,
    // output and the one projection Q.
    MatrixList matrices() const;
};

// (n × h·d_k) → (h × n × d_k): block i is columns [i·d_k, (i+1)·d_k) of m, as PyTorch's
// m.view(n, h, d_k).transpose(0, 1): reshape to (n × h × d_k), then swap the first two axes.
Heads split_into_heads(const Matrix& m, std::size_t h);

// (h × n × d_v) → (n × h·d_v): the inverse, the heads side by side ("concat").
Matrix concat_heads(const Heads& heads);

// The whole layer, both ways.
MultiHeadForms multi_head_forms(const Matrix& X, const MultiHeadWeights& W, std::size_t h);

// The cost of h heads over n tokens of width d_model, head by head.
Cost multi_head_cost(std::size_t n, std::size_t d_model, std::size_t h);

// How much of a query's weight two heads place differently, at most over the queries:
// half the summed |difference| of two rows (0 for the same row, 1 when they share no key).
double weight_moved(const Matrix& a, const Matrix& b);
