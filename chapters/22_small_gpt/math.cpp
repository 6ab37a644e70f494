// Chapter 22 · the mathematics of reading a sentence with the trained GPT (math.hpp).
#include "chapters/22_small_gpt/math.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

void most_likely(const float* logits, std::size_t V, std::size_t k, std::vector<std::size_t>& ids,
                 std::vector<double>& probabilities) {
    // 1. p_j = exp(ℓ_j − max ℓ) / Σ_i exp(ℓ_i − max ℓ), in double
    const double top = *std::max_element(logits, logits + V);
    std::vector<double> p(V);
    double total = 0.0;
    for (std::size_t j = 0; j < V; ++j) total += (p[j] = std::exp(double(logits[j]) - top));
    for (double& pj : p) pj /= total;
    // 2. the k largest, largest first; a tie keeps the smaller id first
    std::vector<std::size_t> order(V);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
    order.resize(std::min(k, V));
    ids = order;
    probabilities.clear();
    for (const std::size_t j : order) probabilities.push_back(p[j]);
}

SentenceRead read_sentence(const Gpt<float>& model, const Tokens& ids) {
    SentenceRead r;
    const GptConfig& c = model.config;
    const std::size_t n = ids.size(), V = c.vocab, k = std::min(predictions_shown, V);
    r.ids = ids, r.layers = c.layers, r.heads = c.heads;
    // 1. the forward pass over the one sequence: logits (n × V), each head's weights (n × n)
    r.forward = gpt_forward(model, std::vector<Tokens>{ids});
    r.logits = r.forward.logits;
    r.token_ids = Matrix::from_shape({1, n});
    for (std::size_t i = 0; i < n; ++i) r.token_ids(0, i) = float(ids[i]);
    for (const GptBlockForward<float>& block : r.forward.blocks)
        for (const Mat<float>& w : block.weights) r.weights.push_back(w);
    // 2. after each token, the five most likely next tokens
    r.top_ids = Matrix::from_shape({n, k});
    r.top_probabilities = Matrix::from_shape({n, k});
    std::vector<std::size_t> best;
    std::vector<double> p;
    for (std::size_t i = 0; i < n; ++i) {
        most_likely(r.logits.data() + i * V, V, k, best, p);
        for (std::size_t j = 0; j < k; ++j) r.top_ids(i, j) = float(best[j]), r.top_probabilities(i, j) = float(p[j]);
    }
    // 3. where each head looks most from each query
    r.looks_most = Matrix::from_shape({r.weights.size(), n});
    for (std::size_t m = 0; m < r.weights.size(); ++m)
        for (std::size_t i = 0; i < n; ++i) {
            const float* row = r.weights[m].data() + i * n;
            r.looks_most(m, i) = float(std::max_element(row, row + i + 1) - row);
        }
    return r;
}

MatrixList SentenceRead::matrices() const {
    MatrixList list{{"token_ids", token_ids, "the sentence's tokens", "", "tokens", MatrixKind::indices},
                    {"logits", logits, "ln_f(x) · wteᵀ", "tokens", ""}};
    for (std::size_t l = 0; l < layers; ++l)
        for (std::size_t h = 0; h < heads; ++h) {
            const std::string name = "layer" + std::to_string(l) + "_head" + std::to_string(h) + "_weights";
            list.push_back(ListedMatrix(name, weights[l * heads + h], "softmax_causal(Q_h K_hᵀ / √d_h)", "tokens",
                                        "tokens", MatrixKind::attention_weights)
                               .in_family("layer_head_weights", int(h), int(l)));
        }
    list.push_back({"top_ids", top_ids, "the five largest of softmax(logits_i)", "tokens", "", MatrixKind::indices});
    list.push_back({"top_probabilities", top_probabilities, "their probabilities", "tokens", ""});
    list.push_back({"looks_most", looks_most, "argmax_j A_lh[i, j]", "heads", "tokens", MatrixKind::indices});
    return list;
}
