// Sampling from a GPT through its cache (gpt_sampling.hpp gives the formulas).
#include "common/gpt/gpt_sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"

namespace {

// The indices of the k largest logits (all when k is 0 or ≥ V), largest first, ties to the smaller id.
std::vector<std::size_t> top_indices(const std::vector<float>& logits, std::size_t k) {
    std::vector<std::size_t> order(logits.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return logits[a] > logits[b]; });
    if (k != 0 && k < order.size()) order.resize(k);
    return order;
}

}  // namespace

std::vector<double> sampling_probabilities(const std::vector<float>& logits, double temperature, std::size_t top_k,
                                           double top_p) {
    if (!(temperature > 0.0)) throw InputError(describe("a temperature of ", temperature, ": it must be above 0"));
    if (!(top_p > 0.0 && top_p <= 1.0)) throw InputError(describe("a top p of ", top_p, ": it must be in (0, 1]"));
    std::vector<std::size_t> kept = top_indices(logits, top_k);
    std::vector<double> p(logits.size(), 0.0);
    double total = 0.0;
    for (const std::size_t j : kept) total += (p[j] = std::exp((double(logits[j]) - double(logits[kept[0]])) / temperature));
    for (const std::size_t j : kept) p[j] /= total;
    if (top_p < 1.0) {  // the fewest of the largest whose probabilities reach top_p
        double running = 0.0;
        std::size_t n = 0;
        while (n < kept.size() && (n == 0 || running < top_p)) running += p[kept[n++]];
        for (std::size_t i = n; i < kept.size(); ++i) p[kept[i]] = 0.0;
        for (std::size_t i = 0; i < n; ++i) p[kept[i]] /= running;
    }
    return p;
}

std::size_t sample_token(const std::vector<float>& logits, double temperature, std::size_t top_k, double uniform,
                         double top_p) {
    const std::vector<double> p = sampling_probabilities(logits, temperature, top_k, top_p);
    const std::vector<std::size_t> kept = top_indices(logits, top_k);
    double running = 0.0;
    std::size_t last = kept.front();
    for (const std::size_t j : kept) {  // largest first: a draw near 1 that rounding leaves unclaimed takes the last
        if (p[j] == 0.0) break;       // past the nucleus
        last = j;
        if (uniform < (running += p[j])) return j;
    }
    return last;
}

std::vector<std::size_t> generate(const Gpt<float>& m, const Tokens& prompt, std::size_t count, double temperature,
                                  std::size_t top_k, std::uint64_t seed, double top_p) {
    if (prompt.empty()) throw InputError("an empty prompt: give at least one token");
    const std::size_t T = m.config.context;
    Tokens text = prompt;
    Random rng(seed);
    GptCache cache = empty_cache(m.config);
    std::vector<float> logits;
    auto prime = [&](std::size_t from) {  // a fresh cache over text[from …]
        cache = empty_cache(m.config);
        for (std::size_t i = from; i < text.size(); ++i) logits = next_logits(m, cache, text[i]);
    };
    prime(text.size() > T ? text.size() - T : 0);
    for (std::size_t i = 0; i < count; ++i) {
        text.push_back(sample_token(logits, temperature, top_k, rng.uniform(), top_p));
        if (cache.length == T) prime(text.size() - std::max<std::size_t>(1, T / 2));
        else logits = next_logits(m, cache, text.back());
    }
    return Tokens(text.begin() + static_cast<std::ptrdiff_t>(prompt.size()), text.end());
}
