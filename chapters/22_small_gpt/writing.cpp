#include "chapters/22_small_gpt/writing.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/22_small_gpt/inputs.hpp"
#include "common/display/fit_width.hpp"
#include "common/display/text_table.hpp"
#include "common/lesson/lesson.hpp"
#include "common/text/token_text.hpp"

namespace {

std::string symbol_of(const Tokenizer& t, std::size_t id) { return visible_symbol(t.symbol(int(id))); }

// The three largest weights of row i of one head's attention, over the tokens so far (`text`),
// as "position:token weight".
std::string strongest(const Tokenizer& t, const Tokens& text, const Matrix& attention, std::size_t i) {
    std::vector<std::size_t> order(text.size());
    for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return attention(i, a) > attention(i, b); });
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < std::min<std::size_t>(3, order.size()); ++k)
        parts.push_back(fmt::format("{}:{} {}", order[k], symbol_of(t, text[order[k]]), format_number(attention(i, order[k]), 2)));
    return fmt::format("{}", fmt::join(parts, " · "));
}

}  // namespace

Writing write_labelled(Lesson& lesson, const LanguageModel& lm, const Flags& f, const Tokens& prompt) {
    Writing w = write_tokens(lm.trained.model, prompt, f.generate, f.temperature, f.greedy ? 1 : f.top_k, f.top_p,
                             f.sample_seed);
    Labels written, text;
    for (const std::size_t id : w.written) written.push_back(symbol_of(lm.trained.tokenizer, id));
    for (const std::size_t id : w.prompt) text.push_back(symbol_of(lm.trained.tokenizer, id));
    text.insert(text.end(), written.begin(), written.end());
    lesson.labels({{"written", written}, {"text", text}});
    return w;
}

void show_writing(Lesson& lesson, const LanguageModel& lm, const Flags& f, const Writing& w) {
    const Tokenizer& t = lm.trained.tokenizer;
    const std::size_t H = lm.trained.model.config.heads;
    lesson.say(wrap_to_width(fmt::format(
        "{} token{} written after the prompt, one at a time. Before each, the five largest logits: the "
        "model's own odds p = softmax(ℓ), and the odds q it is drawn from ({}). Then the token drawn, "
        "read into the cache (chapter 13), and where it looks in each head: its three largest weights over "
        "the tokens so far (position:token weight), from the cache's keys.",
        w.written.size(), w.written.size() == 1 ? "" : "s",
        f.greedy ? std::string("--greedy: the most likely, q = 1, nothing drawn")
                 : fmt::format("τ = {:g}, top k = {}, top p = {:g}", f.temperature,
                               f.top_k == 0 ? std::string("all") : std::to_string(f.top_k), f.top_p)),
        96));
    Tokens text = w.prompt;
    for (std::size_t i = 0; i < w.written.size(); ++i) {
        const std::size_t drawn = w.written[i];
        std::vector<TextRow> rows;
        bool among = false;
        // --greedy takes the most likely: no draw, no u
        const std::string pick = f.greedy ? "← the most likely" : fmt::format("← drawn (u = {})", format_number(w.draws(i, 0), 3));
        for (std::size_t c = 0; c < cols(w.candidates); ++c) {
            const std::size_t id = std::size_t(w.candidates(i, c));
            among = among || id == drawn;
            rows.push_back({symbol_of(t, id), format_number(w.model_odds(i, c), 3), format_number(w.drawn_odds(i, c), 3),
                            id == drawn ? pick : ""});
        }
        if (!among)
            rows.push_back({symbol_of(t, drawn), format_number(w.written_odds(i, 0), 3), format_number(w.written_odds(i, 1), 3),
                            pick + ", not among the five"});
        std::string before;
        for (std::size_t j = text.size() > 6 ? text.size() - 6 : 0; j < text.size(); ++j) before += symbol_of(t, text[j]);
        lesson.say(fmt::format("Token {} of {}, after …{}", i + 1, w.written.size(), before));
        lesson.table({"next", "p", "q", "pick"}, rows, 12, {1, 2});
        text.push_back(drawn);
        std::vector<TextRow> looks;
        for (std::size_t k = 0; k < w.attention.size(); ++k)
            looks.push_back({fmt::format("L{} H{}", k / H, k % H), strongest(t, text, w.attention[k], i)});
        lesson.table({"head", fmt::format("where {} (position {}) looks", symbol_of(t, drawn), text.size() - 1)}, looks, 16);
        if (i + 1 < w.written.size()) lesson.pause(fmt::format("token {} of {}", i + 2, w.written.size()));
    }
    std::vector<std::size_t> prompt(w.prompt.begin(), w.prompt.end()), more(w.written.begin(), w.written.end());
    lesson.say(fmt::format("The text (prompt ▸ written):\n{}▸{}", utf8_of(decode(t, TokenIds(prompt.begin(), prompt.end()))),
                           utf8_of(decode(t, TokenIds(more.begin(), more.end())))));
    // On the page (--html) and in pictures (--svg): each written token's attention, every head.
    for (const Matrix& a : w.attention) lesson.draw(a, Style().decimals(2));
}
