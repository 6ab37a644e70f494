#include "common/long_context/cache_size.hpp"

#include <stdexcept>

std::uint64_t mha_cache_elements(std::uint64_t h, std::uint64_t d_h) { return 2 * h * d_h; }
std::uint64_t gqa_cache_elements(std::uint64_t g, std::uint64_t d_h) { return 2 * g * d_h; }
std::uint64_t mqa_cache_elements(std::uint64_t d_h) { return 2 * d_h; }
std::uint64_t mla_cache_elements(std::uint64_t d_c, std::uint64_t d_rope) { return d_c + d_rope; }

std::uint64_t kv_cache_bytes_per_token(std::uint64_t layers, std::uint64_t g, std::uint64_t d_k,
                                       std::uint64_t bytes_per_number) {
    return 2 * layers * g * d_k * bytes_per_number;  // K and V, in every layer, for each key–value head
}

std::vector<PublishedModel> published_models() {
    return {
        {"Mistral 7B", 32, 32, 8, 128, 0, 0, 4096, 0, {"Jiang et al. 2023, \"Mistral 7B\", Table 1"}},
        {"Llama 2 70B", 80, 64, 8, 128, 0, 0, 8192, 0,
         {"Touvron et al. 2023, \"Llama 2\", §2.2 and A.2.1 (GQA, 8 key–value heads);",
          "80 layers, 64 heads of 128: Llama 1 65B's (\"LLaMA\", Table 2), kept"}},
        {"DeepSeek-V2", 60, 128, 128, 128, 512, 64, 5120, 1536,
         {"DeepSeek-AI 2024, \"DeepSeek-V2\", §3.1.2: 60 layers, d_model = 5120,",
          "128 heads of 128, d_c = 512, d_c' = 1536, d_h^R = 64"}},
        {"DeepSeek-V3", 61, 128, 128, 128, 512, 64, 7168, 1536,
         {"DeepSeek-AI 2024, \"DeepSeek-V3\", §4.2: 61 layers, d_model = 7168,",
          "128 heads of 128, d_c = 512, d_c' = 1536, d_h^R = 64"}},
    };
}

PublishedModel published_model(const std::string& name) {
    for (const PublishedModel& m : published_models())
        if (m.name == name) return m;
    throw std::out_of_range("no published model called " + name);
}
