#include "common/language_model/copying_probe.hpp"

#include <algorithm>
#include <cmath>

#include "common/numbers/random.hpp"

namespace {

constexpr std::size_t per_pass = 32;  // sequences through the model at once

// Each sequence followed by itself (2s tokens).
std::vector<Tokens> doubled(const std::vector<Tokens>& halves) {
    std::vector<Tokens> out;
    for (const Tokens& h : halves) {
        Tokens twice = h;
        twice.insert(twice.end(), h.begin(), h.end());
        out.push_back(twice);
    }
    return out;
}

// 1. The largest, over the heads of blocks 1 …, of the mean A_h[i, i − s + 1], i = s … 2s − 1;
//    −1 for heads that keep a state and no weights (the delta rules).
double best_induction(const Gpt<float>& model, const std::vector<Tokens>& sequences, std::size_t s) {
    const std::size_t L = model.config.layers, H = model.config.heads;
    const Mixer mixer = model.config.attention.mixer;
    if (mixer == Mixer::delta || mixer == Mixer::gated_delta) return -1.0;
    std::vector<double> sums(L * H, 0.0);
    for (std::size_t first = 0; first < sequences.size(); first += per_pass) {
        const std::size_t count = std::min(per_pass, sequences.size() - first);
        const GptForward<float> f = gpt_forward(
            model, std::vector<Tokens>(sequences.begin() + std::ptrdiff_t(first), sequences.begin() + std::ptrdiff_t(first + count)));
        for (std::size_t k = H; k < L * H; ++k)
            for (std::size_t b = 0; b < count; ++b)
                for (std::size_t i = s; i < 2 * s; ++i) sums[k] += f.blocks[k / H].weights[k % H](b * 2 * s + i, i - s + 1);
    }
    double best = 0.0;
    for (std::size_t k = H; k < L * H; ++k) best = std::max(best, sums[k] / double(sequences.size() * s));
    return best;
}

// 2. The mean −log p of tokens 1 … s − 1 on the first copy (positions 0 … s − 2 predict them) and
//    on the second (positions s … 2s − 2), in double.
std::pair<double, double> copy_losses(const Gpt<float>& model, const std::vector<Tokens>& passages, std::size_t s) {
    const std::size_t V = model.config.vocab, n = 2 * s - 1;
    double first_copy = 0.0, second_copy = 0.0;
    for (std::size_t first = 0; first < passages.size(); first += per_pass) {
        const std::size_t count = std::min(per_pass, passages.size() - first);
        std::vector<Tokens> inputs;
        for (std::size_t b = first; b < first + count; ++b) inputs.emplace_back(passages[b].begin(), passages[b].end() - 1);
        const GptForward<float> f = gpt_forward(model, inputs);
        for (std::size_t b = 0; b < count; ++b)
            for (std::size_t i = 0; i < n; ++i) {
                if (i + 1 == s) continue;  // predicts the second copy's first token: neither copy's
                const float* row = f.logits.data() + (b * n + i) * V;
                const double largest = *std::max_element(row, row + V);
                double total = 0.0;
                for (std::size_t v = 0; v < V; ++v) total += std::exp(double(row[v]) - largest);
                const double loss = largest + std::log(total) - double(row[passages[first + b][i + 1]]);
                (i + 1 < s ? first_copy : second_copy) += loss;
            }
    }
    const double each = double(passages.size() * (s - 1));
    return {first_copy / each, second_copy / each};
}

}  // namespace

std::vector<Tokens> random_halves(std::size_t vocab, std::size_t count, std::size_t s, std::uint64_t seed) {
    Random rng(seed);
    std::vector<Tokens> halves(count, Tokens(s));
    for (Tokens& h : halves)
        for (std::size_t& t : h) t = std::min(vocab - 1, std::size_t(rng.uniform() * double(vocab)));
    return halves;
}

std::vector<double> copying_probe(const Gpt<float>& model, const Tokens& held_out) {
    const std::size_t s = model.config.context / 2;
    const double induction = best_induction(model, doubled(random_halves(model.config.vocab, probe_sequences, s, probe_seed)), s);
    // the passages: P stretches of s held-out tokens spread evenly, each written twice
    const std::size_t all = held_out.size() / s, P = std::min(probe_passages, all);
    std::vector<Tokens> halves;
    for (std::size_t p = 0; p < P; ++p) {
        const auto start = std::ptrdiff_t(p * all / P * s);
        halves.emplace_back(held_out.begin() + start, held_out.begin() + start + std::ptrdiff_t(s));
    }
    const auto [first_copy, second_copy] = copy_losses(model, doubled(halves), s);
    return {induction, first_copy, second_copy};
}
