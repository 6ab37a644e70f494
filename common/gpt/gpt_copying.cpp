#include "common/gpt/gpt_copying.hpp"

#include <algorithm>
#include <cmath>

#include "common/numbers/random.hpp"

namespace {

constexpr std::size_t per_pass = 32;  // sequences through the model at once

std::vector<Tokens> slice(const std::vector<Tokens>& all, std::size_t first, std::size_t count) {
    return {all.begin() + std::ptrdiff_t(first), all.begin() + std::ptrdiff_t(first + count)};
}

}  // namespace

std::vector<Tokens> random_halves(std::size_t vocab, std::size_t count, std::size_t s, std::uint64_t seed) {
    Random rng(seed);
    std::vector<Tokens> halves(count, Tokens(s));
    for (Tokens& h : halves)
        for (std::size_t& t : h) t = std::min(vocab - 1, std::size_t(rng.uniform() * double(vocab)));
    return halves;
}

std::vector<Tokens> held_out_halves(const Tokens& held_out, std::size_t count, std::size_t s) {
    const std::size_t all = held_out.size() / s, P = std::min(count, all);
    std::vector<Tokens> halves;
    for (std::size_t p = 0; p < P; ++p) {
        const auto start = std::ptrdiff_t(p * all / P * s);
        halves.emplace_back(held_out.begin() + start, held_out.begin() + start + std::ptrdiff_t(s));
    }
    return halves;
}

std::vector<Tokens> doubled(const std::vector<Tokens>& halves) {
    std::vector<Tokens> out;
    for (const Tokens& h : halves) {
        Tokens twice = h;
        twice.insert(twice.end(), h.begin(), h.end());
        out.push_back(twice);
    }
    return out;
}

std::vector<double> induction_scores(const Gpt<float>& model, const std::vector<Tokens>& sequences,
                                     const std::vector<HeadReplacement<float>>& replaced) {
    const std::size_t L = model.config.layers, H = model.config.heads, n = sequences.at(0).size(), s = n / 2;
    std::vector<double> sums(L * H, 0.0);
    const Mixer mixer = model.config.attention.mixer;
    if (mixer == Mixer::delta || mixer == Mixer::gated_delta) return sums;
    for (std::size_t first = 0; first < sequences.size(); first += per_pass) {
        const std::size_t count = std::min(per_pass, sequences.size() - first);
        const GptForward<float> f = gpt_forward(model, slice(sequences, first, count), replaced);
        for (std::size_t k = 0; k < L * H; ++k)
            for (std::size_t b = 0; b < count; ++b)
                for (std::size_t i = s; i < 2 * s; ++i) sums[k] += f.blocks[k / H].weights[k % H](b * n + i, i - s + 1);
    }
    for (double& sum : sums) sum /= double(sequences.size() * s);
    return sums;
}

std::array<double, 2> copy_losses(const Gpt<float>& model, const std::vector<Tokens>& passages,
                                  const std::vector<HeadReplacement<float>>& replaced) {
    const std::size_t V = model.config.vocab, s = passages.at(0).size() / 2, n = 2 * s - 1;
    std::array<double, 2> total{0.0, 0.0};
    for (std::size_t first = 0; first < passages.size(); first += per_pass) {
        const std::size_t count = std::min(per_pass, passages.size() - first);
        std::vector<Tokens> inputs;
        for (std::size_t b = first; b < first + count; ++b) inputs.emplace_back(passages[b].begin(), passages[b].end() - 1);
        const GptForward<float> f = gpt_forward(model, inputs, replaced);
        for (std::size_t b = 0; b < count; ++b)
            for (std::size_t i = 0; i < n; ++i) {
                if (i + 1 == s) continue;  // predicts the second copy's first token: neither copy's
                // −log softmax(row)[target], in double
                const float* row = f.logits.data() + (b * n + i) * V;
                const double largest = *std::max_element(row, row + V);
                double sum = 0.0;
                for (std::size_t v = 0; v < V; ++v) sum += std::exp(double(row[v]) - largest);
                const double loss = largest + std::log(sum) - double(row[passages[first + b][i + 1]]);
                total[i + 1 < s ? 0 : 1] += loss;
            }
    }
    const double each = double(passages.size() * (s - 1));
    return {total[0] / each, total[1] / each};
}

std::vector<double> copying_probe(const Gpt<float>& model, const Tokens& held_out) {
    const std::size_t L = model.config.layers, H = model.config.heads, s = model.config.context / 2;
    const Mixer mixer = model.config.attention.mixer;
    double induction = mixer == Mixer::delta || mixer == Mixer::gated_delta ? -1.0 : 0.0;
    if (induction == 0.0) {
        const std::vector<double> scores =
            induction_scores(model, doubled(random_halves(model.config.vocab, probe_sequences, s, probe_seed)));
        for (std::size_t k = H; k < L * H; ++k) induction = std::max(induction, scores[k]);
    }
    const std::array<double, 2> copies = copy_losses(model, doubled(held_out_halves(held_out, probe_passages, s)));
    return {induction, copies[0], copies[1]};
}
