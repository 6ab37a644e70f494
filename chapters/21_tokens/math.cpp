#include "chapters/21_tokens/math.hpp"

#include <algorithm>
#include <map>

Words counted_words(const Tokenizer& characters, const std::vector<std::u32string>& text) {
    std::map<std::u32string, std::int64_t> counts;
    for (const std::u32string& w : text) ++counts[w];
    Words words;
    for (const auto& [w, count] : counts) words.push_back({encode_words(characters, {w}), count});
    return words;
}

PairCounts count_pairs(const Words& words) {
    PairCounts counts;
    // ┌ exercise count-pairs
    for (const CountedWord& w : words)                  // each distinct word once …
        for (std::size_t i = 0; i + 1 < w.ids.size(); ++i)
            counts[{w.ids[i], w.ids[i + 1]}] += w.count;  // … weighted by how often it occurs
    // └ stub: (void)words;
    return counts;
}

TokenIds merge_pair(const TokenIds& word, int left, int right, int id) {
    TokenIds out;
    // ┌ exercise merge-step
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (i + 1 < word.size() && word[i] == left && word[i + 1] == right) {
            out.push_back(id);  // the pair becomes one symbol …
            ++i;                // … and its right half is used up
        } else {
            out.push_back(word[i]);
        }
    }
    // └ stub: out = word; (void)left, (void)right, (void)id;
    return out;
}

std::vector<Merge> merges_by_recount(Words words, int first_id, std::size_t how_many) {
    std::vector<Merge> merges;
    for (std::size_t r = 0; r < how_many; ++r) {
        // pass 1: count every pair again
        const PairCounts counts = count_pairs(words);
        // pass 2: the largest count; the map's order makes the first one met the smallest pair
        Merge best;
        for (const auto& [pair, count] : counts)
            if (count > best.count) best = {pair.first, pair.second, count};
        if (best.count == 0) break;
        // pass 3: merge it in every word
        const int id = first_id + static_cast<int>(r);
        for (CountedWord& w : words) w.ids = merge_pair(w.ids, best.left, best.right, id);
        merges.push_back(best);
    }
    return merges;
}

std::vector<SplitStep> split_merge_by_merge(const Tokenizer& tokenizer, const std::vector<std::u32string>& text) {
    const Tokenizer characters = first_symbols(tokenizer, tokenizer.characters());
    std::vector<TokenIds> words;
    for (const std::u32string& w : text) words.push_back(encode_words(characters, {w}));
    auto joined = [&] {
        TokenIds ids;
        for (const TokenIds& w : words) ids.insert(ids.end(), w.begin(), w.end());
        return ids;
    };
    std::vector<SplitStep> steps{{-1, joined()}};
    for (std::size_t r = 0; r < tokenizer.merges.size(); ++r) {
        const Merge& m = tokenizer.merges[r];
        const int id = static_cast<int>(tokenizer.characters() + r);
        bool changed = false;
        for (TokenIds& w : words) {
            TokenIds after = merge_pair(w, m.left, m.right, id);
            changed = changed || after != w;
            w = std::move(after);
        }
        if (changed) steps.push_back({static_cast<int>(r), joined()});
    }
    return steps;
}

namespace {

Matrix merge_rows(const std::vector<Merge>& merges) {
    Matrix m = Matrix::from_shape({merges.size(), 3});
    for (std::size_t r = 0; r < merges.size(); ++r) {
        m(r, 0) = static_cast<float>(merges[r].left);
        m(r, 1) = static_cast<float>(merges[r].right);
        m(r, 2) = static_cast<float>(merges[r].count);  // exact below 2²⁴
    }
    return m;
}

Matrix id_row(const TokenIds& ids) {
    Matrix m = Matrix::from_shape({1, ids.size()});
    for (std::size_t i = 0; i < ids.size(); ++i) m(0, i) = static_cast<float>(ids[i]);
    return m;
}

}  // namespace

TokensResult tokens_result(const Tokenizer& tokenizer, const Tokenizer& characters,
                           const std::vector<std::u32string>& training, const std::vector<std::u32string>& text,
                           std::size_t recounted) {
    TokensResult r;
    r.merges = merge_rows(tokenizer.merges);
    const std::size_t how_many = std::min(recounted, tokenizer.merges.size());
    r.recounted_merges = merge_rows(
        merges_by_recount(counted_words(characters, training), static_cast<int>(characters.size()), how_many));
    r.text_ids = id_row(encode_words(tokenizer, text));
    r.text_ids_by_merges = id_row(split_merge_by_merge(tokenizer, text).back().ids);
    return r;
}
