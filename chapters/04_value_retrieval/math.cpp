#include "chapters/04_value_retrieval/math.hpp"

#include <algorithm>
#include <cmath>

#include "common/attention/softmax.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

// scores (q × m) → (q × m); the hard lookup's weights.
Matrix one_hot_of_best(const Matrix& scores) {
    Matrix one_hot = xt::zeros<float>(scores.shape());
    // ┌ exercise hard-lookup
    for (std::size_t i = 0; i < rows(scores); ++i) {
        std::size_t best = 0;  // argmax of row i: a later key must score strictly higher to win
        for (std::size_t j = 1; j < cols(scores); ++j)
            if (scores(i, j) > scores(i, best)) best = j;
        one_hot(i, best) = 1.0f;
    }
    // └ stub: one_hot.fill(0.0f);
    return one_hot;
}

// weights (q × m), values (m × d_v) → (q × d_v)
Matrix blend_by_loops(const Matrix& weights, const Matrix& values) {
    Matrix answers = Matrix::from_shape({rows(weights), cols(values)});
    // ┌ exercise soft-lookup
    for (std::size_t i = 0; i < rows(weights); ++i)      // each query …
        for (std::size_t d = 0; d < cols(values); ++d) {  // … each number of its answer
            float sum = 0.0f;
            for (std::size_t j = 0; j < rows(values); ++j) sum += weights(i, j) * values(j, d);
            answers(i, d) = sum;
        }
    // └ stub: answers.fill(0.0f);
    return answers;
}

Matrix divide_by_temperature(const Matrix& scores, float temperature) {
    Matrix scaled = scores / temperature;
    if (!all_finite(scaled))
        throw InputError(describe("--temperature ", temperature, ": too small, scores / T overflow a float"));
    return scaled;
}

Matrix soft_lookup(const Matrix& scores, const Matrix& values, float temperature) {
    return matmul(softmax_rows(divide_by_temperature(scores, temperature)), values);
}

float lead_in_row(const Matrix& m, std::size_t i) {
    const std::size_t best = argmax_of_row(m, i);
    float second = -INFINITY;
    for (std::size_t j = 0; j < cols(m); ++j)
        if (j != best) second = std::max(second, m(i, j));
    return cols(m) < 2 ? INFINITY : m(i, best) - second;
}

float row_distance(const Matrix& a, std::size_t i, const Matrix& b, std::size_t j) {
    double sum = 0.0;
    for (std::size_t d = 0; d < cols(a); ++d) sum += double(a(i, d) - b(j, d)) * double(a(i, d) - b(j, d));
    return static_cast<float>(std::sqrt(sum));
}

namespace {

// queries (q × d_k) against keys (m × d_k) and values (m × d_v).
Lookup lookup(const Matrix& keys, const Matrix& values, const Matrix& queries, float temperature) {
    Lookup r;
    r.scores = matmul_transposed(queries, keys);                         // 1. (q × d_k) · (d_k × m) → (q × m)
    r.hard_weights = one_hot_of_best(r.scores);                          // 2. the best key of each query …
    r.hard = matmul(r.hard_weights, values);                             //    … and its row of values (q × d_v)
    r.weights = softmax_rows(divide_by_temperature(r.scores, temperature));  // 3. every key a weight (q × m)
    r.soft = matmul(r.weights, values);                                  // 4. the blend (q × d_v)
    r.soft_by_loops = blend_by_loops(r.weights, values);                 //    the same, Σ_j w_ij v_j
    for (std::size_t i = 0; i < rows(r.scores); ++i) {
        r.best.push_back(argmax_of_row(r.hard_weights, i));
        if (lead_in_row(r.scores, i) == 0.0f) r.tied.push_back(i);
    }
    return r;
}

// The query whose best key leads its second best by the least (a tie does not count).
std::size_t most_ambiguous(const Matrix& scores) {
    std::size_t blend = rows(scores);
    for (std::size_t i = 0; i < rows(scores); ++i) {
        const float lead = lead_in_row(scores, i);
        if (lead > 0.0f && (blend == rows(scores) || lead < lead_in_row(scores, blend))) blend = i;
    }
    return blend;
}

Path path_between(const Matrix& keys, const Matrix& values, std::size_t from, std::size_t to, float temperature) {
    Path p;
    p.from = from, p.to = to;
    p.queries = Matrix::from_shape({path_steps + 1, cols(keys)});
    for (std::size_t s = 0; s <= path_steps; ++s) {
        const float t = static_cast<float>(s) / path_steps;
        for (std::size_t d = 0; d < cols(keys); ++d) p.queries(s, d) = (1.0f - t) * keys(from, d) + t * keys(to, d);
    }
    const Lookup l = lookup(keys, values, p.queries, temperature);
    p.scores = l.scores, p.weights = l.weights, p.soft = l.soft;
    p.hard_weights = l.hard_weights, p.hard = l.hard;
    for (std::size_t s = 0; s <= path_steps; ++s) {
        p.soft_step.push_back(s == 0 ? 0.0f : row_distance(p.soft, s, p.soft, s - 1));
        p.hard_step.push_back(s == 0 ? 0.0f : row_distance(p.hard, s, p.hard, s - 1));
        p.largest_soft_step = std::max(p.largest_soft_step, p.soft_step[s]);
        if (p.hard_step[s] > p.largest_hard_step) p.largest_hard_step = p.hard_step[s], p.jump = s;
    }
    return p;
}

TemperatureSweep sweep(const Lookup& book, const Matrix& values, float temperature) {
    TemperatureSweep w;
    w.temperatures = {2.0f, 1.0f, 0.5f, 0.25f, 0.1f, 0.05f, 0.02f, 0.01f};
    if (std::find(w.temperatures.begin(), w.temperatures.end(), temperature) == w.temperatures.end()) {
        w.temperatures.push_back(temperature);
        std::sort(w.temperatures.rbegin(), w.temperatures.rend());
    }
    const std::size_t q = rows(book.scores);
    w.best_weight = Matrix::from_shape({w.temperatures.size(), q});
    w.distance = Matrix::from_shape({w.temperatures.size(), q});
    for (std::size_t t = 0; t < w.temperatures.size(); ++t) {
        const Matrix weights = softmax_rows(divide_by_temperature(book.scores, w.temperatures[t]));  // (q × m)
        const Matrix answer = matmul(weights, values);                                             // (q × d_v)
        for (std::size_t i = 0; i < q; ++i) {
            w.best_weight(t, i) = weights(i, argmax_of_row(book.scores, i));
            w.distance(t, i) = row_distance(answer, i, book.hard, i);
        }
    }
    return w;
}

}  // namespace

ValueRetrieval value_retrieval(const Matrix& keys, const Matrix& values, const Matrix& queries, const Matrix& X,
                               float temperature) {
    ValueRetrieval r;
    r.temperature = temperature;
    r.keys = keys, r.values = values, r.queries = queries;
    r.book = lookup(keys, values, queries, temperature);
    // The path runs between the two best keys of the most ambiguous query (the first two keys if none is).
    r.blend = most_ambiguous(r.book.scores);
    std::size_t from = 0, to = std::min<std::size_t>(1, rows(keys) - 1);
    if (r.blend < rows(queries)) {
        from = argmax_of_row(r.book.scores, r.blend);
        Matrix others = r.book.scores;
        others(r.blend, from) = -INFINITY;
        to = argmax_of_row(others, r.blend);
    }
    r.path = path_between(keys, values, from, to, temperature);
    r.sweep = sweep(r.book, values, temperature);
    // The sentence looks itself up: queries, keys and values are all X.
    const float root_d = std::sqrt(static_cast<float>(cols(X)));
    SentenceLookup& s = r.sentence;
    s.temperature = temperature;
    const Matrix scores = matmul_transposed(X, X) / root_d;               // (n × n)
    s.weights = softmax_rows(divide_by_temperature(scores, temperature));  // (n × n)
    s.output = matmul(s.weights, X);                                      // (n × d_model)
    // How peaked the rows are: each row's best key, and its weight on average.
    for (std::size_t i = 0; i < rows(X); ++i) {
        s.best_key.push_back(argmax_of_row(s.weights, i));
        s.mean_largest += s.weights(i, s.best_key[i]) / static_cast<float>(rows(X));
    }
    return r;
}
