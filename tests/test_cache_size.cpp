// common/long_context/cache_size against DeepSeek-V2's Table 1 and the published sizes worked by hand.
#include <doctest/doctest.h>

#include "common/long_context/cache_size.hpp"

TEST_CASE("cache size: Table 1 of DeepSeek-V2, per token and layer, in elements") {
    CHECK(mha_cache_elements(128, 128) == 32768);  // 2 · n_h · d_h
    CHECK(gqa_cache_elements(8, 128) == 2048);     // 2 · n_g · d_h
    CHECK(mqa_cache_elements(128) == 256);         // 2 · d_h
    CHECK(mla_cache_elements(512, 64) == 576);     // d_c + d_h^R = (9/2) · d_h with d_c = 4 d_h, d_h^R = d_h / 2
    CHECK(2 * mla_cache_elements(4 * 128, 128 / 2) == 9 * 128);
}

TEST_CASE("cache size: bytes per token of the published models") {
    CHECK(kv_cache_bytes_per_token(32, 8, 128, 2) == 131072);  // Mistral 7B: 128 KiB
    const PublishedModel v3 = published_model("DeepSeek-V3");
    CHECK(mla_cache_elements(v3.d_c, v3.d_rope) * v3.layers * 2 == 70272);
    CHECK(mha_cache_elements(v3.h, v3.d_h) * v3.layers * 2 == 3997696);
    CHECK(published_models().size() == 4);
    CHECK_THROWS(published_model("GPT-5"));
}
