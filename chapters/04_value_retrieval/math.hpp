// Chapter 04 · the mathematics: value retrieval.
//
// Attention is a lookup. A query is compared with keys, but what comes back is
// values (a phonebook: you find a person by who they are, the key, and get back
// their phone number, the value). The two need not have the same width.
//
//   hard lookup:  answer = values[argmax_j (q · k_j)]           exactly one row
//   soft lookup:  answer = Σ_j w_j v_j,  w = softmax(q · Kᵀ / T)  a blend of every row
//
// A low temperature T turns the soft lookup into the hard one. On a sentence,
// every token looks the others up: output = softmax(X · Xᵀ / √d_model / T) · X
// (V = X until chapter 05 learns V).
//
// Shapes: phonebook keys (m × d_k), values (m × d_v), queries (q × d_k); scores
// and weights (q × m); answers (q × d_v). X (n × d_model), sentence weights
// (n × n), output (n × d_model).
#pragma once

#include <string>
#include <vector>

#include "common/numbers/input_error.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// Both lookups of a set of queries in a phonebook.
struct Lookup {
    Matrix scores;         // (q × m)   queries · keysᵀ
    Matrix hard_weights;   // (q × m)   one-hot rows: 1 at the argmax of each row of scores
    Matrix hard;           // (q × d_v) hard_weights · values: one row of values each
    Matrix weights;        // (q × m)   softmax(scores / T), rows sum to 1
    Matrix soft;           // (q × d_v) weights · values, one matrix product
    Matrix soft_by_loops;  // (q × d_v) Σ_j weights[i, j] · values[j], the loop
    std::vector<std::size_t> best;  // q: each query's best key (the first on a tie)
    std::vector<std::size_t> tied;  // the queries whose best score is shared by another key
};

// A query sliding in a straight line from one key to another, in path_steps steps.
constexpr std::size_t path_steps = 10;
struct Path {
    std::size_t from = 0, to = 0;  // the keys it starts and ends at
    Matrix queries;                // (11 × d_k) q(t) = (1 − t)·k_from + t·k_to, t = 0, 0.1, …, 1
    Matrix scores;                 // (11 × m)
    Matrix weights;                // (11 × m)   softmax(scores / T)
    Matrix soft;                   // (11 × d_v) weights · values
    Matrix hard_weights;           // (11 × m)   one-hot at each q(t)'s best key
    Matrix hard;                   // (11 × d_v) the hard lookup of each q(t)
    std::vector<float> soft_step;  // ‖soft_s − soft_(s−1)‖ (0 for s = 0): how far the answer moved
    std::vector<float> hard_step;  // the same for the hard answer
    float largest_soft_step = 0.0f, largest_hard_step = 0.0f;
    std::size_t jump = 0;          // the step where the hard answer moves most (0: it never moves)
};

// The soft lookup at several temperatures, hottest first.
struct TemperatureSweep {
    std::vector<float> temperatures;  // 2 … 0.01, and the chosen T
    Matrix best_weight;               // (temperatures × q) the weight on each query's best key
    Matrix distance;                  // (temperatures × q) ‖soft answer − hard answer‖
};

// " / T" for a temperature other than 1, as the formulas print it.
inline std::string over_temperature(float temperature) {
    return temperature == 1.0f ? "" : describe(" / ", temperature);
}

// The sentence looks itself up: queries, keys and values are all X.
struct SentenceLookup {
    float temperature = 1.0f;
    Matrix weights;             // (n × n)       softmax(X · Xᵀ / √d_model / T)
    Matrix output;              // (n × d_model) weights · X, one context vector per token
    std::vector<std::size_t> best_key;  // n: the key of each row's largest weight
    float mean_largest = 0.0f;          // the largest weight of a row, on average

    MatrixList matrices() const {
        return {{"weights", weights, "softmax(X · Xᵀ / √d_model" + over_temperature(temperature) + ")", "tokens",
                 "tokens", MatrixKind::attention_weights},
                {"output", output, "weights · V, with V = X", "tokens", "dimensions"}};
    }
};

// Everything the lesson shows, computed once.
struct ValueRetrieval {
    float temperature = 1.0f;
    Matrix keys, values, queries;  // the phonebook as given: (m × d_k), (m × d_v), (q × d_k)
    Lookup book;
    std::size_t blend = 0;     // the query whose two best keys are closest (not tied); q when none is
    Path path;                 // from that query's best key to its second best
    TemperatureSweep sweep;
    SentenceLookup sentence;

    // The phonebook's, in the order the lesson shows them; the loop's answer, the path
    // and the sweep are not printed as matrices (--dump writes them). Labels: "people"
    // (the keys' rows), "key columns", "value columns", "queries", "path steps", "temperatures".
    MatrixList matrices() const {
        const std::string T = over_temperature(temperature);
        return {{"phonebook_keys", keys, "", "people", "key columns"},
                {"phonebook_values", values, "", "people", "value columns"},
                {"phonebook_queries", queries, "", "queries", "key columns"},
                {"phonebook_scores", book.scores, "queries · keysᵀ", "queries", "people", MatrixKind::scores},
                {"phonebook_hard_weights", book.hard_weights, "1 at argmax of each row of scores", "queries",
                 "people", MatrixKind::attention_weights},
                {"phonebook_hard", book.hard, "phonebook_hard_weights · values", "queries", "value columns"},
                {"phonebook_weights", book.weights, "softmax(phonebook_scores" + T + ")", "queries", "people",
                 MatrixKind::attention_weights},
                {"phonebook_output", book.soft, "phonebook_weights · values", "queries", "value columns"},
                {"phonebook_soft_by_loops", book.soft_by_loops, "Σ_j phonebook_weights[i, j] · values[j]", "queries",
                 "value columns"},
                {"path_queries", path.queries, "(1 − t)·k_from + t·k_to", "path steps", "key columns"},
                {"path_scores", path.scores, "path_queries · keysᵀ", "path steps", "people", MatrixKind::scores},
                {"path_weights", path.weights, "softmax(path_scores" + T + ")", "path steps", "people",
                 MatrixKind::attention_weights},
                {"path_soft", path.soft, "path_weights · values", "path steps", "value columns"},
                {"path_hard_weights", path.hard_weights, "1 at argmax of each row of path_scores", "path steps",
                 "people", MatrixKind::attention_weights},
                {"path_hard", path.hard, "path_hard_weights · values", "path steps", "value columns"},
                {"temperature_best_weight", sweep.best_weight, "the weight on each query's best key", "temperatures",
                 "queries"},
                {"temperature_distance", sweep.distance, "‖soft answer − hard answer‖", "temperatures", "queries"}};
    }
};

// One-hot rows: 1 at each row's largest score (the first on a tie), 0 elsewhere. (q × m)
Matrix one_hot_of_best(const Matrix& scores);

// Σ_j weights[i, j] · values[j] for every query i, as loops. (q × m), (m × d_v) → (q × d_v)
Matrix blend_by_loops(const Matrix& weights, const Matrix& values);

// scores / T; InputError when T is so small that a score overflows float.
Matrix divide_by_temperature(const Matrix& scores, float temperature);

// softmax(scores / T) · values. (q × m), (m × d_v) → (q × d_v)
Matrix soft_lookup(const Matrix& scores, const Matrix& values, float temperature);

// How far the best entry of row i leads the second best (0 on a tie, ∞ with one column).
float lead_in_row(const Matrix& m, std::size_t i);

// ‖a_i − b_j‖, the Euclidean distance between row i of a and row j of b, summed in double.
float row_distance(const Matrix& a, std::size_t i, const Matrix& b, std::size_t j);

// Both lookups of the phonebook, the path, the temperatures, and the sentence X.
ValueRetrieval value_retrieval(const Matrix& keys, const Matrix& values, const Matrix& queries, const Matrix& X,
                               float temperature);
