#include "common/display/elide.hpp"

std::vector<std::size_t> elided_indices(std::size_t n, std::size_t max_items, std::size_t edge_items) {
    std::vector<std::size_t> indices;
    const bool shorten = n > max_items && 2 * edge_items < n;
    for (std::size_t i = 0; i < n; ++i) {
        if (shorten && i == edge_items) {
            indices.push_back(elided);
            i = n - edge_items - 1;  // continue with the last edge_items
            continue;
        }
        indices.push_back(i);
    }
    return indices;
}

std::string join_elided(const std::vector<std::string>& items, const std::string& separator, std::size_t max_items,
                        std::size_t edge_items) {
    std::string text;
    for (const std::size_t i : elided_indices(items.size(), max_items, edge_items)) {
        if (!text.empty()) text += separator;
        text += i == elided ? std::string("…") : items[i];
    }
    return text;
}
