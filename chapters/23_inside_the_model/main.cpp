// Chapter 23 · Inside the trained model
//
// The lesson: chapter 22's GPT, trained on Moby-Dick with every window given a repeated passage,
// taken apart head by head. What each head attends to on held-out text (the previous token,
// itself, the first token, the token after an earlier copy); what the held-out loss does when a
// head is removed or replaced by its mean; whether the model copies a repeated passage, and
// whether it still does without its induction heads; when the induction head forms along the
// training; which block-0 head it reads, from the weights, by removal and by patching a shifted
// twin; the same recipe on the plain book as the control; which head carries a word from one
// sentence into another (activation patching); what the model would say after each block (the
// logit lens); and the loss along the context.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/23_inside_the_model/checks.hpp"
#include "chapters/23_inside_the_model/control.hpp"
#include "chapters/23_inside_the_model/inputs.hpp"
#include "chapters/23_inside_the_model/kept_measurements.hpp"
#include "chapters/23_inside_the_model/math.hpp"
#include "common/display/text_table.hpp"
#include "common/lesson/lesson.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/numbers/input_error.hpp"
#include "common/text/token_text.hpp"

namespace {

std::string three(double x) { return format_number(x, 3); }
std::string head_name(std::size_t k, std::size_t heads) { return fmt::format("L{} H{}", k / heads, k % heads); }

std::string symbol(const Tokenizer& t, std::size_t id) { return visible_symbol(t.symbol(int(id))); }

// Up to `before` tokens of a window ending at the query, the key in [brackets].
std::string excerpt(const Tokenizer& t, const Matrix& windows, std::size_t w, std::size_t query, std::size_t key) {
    const std::size_t before = 7, from = std::min(key, query >= before ? query - before : 0);
    const auto tokens = [&](std::size_t first, std::size_t last) {  // [first, last], the key in brackets
        std::string text;
        for (std::size_t i = first; i <= last; ++i) {
            const std::string s = symbol(t, std::size_t(windows(w, i)));
            text += i == key ? "[" + s + "]" : s;
        }
        return text;
    };
    // a key far back (an induction head's): the key and the token after it, then the last
    // tokens up to the query, so that the query is never cut at the table's edge
    if (query > key + before) return (key > 0 ? "…" : "") + tokens(key, key + 1) + " … " + tokens(query - 4, query);
    return (from > 0 ? "…" : "") + tokens(from, query);
}

void show_model(Lesson& lesson, const LanguageModel& lm, double repeats, const HeadScores& s, const Probe& probe) {
    const GptConfig& c = lm.trained.model.config;
    const std::string book =
        repeats == 0.0 ? "on the plain book (--repeats 0)"
        : repeats == 1.0
            ? "on the book, every training window given a copy of\na passage of its first half later on (--repeats 1)"
            : fmt::format("on the book, a share {} of the training windows given a\ncopy of a passage of their "
                          "first half later on (--repeats {})",
                          repeats, repeats);
    lesson.say(fmt::format(
        "Chapter 22's GPT, trained {}:\n{} blocks × {} heads, d_model {}, context T = {}, V = {}; held-out loss {} nats "
        "a token.\nA head reaches the rest of the model only through its output z_h: every experiment below\n"
        "replaces z_h and runs the model again. The same recipe trained on the other book is step\n9's control.",
        book, c.layers, c.heads, c.d_model, c.context, c.vocab, three(s.held_out_loss)));
    const std::size_t all = (lm.held_out_ids().size() - 1) / c.context;
    lesson.say(
        rows(s.held_out_windows) == all
            ? fmt::format("Measured on all {} held-out windows of {} tokens, and on {} random sequences of {}\n"
                          "tokens, each repeated.",
                          all, c.context, probe.sequences, c.context / 2)
            : fmt::format("Measured on {} held-out windows of {} tokens, spread evenly over the {} there are\n"
                          "(--all-held-out reads them all), and on {} random sequences of {} tokens, each repeated.",
                          rows(s.held_out_windows), c.context, all, probe.sequences, c.context / 2));
}

void show_scores(Lesson& lesson, const LanguageModel& lm, const HeadScores& s) {
    const Tokenizer& t = lm.trained.tokenizer;
    lesson.say(fmt::format(
        "What each head attends to: its mean weight on the previous token, on itself and on the\n"
        "first token (queries 2 … T−1 of the held-out windows), and its induction score (on the\n"
        "repeated random tokens: its weight on the token after the earlier copy). The last row is\n"
        "chance: what weights spread evenly over the keys would give. A head is named by its\n"
        "largest number when that reaches {}, {:.0f} times chance for a share and {:.0f} times for the\n"
        "induction score; else it is \"spread out\".",
        format_number(role_share, 1), role_share / s.uniform_share, role_share / s.uniform_induction));
    std::vector<TextRow> rows_;
    const std::size_t H = s.heads;
    for (std::size_t k = 0; k < s.layers * H; ++k) {
        const std::size_t l = k / H, h = k % H;
        rows_.push_back({head_name(k, H), three(s.previous_token(l, h)), three(s.self(l, h)), three(s.first_token(l, h)),
                         three(s.induction(l, h)), role_name(HeadRole(int(s.roles(l, h))))});
    }
    rows_.push_back({"uniform", three(s.uniform_share), three(s.uniform_share), three(s.uniform_share),
                     three(s.uniform_induction), "(chance)"});
    lesson.table({"head", "previous", "itself", "first", "induction", "does most"}, rows_, 64);
    for (const Matrix* m : {&s.previous_token, &s.self, &s.first_token, &s.induction}) lesson.draw(*m);
    lesson.say("Where each head does it most on the held-out text (the query last, the key it reads in\n[brackets], and that weight):");
    std::vector<TextRow> where;
    for (std::size_t k = 0; k < s.layers * H; ++k) {
        const std::size_t w = std::size_t(s.examples(k, 0)), i = std::size_t(s.examples(k, 1)), j = std::size_t(s.examples(k, 2));
        if (s.example_weights(k, 0) < 0)  // an induction head, and no token repeats within a window
            where.push_back({head_name(k, H), "(no repeated token in these windows)", "—"});
        else
            where.push_back({head_name(k, H), excerpt(t, s.held_out_windows, w, i, j), format_number(s.example_weights(k, 0), 2)});
    }
    lesson.table({"head", "held-out text", "weight"}, where, 64);
}

void show_sentence(Lesson& lesson, const LanguageModel& lm, const SentenceLens& s, std::size_t shown, bool chosen) {
    const Tokenizer& t = lm.trained.tokenizer;
    std::vector<std::size_t> ids;
    for (std::size_t i = 0; i < cols(s.token_ids); ++i) ids.push_back(std::size_t(s.token_ids(0, i)));
    lesson.say(fmt::format("Your sentence as tokens: {}", bars(t, TokenIds(ids.begin(), ids.end()))));
    lesson.say(fmt::format("Head {} of block {} on it ({}; --svg and --html draw all {}):", shown % s.heads,
                           shown / s.heads,
                           chosen ? "--layer, --head" : "the one whose removal costs most; --layer, --head choose",
                           s.weights.size()));
    lesson.heat_map(s.weights[shown], Style().decimals(2).svg());  // first: the page opens on it too
    for (std::size_t k = 0; k < s.weights.size(); ++k)
        if (k != shown) lesson.draw(s.weights[k]);
}

// The head whose removal raises the held-out loss most (l·H + h).
std::size_t costliest(const Removals& r) {
    return std::size_t(std::max_element(r.increase_removed.begin(), r.increase_removed.end()) - r.increase_removed.begin());
}

void show_removals(Lesson& lesson, const HeadScores& s, const Removals& r) {
    lesson.say(fmt::format(
        "Each head removed in turn (z_h ← 0), then replaced by its mean over the held-out tokens\n"
        "(z_h ← z̄_h): the held-out loss minus the model's ({}), in nats a token:",
        three(s.held_out_loss)));
    lesson.show(r.increase_removed, Style().decimals(3));
    lesson.show(r.increase_mean, Style().decimals(3));
    const std::size_t H = s.heads, count = std::min<std::size_t>(5, s.layers * H);
    std::vector<std::size_t> order(s.layers * H);
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return r.increase_removed(a / H, a % H) > r.increase_removed(b / H, b % H);
    });
    std::vector<TextRow> top;
    for (std::size_t j = 0; j < count; ++j) {
        const std::size_t k = order[j];
        const auto signed_ = [](double x) { return (x >= 0 ? "+" : "") + three(x); };
        top.push_back({head_name(k, H), signed_(r.increase_removed(k / H, k % H)),
                       signed_(r.increase_mean(k / H, k % H)), role_name(HeadRole(int(s.roles(k / H, k % H))))});
    }
    lesson.say(fmt::format("The {} heads the model misses most:", count));
    lesson.table({"head", "removed", "mean", "does most"}, top, 16);
}

std::string head_list(const std::vector<std::size_t>& heads, std::size_t H) {
    std::vector<std::string> names;
    for (std::size_t k : heads) names.push_back(head_name(k, H));
    return names.empty() ? "none: the model has no other head" : fmt::format("{}", fmt::join(names, ", "));
}

// The run without step 5's heads, as its table and chart name it.
std::string without_label(const HeadScores& s, const Removals& r) {
    return r.induction_found ? "without the induction heads" : "without " + head_list(r.induction_heads, s.heads);
}

void show_induction_removal(Lesson& lesson, const HeadScores& s, const Removals& r) {
    const std::size_t H = s.heads;
    const std::size_t best = r.induction_heads[0];
    lesson.say(fmt::format(
        "Olsson et al.'s test: {} held-out passages of {} tokens, each followed by itself. A model\n"
        "that copies predicts the second copy far better than the first.",
        rows(r.repeated_passages), cols(r.repeated_passages) / 2));
    if (r.induction_found)
        lesson.say(fmt::format("Induction heads (score ≥ {}): {}. Removed together, against as many other heads\n"
                               "of the same blocks, of the lowest scores ({}):",
                               format_number(role_share, 1), head_list(r.induction_heads, H), head_list(r.other_heads, H)));
    else
        lesson.say(fmt::format(
            "No induction head in this model: no head reaches a score of {}. The highest, {}'s {},\n"
            "is {:.1f} times chance ({}). It is removed all the same, against the head of its block of\n"
            "the lowest score ({}): a head at chance, so the test shows what no copying looks like.",
            format_number(role_share, 1), head_list(r.induction_heads, H), three(s.induction(best / H, best % H)),
            s.induction(best / H, best % H) / s.uniform_induction, three(s.uniform_induction),
            head_list(r.other_heads, H)));
    std::vector<TextRow> rows_;
    const std::string names[] = {"the model", without_label(s, r),
                                 r.other_heads.size() == r.induction_heads.size()
                                     ? "without as many others"
                                     : fmt::format("without the {} other{}", r.other_heads.size(),
                                                   r.other_heads.size() == 1 ? "" : "s")};
    for (std::size_t row = 0; row < 3; ++row)
        rows_.push_back({names[row], three(r.repeated_losses(row, 0)), three(r.repeated_losses(row, 1)),
                         three(r.repeated_losses(row, 0) - r.repeated_losses(row, 1))});
    lesson.table({"run", "first copy", "second copy", "copy's gain"}, rows_, 8);
    lesson.say_under("(loss in nats a token on tokens 2 … s of each copy: the same tokens, read twice)");
}

// The pair (writer, reader) of a table's largest score.
std::pair<std::size_t, std::size_t> largest_pair(const Matrix& m) {
    const std::size_t at = std::size_t(std::max_element(m.begin(), m.end()) - m.begin());
    return {at / cols(m), at % cols(m)};
}

void show_composition(Lesson& lesson, const HeadScores& s, const Composition& c) {
    if (s.layers < 2) {
        lesson.say("One block: no head reads another's output.");
        return;
    }
    lesson.say(fmt::format(
        "How much each block-1 head reads what each block-0 head writes (Elhage et al. 2021), from\n"
        "the weights alone: ‖W_OV⁰ W_QK¹‖_F / (‖W_OV⁰‖_F ‖W_QK¹‖_F) into its queries (Q), the same\n"
        "with W_QK¹ᵀ into its keys (K), with W_OV¹ into its values (V); LayerNorm's γ folded in. A\n"
        "row: the writing head of block 0; a column: the reading head of block 1. Random matrices\n"
        "of these shapes score {} (the mean of {} draws).",
        three(c.baseline), c.baseline_samples));
    const char* kinds[] = {"Q", "K", "V"};
    const Matrix* tables[] = {&c.q, &c.k, &c.v};
    std::vector<TextRow> largest;
    for (std::size_t t = 0; t < 3; ++t) {
        lesson.show(*tables[t], Style().decimals(3));
        const auto [w, r] = largest_pair(*tables[t]);
        const double score = (*tables[t])(w, r);
        largest.push_back({kinds[t], head_name(w, s.heads), head_name(s.heads + r, s.heads), three(score),
                           format_number(score / c.baseline, 1)});
    }
    lesson.say("The largest of each table:");
    lesson.table({"reads into", "writer", "reader", "score", "× random"}, largest, 8);
    // the circuit an induction head needs: its keys read a previous-token head's output
    const std::size_t reader = highest_head(s.induction, 1), writer = highest_head(s.previous_token, 0);
    std::size_t rank = 1;  // of the previous-token head among the writers into that reader's keys
    for (std::size_t h = 0; h < s.heads; ++h) rank += c.k(h, reader) > c.k(writer, reader);
    lesson.say(fmt::format(
        "Block 1's highest induction score: {} ({}); block 0's highest previous-token share:\n"
        "{} ({}). The K-composition of the first's keys with the second's output: {},\n"
        "{} times random, ranked {} of the {} block-0 heads (1: the most).",
        head_name(s.heads + reader, s.heads), three(s.induction(1, reader)), head_name(writer, s.heads),
        three(s.previous_token(0, writer)), three(c.k(writer, reader)),
        format_number(c.k(writer, reader) / c.baseline, 1), rank, s.heads));
    lesson.say("The same question asked of the running model: each block-1 head's induction score (step 2's,\n"
               "on the repeated random tokens) with one block-0 head removed (z ← 0), and with none:");
    lesson.show(c.induction_without, Style().decimals(3));
    double low = 1.0, high = 0.0;  // the reader's score without each other block-0 head
    for (std::size_t h = 0; h < s.heads; ++h)
        if (h != writer) low = std::min(low, double(c.induction_without(h, reader))),
                         high = std::max(high, double(c.induction_without(h, reader)));
    lesson.say(fmt::format("Without {}, {}'s induction score goes from {} to {};\nwithout {} other block-0 head{}, "
                           "it is {}.",
                           head_name(writer, s.heads), head_name(s.heads + reader, s.heads),
                           three(c.induction_without(s.heads, reader)), three(c.induction_without(writer, reader)),
                           s.heads == 2 ? "the" : "each", s.heads == 2 ? "" : "s",
                           s.heads == 1 ? "—" : low == high ? three(low) : "between " + three(low) + " and " + three(high)));
}

void show_shifted(Lesson& lesson, const HeadScores& s, const ShiftPatching& p) {
    if (s.layers < 2) {
        lesson.say("One block: no head reads another's output.");
        return;
    }
    const std::size_t H = s.heads, half = cols(p.twin_sequences) / 2;
    if (half < 3) {
        lesson.say(fmt::format("Sequences of {} tokens written twice: too short for a query whose key moves (T ≥ 6).", half));
        return;
    }
    const std::size_t writer = highest_head(s.previous_token, 0);
    lesson.say(fmt::format(
        "Step 2's random sequences, and their twins: each first copy moved one position later (its\n"
        "last token first), the second copy as it was. At a query i of the second copy an induction\n"
        "head reads the key whose previous token is the query's: i − s + 1 in the sequence, i − s + 2\n"
        "in the twin. Now each block-0 head's output, at the first copy's positions, is taken from the\n"
        "twin into the sequence (row L0Hw←twin); {} (block 1's highest induction score) is read.\n"
        "Its mean weight on the two keys (queries i = s … 2s − 3):",
        head_name(H + p.reader, H)));
    lesson.show(p.weights, Style().decimals(3));
    const double before = p.weights(0, 0), moved = p.weights(2 + writer, 1), stayed = p.weights(2 + writer, 0);
    // the heads are named by their roles only where step 2 names them (a score of role_share)
    const bool inductive = s.induction(1, p.reader) >= role_share, previous = s.previous_token(0, writer) >= role_share;
    const std::string conclusion =
        !inductive  ? fmt::format("But\n{} is no induction head (its score {} < {}): no circuit to follow here.",
                                  head_name(H + p.reader, H), three(s.induction(1, p.reader)), format_number(role_share, 1))
        : !previous ? fmt::format("But\n{} is no previous-token head (its share {} < {}): no circuit to follow here.",
                                  head_name(writer, H), three(s.previous_token(0, writer)), format_number(role_share, 1))
        : moved > stayed ? "The induction\nhead follows the previous-token head: its keys read \"the token before me\" "
                           "from that\nhead's output."
                         : "The induction\nhead does not follow that head's output here.";
    lesson.say(fmt::format(
        "With {}'s output from the twin (block 0's highest previous-token share, {}), {}'s\n"
        "weight on i − s + 2 is {} and on i − s + 1 {} (unpatched: {} on i − s + 1). {}",
        head_name(writer, H), three(s.previous_token(0, writer)), head_name(H + p.reader, H), three(moved),
        three(stayed), three(before),
        conclusion));
}

// The training's course: the probe logged at every --log-every steps (common/gpt/gpt_copying.hpp).
void show_trace(Lesson& lesson, const LanguageModel& lm) {
    const std::vector<LoggedLoss>& log = lm.trained.log;
    Series induction{"best induction score, blocks 1 …", {}, {}, "i"}, first{"first copy", {}, {}, "f"},
        second{"second copy", {}, {}, "s"}, held{"held out", {}, {}, "h"},
        named{"where step 2 names an induction head", {}, {}, "-"};
    std::size_t formed = 0;  // the first logged step where the score reaches role_share (0: none)
    bool reached = false;
    for (const LoggedLoss& l : log) {
        const double x = double(l.step);
        induction.x.push_back(x), induction.y.push_back(l.probes[0]);
        first.x.push_back(x), first.y.push_back(l.probes[1]);
        second.x.push_back(x), second.y.push_back(l.probes[2]);
        held.x.push_back(x), held.y.push_back(l.held_out);
        named.x.push_back(x), named.y.push_back(role_share);
        if (!reached && l.probes[0] >= role_share) reached = true, formed = l.step;
    }
    const ChartOptions chart = chart_along_training(log.back().step);
    const std::size_t every = log.size() > 1 ? log[1].step - log[0].step : 0;
    // the probe reads blocks 1 …: an induction head reads what a head before it wrote
    const bool one_block = lm.trained.model.config.layers < 2;
    if (one_block) {
        lesson.say(fmt::format(
            "Logged every {} steps of the training: the loss on the two copies of step 5's passages. With\n"
            "one block there is no block 1, no head that reads what an earlier head wrote: no induction\n"
            "score is logged.", every));
    } else {
        lesson.say(fmt::format(
            "Logged every {} steps of the training: the best induction score of block 1's heads (step 2's, on\n"
            "the same random sequences), and the loss on the two copies of step 5's passages.", every));
        lesson.chart("induction_by_step", "The best induction score along the training", {"step", false},
                     {"induction score", false}, {named, induction}, chart);  // the scores over the threshold
    }
    lesson.chart("copies_by_step", "The loss on each copy, and on held-out text, along the training", {"step", false},
                 {"loss (nats a token)", false}, {first, second, held}, chart);
    lesson.say_under("(a mark drawn on another's place hides it: --dump writes every number, as training_trace)");
    if (one_block) return;
    if (reached)
        lesson.say(fmt::format("The induction score first reaches {}, where step 2 names a head an induction head, at\n"
                               "step {} (of {}).",
                               format_number(role_share, 1), with_commas(formed), with_commas(log.back().step)));
    else
        lesson.say(fmt::format("The induction score never reaches {} in {} steps: no induction head forms.",
                               format_number(role_share, 1), with_commas(log.back().step)));
}

void show_patching(Lesson& lesson, const LanguageModel& lm, const Patching& p) {
    const Tokenizer& t = lm.trained.tokenizer;
    const auto sentence = [&](const Matrix& ids) {
        std::vector<std::size_t> v;
        for (std::size_t i = 0; i < cols(ids); ++i) v.push_back(std::size_t(ids(0, i)));
        return bars(t, TokenIds(v.begin(), v.end()));
    };
    lesson.say(fmt::format("Clean:    {}\nCorrupt:  {}", sentence(p.clean_ids), sentence(p.corrupt_ids)));
    lesson.say(fmt::format(
        "After the last token the clean run expects {} (logit {}); the corrupt run gives it {}.\n"
        "Each head's output copied from the clean run into the corrupt one, at every position:\n"
        "the change of that logit (and the share of the gap {} it closes: above 1, the patch\n"
        "overshoots, raising the logit past the clean run's):",
        symbol(t, p.expected), three(p.clean_logit), three(p.corrupt_logit), three(p.clean_logit - p.corrupt_logit)));
    lesson.show(p.effect, Style().decimals(3));
    lesson.show(p.restored, Style().decimals(3));
    lesson.say("The same, one head at one position at a time (row: a head; column: the position patched):");
    lesson.heat_map(p.effect_by_position, Style().decimals(2));
    std::size_t best = 0, at = 0;
    for (std::size_t k = 0; k < rows(p.effect_by_position); ++k)
        for (std::size_t i = 0; i < cols(p.effect_by_position); ++i)
            if (std::abs(p.effect_by_position(k, i)) > std::abs(p.effect_by_position(best, at))) best = k, at = i;
    const std::size_t H = lm.trained.model.config.heads;
    lesson.say(fmt::format(
        "The path: the largest change, {}, comes from {} at position {} ({}): that head, reading\n"
        "there, carries the difference between the sentences to the last token's prediction.",
        three(p.effect_by_position(best, at)), head_name(best, H), at, symbol(t, std::size_t(p.corrupt_ids(0, at)))));
}

void show_lens(Lesson& lesson, const LanguageModel& lm, const SentenceLens& s, const HeadScores& scores) {
    const Tokenizer& t = lm.trained.tokenizer;
    const std::size_t n = cols(s.token_ids), L = s.layers;
    TextRow header{"after"};
    header.push_back("embeddings");
    for (std::size_t l = 0; l < L; ++l) header.push_back(fmt::format("block {}", l));
    std::vector<TextRow> rows_;
    for (std::size_t i = 0; i < n; ++i) {
        TextRow row{symbol(t, std::size_t(s.token_ids(0, i)))};
        for (std::size_t depth = 0; depth <= L; ++depth)
            row.push_back(fmt::format("{} {}", symbol(t, std::size_t(s.top_ids(depth, i))),
                                      format_number(s.top_probabilities(depth, i), 2)));
        rows_.push_back(row);
    }
    lesson.say("The logit lens: the output layer, LN(x; ln_f) · wteᵀ, read after each block. Under\n"
               "each depth, the most likely next token and its probability (the last column is the\n"
               "model's own prediction):");
    lesson.table(header, rows_, 64);
    std::vector<std::string> losses;
    for (std::size_t depth = 0; depth <= L; ++depth) losses.push_back(three(scores.lens_loss(0, depth)));
    lesson.say(fmt::format("Held-out loss read at each depth (embeddings, then after each block): {}.", fmt::join(losses, ", ")));
}

void show_in_context(Lesson& lesson, const HeadScores& s, const Removals& r) {
    const std::size_t T = cols(s.loss_by_position);
    std::vector<double> x, with, without;
    for (std::size_t i = 0; i < T; ++i)
        x.push_back(double(i)), with.push_back(s.loss_by_position(0, i)), without.push_back(r.loss_by_position_without(0, i));
    ChartOptions chart;
    chart.width = 60, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double v) { return format_number(v, 2); };
    chart.ticks = {{0.0, "position 0"}, {double(T - 1), fmt::format("position {}", T - 1)}};
    lesson.chart("loss_by_position", "Held-out loss at each position of the window", {"position", false},
                 {"loss (nats)", false}, {{"the model", x, with, "m"}, {without_label(s, r), x, without, "w"}},
                 chart);
    lesson.say(fmt::format(
        "In-context learning score (Olsson et al.): the loss over the last {} positions minus the loss\n"
        "at positions {} … {}: {} for the model, {} {} (negative: the context helps).",
        std::max<std::size_t>(1, T / 8), std::max<std::size_t>(1, T / 16), std::max(std::max<std::size_t>(1, T / 16) + 1, T / 8) - 1,
        three(r.in_context_scores(0, 0)), three(r.in_context_scores(0, 1)), without_label(s, r)));
}

// Whether the learner chose the head step your-sentence shows (--layer, --head).
bool head_chosen(const Lesson& lesson) { return lesson.given("--layer") || lesson.given("--head"); }

// The head step your-sentence shows: --layer and --head when given, else the costliest to remove.
std::size_t head_shown(const Lesson& lesson, const Flags& f, const Removals& removals) {
    return head_chosen(lesson) ? f.layer * f.recipe.gpt.config.heads + f.head : costliest(removals);
}

// Everything a learner gives, read and checked before anything prints or trains.
struct Inputs {
    Corpus corpus;
    std::optional<TrainedGpt> given;  // --checkpoint DIR
    Sentences sentences;
};

Inputs read_inputs(const Lesson& lesson, Flags& f) {
    Recipe& r = f.recipe;
    Inputs in{checked_recipe(r), std::nullopt, {}};
    check_head(f.layer, f.head, r.gpt.config);  // their ranges are the largest a recipe allows
    if (f.all_held_out && lesson.given("--windows"))
        throw InputError("--all-held-out: not with --windows (the one reads every window, the other says how many)");
    if (f.all_held_out) f.probe.windows = std::size_t(-1);
    in.given = given_checkpoint(in.corpus, r);  // read now, so that a bad one is refused before any output
    in.sentences = checked_sentences(f, lesson, in.corpus, in.given ? in.given->tokenizer : tokenizer_of(in.corpus, r));
    return in;
}

// What the steps show, measured on the trained model.
struct Inside {
    HeadScores scores;
    Removals removals;
    Patching patching;
    SentenceLens lens;
    Composition composition;  // from block 0 to block 1 (none with one block)
    ShiftPatching shifted;    // into block 1's head of the highest induction score (none with one block)
    Matrix trace;             // (logged × 6) the training's log: step, losses, the copying probe
    MatrixList matrices() const {
        MatrixList all = scores.matrices();
        all.push_back({"training_trace", trace, "logged steps: step, losses, induction, both copies", "", "trace_columns"});
        for (const MatrixList& more :
             {removals.matrices(), patching.matrices(), lens.matrices(), composition.matrices(), shifted.matrices()})
            all.insert(all.end(), more.begin(), more.end());
        return all;
    }
};

Inside look_inside(Lesson& lesson, const LanguageModel& m, const Probe& probe, const Sentences& sentences) {
    const Gpt<float>& model = m.trained.model;
    const std::size_t L = model.config.layers, H = model.config.heads;
    Labels layers, heads, tokens, heads_of_layers, depths{"embeddings"};
    for (std::size_t l = 0; l < L; ++l) layers.push_back(fmt::format("L{}", l)), depths.push_back(fmt::format("block {}", l));
    for (std::size_t h = 0; h < H; ++h) heads.push_back(fmt::format("H{}", h));
    for (std::size_t k = 0; k < L * H; ++k) heads_of_layers.push_back(fmt::format("L{}H{}", k / H, k % H));
    for (std::size_t id : sentences.text) tokens.push_back(symbol(m.trained.tokenizer, id));
    Labels patched;
    for (std::size_t id : sentences.corrupt) patched.push_back(symbol(m.trained.tokenizer, id));
    Labels writers, readers, removed_writers;  // the heads of blocks 0 and 1, for the composition tables
    for (std::size_t h = 0; h < H; ++h) writers.push_back(fmt::format("L0 H{}", h)), readers.push_back(fmt::format("L1 H{}", h));
    for (std::size_t h = 0; h < H; ++h) removed_writers.push_back(fmt::format("−L0 H{}", h));
    removed_writers.push_back("none");
    Labels shift_runs{"sequences", "twins"};
    for (std::size_t h = 0; h < H; ++h) shift_runs.push_back(fmt::format("L0H{}←twin", h));
    lesson.labels({{"layers", layers}, {"heads", heads}, {"tokens", tokens}, {"layer_heads", heads_of_layers},
                   {"patched_tokens", patched}, {"depths", depths}, {"writing_heads", writers},
                   {"reading_heads", readers}, {"removed_writers", removed_writers},
                   {"trace_columns", {"step", "training", "held_out", "induction", "first_copy", "second_copy"}},
                   {"shift_keys", {"i − s + 1", "i − s + 2"}}, {"shift_runs", shift_runs}});
    Inside in;
    Measurements held_out = measured(model, m.held_out_ids(), probe);  // or what a run kept
    in.scores = std::move(held_out.scores);
    in.removals = std::move(held_out.removals);
    in.patching = patch_heads(model, sentences.clean, sentences.corrupt);
    in.lens = read_with_lens(model, sentences.text);
    const std::vector<LoggedLoss>& log = m.trained.log;
    in.trace = Matrix(xt::zeros<float>({log.size(), std::size_t(6)}));
    for (std::size_t r = 0; r < log.size(); ++r) {
        const std::array<double, 6> row{double(log[r].step), log[r].train, log[r].held_out,
                                        log[r].probes[0], log[r].probes[1], log[r].probes[2]};
        for (std::size_t c = 0; c < 6; ++c) in.trace(r, c) = float(row[c]);
    }
    if (L >= 2) {
        in.composition = compose_heads(model, 0, composition_samples, probe.seed);
        in.composition.induction_without = induction_without_writers(model, 0, in.scores.random_sequences);
        in.shifted = patch_shifted(model, in.scores.random_sequences, highest_head(in.scores.induction, 1));
    }
    return in;
}

// The control: the same recipe with and without the repeats, trained on the text the model read
// (not read again).
Control control_of(const LanguageModel& lm, const Flags& f) {
    const Recipe control = control_recipe(f.recipe);
    return measure_control(prepare_language_model(lm.corpus, control, std::nullopt, gpt_progress_bar()),
                           control.gpt.repeats, f.probe);
}

void check_all(SelfChecks& check, const LanguageModel& lm, const Inside& in, const Flags& f, const Sentences& s) {
    check_inside(check, lm, in.scores, in.removals, in.patching, in.lens, in.composition, in.shifted, f.probe, s.clean,
                 s.corrupt, s.text);
}

}  // namespace

int main(int argc, char** argv) {
    reuse_training_buffers();
    Lesson lesson;  // named and titled by chapter.toml
    Flags f;
    add_flags(lesson, f);
    return lesson.run(argc, argv, [&] {
        Inputs in = read_inputs(lesson, f);
        Part<LanguageModel>& lm = lesson.part<LanguageModel>([&] {
            lesson.labels("loss_columns", {"step", "training", "held_out"});
            return prepare_language_model(std::move(in.corpus), f.recipe, std::move(in.given), gpt_progress_bar());
        });
        Part<Inside>& inside = lesson.part<Inside>([&] { return look_inside(lesson, lm(), f.probe, in.sentences); });
        Part<Control>& control = lesson.part<Control>([&] { return control_of(lm(), f); });
        lesson.step("model", "The model and what is measured",
                    [&] { show_model(lesson, lm(), f.recipe.gpt.repeats, inside().scores, f.probe); });
        lesson.step("scores", "What each head attends to", [&] { show_scores(lesson, lm(), inside().scores); });
        lesson.step("your-sentence", "Your sentence, head by head", [&] {
            show_sentence(lesson, lm(), inside().lens, head_shown(lesson, f, inside().removals), head_chosen(lesson));
        });
        lesson.step("removals", "What breaks without each head",
                    [&] { show_removals(lesson, inside().scores, inside().removals); });
        lesson.step("induction", "A repeated passage: does the model copy it?",
                    [&] { show_induction_removal(lesson, inside().scores, inside().removals); });
        lesson.step("training", "When does it form? The training, logged", [&] { show_trace(lesson, lm()); });
        lesson.step("composition", "Which head reads which: composition from the weights",
                    [&] { show_composition(lesson, inside().scores, inside().composition); });
        lesson.step("shifted", "The circuit patched: a sequence and its shifted twin",
                    [&] { show_shifted(lesson, inside().scores, inside().shifted); });
        lesson.step("control", "The control: the same recipe, with and without the repeats", [&] {
            show_control(lesson, lm(), f.recipe.gpt.repeats, {inside().scores, inside().removals}, inside().composition, control());
        });
        lesson.step("patching", "Which head carries the word: activation patching",
                    [&] { show_patching(lesson, lm(), inside().patching); });
        lesson.step("logit-lens", "What the model would say after each block",
                    [&] { show_lens(lesson, lm(), inside().lens, inside().scores); });
        lesson.step("in-context", "Does it learn in context?", [&] { show_in_context(lesson, inside().scores, inside().removals); });
        lesson.step("checks", "Self-checks", [&] { check_all(lesson.checks(), lm(), inside(), f, in.sentences); });
        lesson.present();
    });
}
