#include "chapters/13_kv_cache/experiment.hpp"

#include <algorithm>
#include <cmath>

#include "common/long_context/long_attention.hpp"
#include "common/numbers/matmul.hpp"
#include "common/numbers/random.hpp"

DecodingCosts decoding_costs(const Matrix& models, const Measure& measure) {
    using C = DecodingCosts;
    return {token_costs({16, 64, 256, 1024, 4096, 16384}, C::d_model, C::d, C::d),
            model_caches(models, C::table_tokens, C::bytes_per_number),
            measure ? measure_per_token({256, 1024, 4096}, C::d_model, C::d, measure) : std::vector<MeasuredToken>{}};
}

std::vector<MeasuredToken> measure_per_token(const std::vector<std::size_t>& lengths, std::size_t d_model,
                                             std::size_t d, const Measure& measure) {
    std::vector<MeasuredToken> rows_;
    Random random(13);
    const float scale = 1.0f / std::sqrt(float(d_model));
    const Projections W{random.normal_matrix(d_model, d, scale), random.normal_matrix(d_model, d, scale),
                        random.normal_matrix(d_model, d, scale)};
    for (const std::size_t n : lengths) {
        const Matrix X = random.normal_matrix(n, d_model);
        // the cache as the n − 1 earlier steps left it
        KVCache cache = empty_cache(n, d, d);
        const Matrix K = matmul(X, W.W_K), V = matmul(X, W.W_V);
        for (std::size_t i = 0; i + 1 < n; ++i)
            for (std::size_t c = 0; c < d; ++c) cache.K(i, c) = K(i, c), cache.V(i, c) = V(i, c);
        const auto with_cache = [&] {
            cache.length = n - 1;  // the same step each time: token n − 1 joins n − 1 cached tokens
            return decode_step(cache, project_token(X, n - 1, W)).output;
        };
        const auto recomputing = [&] {  // no cache: the whole prefix again, every query
            return materialised_attention(matmul(X, W.W_Q), matmul(X, W.W_K), matmul(X, W.W_V), true);
        };
        const Matrix cached = with_cache(), recomputed = recomputing();  // once here: `measure` may time elsewhere
        MeasuredToken m;
        m.n = n;
        const TokenCost cost = token_cost(n, d_model, d, d);
        m.flops_ratio = cost.flops_recomputed / cost.flops_cached;
        m.cached_s = measure([&] { with_cache(); });
        m.recomputed_s = measure([&] { recomputing(); });
        for (std::size_t c = 0; c < d; ++c)
            m.difference = std::max(m.difference, double(std::abs(cached(0, c) - recomputed(n - 1, c))));
        rows_.push_back(m);
    }
    return rows_;
}
