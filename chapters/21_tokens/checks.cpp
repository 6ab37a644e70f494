#include "chapters/21_tokens/checks.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

void check_tokens(SelfChecks& check, const Reading& reading, const Tokenizer& tokenizer, std::size_t vocab,
                  const TokensResult& r, const std::u32string& text, const std::u32string& held_out) {
    if (tokenizer.size() == vocab)  // the first symbols, then one new symbol for each merge learned
        check.that(fmt::format("the vocabulary has the {} symbols asked for: {} first symbols and {} merges", vocab,
                               tokenizer.characters(), tokenizer.merges.size()),
                   tokenizer.characters() + tokenizer.merges.size() == vocab);
    else
        check.skip(fmt::format("the vocabulary has the {} symbols asked for", vocab),
                   fmt::format("every word of the text is one symbol after {} merges", tokenizer.merges.size()));
    // The incremental counts against a recount of every pair before each merge.
    const std::size_t recounted = rows(r.recounted_merges);
    if (recounted > 0)
        check.that(fmt::format("the first {} merges and counts equal a recount of every pair before each", recounted),
                   r.recounted_merges == xt::view(r.merges, xt::range(0, recounted), xt::all()));
    else
        check.skip("the merges and counts equal a recount of every pair before each", "no merge was learned");
    bool never_more = true;
    for (std::size_t m = 1; m < rows(r.merges); ++m) never_more = never_more && r.merges(m, 2) <= r.merges(m - 1, 2);
    if (rows(r.merges) > 1) check.that("no merge is seen more often than the one before it", never_more);
    else check.skip("no merge is seen more often than the one before it", "fewer than two merges");
    check.that("the merges applied in order give encode's tokens (the rank rule)", r.text_ids == r.text_ids_by_merges);
    TokenIds ids;
    for (float id : r.text_ids) ids.push_back(static_cast<int>(id));
    check.that("decode(encode(text)) == text", reading.decode(tokenizer, ids) == text);
    check.that("decode(encode(held-out text)) == held-out text",
               reading.decode(tokenizer, reading.encode(tokenizer, held_out)) == held_out);
}
