// Chapter 24 · Which attention? Every variant trained on the book
//
// The lesson: chapter 22's GPT with each attention of chapters 14–20 in its blocks, every one
// trained on Moby-Dick by the same recipe; then one table of what each costs and what it
// learned (math.hpp gives every measure), the loss at each distance into the context, and the
// self-checks.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chapters/24_which_attention/checks.hpp"
#include "chapters/24_which_attention/inputs.hpp"
#include "chapters/24_which_attention/math.hpp"
#include "chapters/24_which_attention/timing.hpp"
#include "chapters/24_which_attention/trained_variants.hpp"
#include "common/copy_model/attention_variants.hpp"
#include "common/display/fit_width.hpp"
#include "common/display/text_table.hpp"
#include "common/lesson/lesson.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/threads.hpp"
#include "common/text/token_text.hpp"

namespace {

std::string three(double x) { return format_number(x, 3); }

// "seed 1", "seed 2", …: the columns of held_out_by_seed.
Labels seed_labels(const Flags& f) {
    Labels labels;
    for (std::size_t j = 0; j < f.seeds; ++j) labels.push_back(fmt::format("seed {}", f.recipe.gpt.seed + j));
    return labels;
}

// The twelve variants, each with every seed: trained (a progress line each), or read back when a
// run kept it. The first seed's model stays for the steps that read a sentence.
std::vector<TrainedVariant> train_variants(const Corpus& corpus, const Flags& f) {
    std::vector<TrainedVariant> out;
    const std::vector<VariantChoice> choices = variant_choices(f.recipe.gpt.config);
    for (std::size_t k = 0; k < choices.size(); ++k) {
        TrainedVariant v{choices[k], {}, {}, {}};
        for (std::size_t j = 0; j < f.seeds; ++j) {
            Recipe r = f.recipe;
            r.gpt.config.attention = choices[k].attention;
            r.gpt.seed = f.recipe.gpt.seed + j;
            const std::string seed = f.seeds == 1 ? "" : fmt::format(", seed {} of {}", j + 1, f.seeds);
            LanguageModel lm = prepare_language_model(
                Corpus(corpus), r, std::nullopt,
                gpt_progress_bar(fmt::format("variant {} ({} of {}){}", choices[k].name, k + 1, choices.size(), seed)));
            VariantMeasures m = measure_variant(lm.trained.model, lm.held_out_ids(), f.windows, f.passages);
            v.held_out_by_seed.push_back(m.held_out);
            if (j == 0) v.lm = std::move(lm), v.measures = std::move(m);
        }
        out.push_back(std::move(v));
    }
    return out;
}

void show_recipe(Lesson& lesson, const Flags& f, const std::vector<TrainedVariant>& runs) {
    const GptRecipe& g = f.recipe.gpt;
    const GptConfig& c = runs[0].lm.trained.model.config;
    lesson.say(fmt::format(
        "Chapter 22's GPT (V = {}, T = {}, L = {} blocks, H = {} heads, d_model = {}, d_h = {}),\n"
        "its attention changed and nothing else, each trained on the book's first 90 % by the\n"
        "same recipe: the same {} steps of {} windows, the same schedule (peak rate {}), and\n"
        "{}. The kept models are read back on the next run.",
        c.vocab, c.context, c.layers, c.heads, c.d_model, c.d_model / c.heads, g.steps, g.batch,
        format_number(g.learning_rate, 4),
        f.seeds == 1 ? fmt::format("the same seed {}", g.seed)
                     : fmt::format("each with the same {} seeds, {} to {} (a seed draws the first weights and\n"
                                   "the batches)", f.seeds, g.seed, g.seed + f.seeds - 1)));
    std::vector<TextRow> rows;
    for (const TrainedVariant& v : runs) {
        const GptAttention& a = v.choice.attention;
        std::string what = "every earlier key, one key and value per head";
        if (a.kv_heads > 0) what = fmt::format("{} key–value head{} for {} query heads", a.kv_heads, a.kv_heads == 1 ? "" : "s", c.heads);
        if (a.latent > 0) what = fmt::format("keys, values from a latent of {}, and one RoPE key", a.latent);
        if (a.rotary) what = "q and k turned by position (no wpe)";
        if (a.window > 0) what = fmt::format("the last {} keys{}", a.window, a.sinks > 0 ? fmt::format(" and the first {}", a.sinks) : "");
        if (a.sink_logit) what = "a learned logit per head that takes a share of each row";
        if (a.top_k > 0) what = fmt::format("the {} earlier keys its head scores highest", a.top_k);
        if (a.mixer == Mixer::linear) what = "φ(q)·φ(k), φ = elu + 1, rows normalised";
        if (a.mixer == Mixer::delta) what = "a state S per head, the delta rule";
        if (a.mixer == Mixer::gated_delta) what = "the delta rule with a decay α per token";
        rows.push_back({v.choice.name, v.choice.chapter, what});
    }
    lesson.table({"variant", "chapter", "how a query reads its past"}, rows, 64);
}

// Bytes all layers keep at 131,072 tokens at DeepSeek-V3's shape (chapter 20's table), in GB;
// RoPE keeps what MHA keeps, and so does top-k of the head's own scores (chapter 20's top-k row
// also keeps an indexer's keys).
std::string published_gb(const std::vector<VariantRow>& costs, const std::string& name) {
    const std::string row = name == "RoPE" || name == "top-k" ? "MHA" : name;
    for (const VariantRow& c : costs)
        if (c.name == row) return format_number(double(c.bytes_long) / 1e9, 1);
    return "—";
}

void show_table(Lesson& lesson, const TrainedVariants& t, const Flags& f) {
    const std::vector<TrainedVariant>& runs = t.runs;
    const std::vector<VariantRow> costs = variant_costs();
    const VariantShapes v3;
    const std::size_t params_mha = parameter_count(runs[0].lm.trained.model.config);
    const std::size_t T = runs[0].lm.trained.model.config.context, N = f.seeds;
    std::vector<TextRow> cost_rows, learned_rows;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        const TrainedVariant& v = runs[k];
        const GptConfig& c = v.lm.trained.model.config;
        const std::size_t count = parameter_count(c);
        const std::string change = count == params_mha ? ""
                                   : count > params_mha ? "+" + with_commas(count - params_mha)
                                                        : "−" + with_commas(params_mha - count);
        cost_rows.push_back({v.choice.name, with_commas(count), change, with_commas(kept_floats(c)),
                             published_gb(costs, v.choice.name)});
        learned_rows.push_back({v.choice.name, three(t.spread.mean(k, 0)),
                                three(t.spread.low(k, 0)) + "–" + three(t.spread.high(k, 0)),
                                fmt::format("{}", int(t.spread.rank(k, 0))), three(v.measures.first_copy),
                                three(v.measures.second_copy)});
        if (N == 1) learned_rows.back().erase(learned_rows.back().begin() + 2, learned_rows.back().begin() + 4);
    }
    lesson.say(fmt::format(
        "What each costs. kept: the floats one layer keeps to decode the token after T = {} (the cache,\n"
        "or the state). GB at V3: what every layer keeps in bfloat16 at DeepSeek-V3's shape ({} layers,\n"
        "{} heads of {}) after {} tokens, with GQA's {} groups, a window of {} keys and {} sinks,\n"
        "top-k's {} keys (chapter 20's table).",
        T, v3.model.layers, v3.model.h, v3.model.d_h, with_commas(v3.long_n), v3.gqa_groups, with_commas(v3.window),
        v3.sinks, with_commas(v3.top_k)));
    lesson.table({"variant", "parameters", "vs MHA", fmt::format("kept after T = {}", T), "GB at V3"}, cost_rows, 64);
    if (N == 1)
        lesson.say(fmt::format(
            "What each learned. held out: the mean loss on {} held-out windows, one seed: the spread a seed\n"
            "makes is not measured, and no variant is ranked (--seeds 2 or more ranks them). recall: the\n"
            "loss on a held-out passage of T/2 tokens, then on the same passage written again.",
            rows(t.windows)));
    else
        lesson.say(fmt::format(
            "What each learned. held out: the mean loss on {} held-out windows, the mean over the {} seeds,\n"
            "and the lowest and highest of them. One variant is below another only when their ranges do\n"
            "not touch (every seed of one ended lower than every seed of the other); otherwise they tie at\n"
            "this budget, whatever their means. Two variants that do not differ separate so by chance with\n"
            "probability 2 / C({}, {}) = {} %. rank: 1 + the variants below this one. recall (seed {}'s\n"
            "model): the loss on a held-out passage of T/2 tokens, then on the same passage written again.",
            rows(t.windows), N, 2 * N, N, format_number(100.0 * separation_by_chance(N), 1), f.recipe.gpt.seed));
    TextRow header{"variant", fmt::format("held out, mean of {}", N), "lowest–highest", "rank", "1st copy", "2nd copy"};
    if (N == 1) header = {"variant", "held out", "1st copy", "2nd copy"};
    lesson.table(header, learned_rows, 64);
}

// Each variant's mark in the chart: a letter of its name.
std::string mark_of(const std::string& flag) {
    const std::vector<std::pair<std::string, std::string>> marks{
        {"mha", "M"},          {"mqa", "Q"},        {"gqa", "G"},          {"mla", "L"},
        {"rope", "R"},         {"window", "W"},     {"window-sinks", "S"}, {"sink-logit", "K"},
        {"top-k", "T"},        {"linear", "N"},     {"deltanet", "D"},     {"gated-deltanet", "A"}};
    for (const auto& [name, mark] : marks)
        if (name == flag) return mark;
    return "•";
}

// The table's two columns that trade against each other: the loss reached and what decoding keeps.
void show_chart(Lesson& lesson, const TrainedVariants& t) {
    std::vector<Series> points;
    for (std::size_t k = 0; k < t.runs.size(); ++k) {
        const TrainedVariant& v = t.runs[k];
        points.push_back({v.choice.name, {double(kept_floats(v.lm.trained.model.config))}, {t.spread.mean(k, 0)},
                          mark_of(v.choice.flag)});
    }
    const std::size_t T = t.runs[0].lm.trained.model.config.context;
    ChartOptions chart;
    chart.width = 56, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double v) { return format_number(v, 3); };
    for (const double x : {1024.0, 2048.0, 4096.0, 8192.0}) chart.ticks.push_back({x, with_commas(std::size_t(x))});
    chart.x_title = "kept";
    lesson.chart("loss_against_kept", fmt::format("Held-out loss (the seeds' mean) against the floats a layer keeps after T = {}", T),
                 {fmt::format("floats a layer keeps after T = {}", T), true}, {"held-out loss (nats)", false}, points, chart);
    lesson.say_under("(the table above has every number)");
}

void show_positions(Lesson& lesson, const std::vector<TrainedVariant>& runs) {
    const std::size_t T = runs[0].lm.trained.model.config.context;
    // bands of positions: the first eighth, then doubling toward the end of the window
    const std::vector<std::size_t> edges{0, std::max<std::size_t>(1, T / 8), std::max<std::size_t>(2, T / 4),
                                         std::max<std::size_t>(3, T / 2), T};
    TextRow header{"variant"};
    for (std::size_t b = 0; b + 1 < edges.size(); ++b) header.push_back(fmt::format("{}–{}", edges[b], edges[b + 1] - 1));
    std::vector<TextRow> rows;
    for (const TrainedVariant& v : runs) {
        TextRow row{v.choice.name};
        for (std::size_t b = 0; b + 1 < edges.size(); ++b)
            row.push_back(three(band_mean(v.measures.by_position, edges[b], edges[b + 1])));
        rows.push_back(row);
    }
    lesson.say(fmt::format("The held-out loss by position in the window: a token at position i has i tokens\n"
                           "before it to read. A model that uses far tokens keeps gaining toward position {}.",
                           T - 1));
    lesson.table(header, rows, 64);
}

// The chosen variant's trained run (main refused a variant this shape lacks).
const TrainedVariant& chosen(const std::vector<TrainedVariant>& runs, const std::string& flag) {
    return *std::find_if(runs.begin(), runs.end(), [&](const TrainedVariant& v) { return v.choice.flag == flag; });
}

void show_sentence(Lesson& lesson, const TrainedVariant& v, const VariantReading& r) {
    const Tokenizer& t = v.lm.trained.tokenizer;
    const bool delta = v.choice.attention.mixer == Mixer::delta || v.choice.attention.mixer == Mixer::gated_delta;
    lesson.say(fmt::format("Your sentence as tokens: {}", bars(t, TokenIds(r.ids.begin(), r.ids.end()))));
    lesson.say(fmt::format("{}'s heads of block 0 on it (row: a query token; column: a key). --svg and --html\n"
                           "draw every block's.",
                           v.choice.name));
    if (delta)
        lesson.say("The delta rule keeps no weights, only its state: here the state unrolled, M[t, j] the share\n"
                   "of v_j in z_t (a row need not sum to 1, nor stay positive).");
    const GptAttention& a = v.choice.attention;
    if (a.window > 0 && r.ids.size() <= a.window + a.sinks)
        lesson.say(fmt::format("The sentence has {} tokens and the window holds {}{}: every key is still in it, so the\n"
                               "map is a full triangle, as MHA's; a sentence of more than {} tokens shows where the\n"
                               "window cuts (--text).",
                               r.ids.size(), a.window, a.sinks > 0 ? fmt::format(" and {} sinks", a.sinks) : "",
                               a.window + a.sinks));
    if (a.top_k > 0 && r.ids.size() <= a.top_k)
        lesson.say(fmt::format("The sentence has {} tokens and a head keeps its {} highest scores: every key is kept,\n"
                               "so the map is MHA's triangle; a sentence of more than {} tokens shows the choice.",
                               r.ids.size(), a.top_k, a.top_k));
    if (a.sink_logit)
        lesson.say("Each row sums to less than 1: the head's learned sink logit s_h is in every row's softmax\n"
                   "(e^{s_h} beside the keys' e^{q·k/√d_h}) and takes the rest, 1 minus the row's sum, with\n"
                   "no value to read.");
    for (std::size_t m = 0; m < r.weights.size(); ++m) {
        if (m < r.heads) lesson.heat_map(r.weights[m], Style().decimals(2).svg());
        else lesson.draw(r.weights[m]);
    }
}

void show_next(Lesson& lesson, const TrainedVariant& v, const VariantReading& r) {
    const Tokenizer& t = v.lm.trained.tokenizer;
    std::vector<TextRow> rows;
    for (std::size_t i = 0; i < r.ids.size(); ++i) {
        TextRow row{visible_symbol(t.symbol(int(r.ids[i])))};
        for (std::size_t j = 0; j < cols(r.top_ids); ++j)
            row.push_back(fmt::format("{} {}", visible_symbol(t.symbol(int(r.top_ids(i, j)))),
                                      format_number(r.top_probabilities(i, j), 2)));
        rows.push_back(row);
    }
    lesson.say(fmt::format("After each token, the three tokens {} finds most likely next (p = softmax(logits)):",
                           v.choice.name));
    lesson.table({"after", "1st", "2nd", "3rd"}, rows, 64);
}

// --measure: each variant's time on this machine, against MHA's, in rounds: every variant is
// timed once a round, so that a slower moment of the machine slows them all, and each ratio to
// MHA is taken within its round. A variant is faster (slower) than MHA only when it is in every
// round; the median and the range of the rounds' ratios are printed.
constexpr std::size_t timing_rounds = 5;

void show_measured(Lesson& lesson, const std::vector<TrainedVariant>& runs, const Flags& f) {
    std::vector<std::vector<VariantTimes>> rounds(timing_rounds);  // [round][variant]
    for (std::vector<VariantTimes>& round : rounds)
        for (const TrainedVariant& v : runs) round.push_back(time_variant(v, f.recipe.gpt.batch));
    using Figure = double VariantTimes::*;
    const Figure figures[] = {&VariantTimes::ms_per_step, &VariantTimes::ms_per_window, &VariantTimes::ms_per_token};
    const char* figure_names[] = {"a training step", "reading a window", "decoding a token"};
    const auto median_of = [](std::vector<double> x) {
        std::sort(x.begin(), x.end());
        return x[x.size() / 2];
    };
    std::vector<TextRow> rows;
    std::vector<std::string> faster[3], slower[3];
    std::vector<double> mha[3];
    for (std::size_t k = 0; k < runs.size(); ++k) {
        TextRow row{runs[k].choice.name};
        for (std::size_t q = 0; q < 3; ++q) {
            std::vector<double> ratios;
            for (const std::vector<VariantTimes>& round : rounds) ratios.push_back(round[k].*figures[q] / round[0].*figures[q]);
            if (k == 0)
                for (const std::vector<VariantTimes>& round : rounds) mha[q].push_back(round[0].*figures[q]);
            const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
            row.push_back(format_number(median_of(ratios), 2));
            row.push_back(k == 0 ? "" : format_number(*low, 2) + "–" + format_number(*high, 2));
            if (k > 0 && *high < 1.0) faster[q].push_back(runs[k].choice.name);
            if (k > 0 && *low > 1.0) slower[q].push_back(runs[k].choice.name);
        }
        rows.push_back(row);
    }
    lesson.say(fmt::format(
        "Measured on this machine at {} thread{} (these numbers change from run to run), in {} rounds,\n"
        "each timing every variant once: a training step of {} windows (forward, backward, AdamW; the\n"
        "mean of 10), one window of {} tokens read (the median of 20), and one token decoded through\n"
        "the variant's cache after {} others (the median of 100, a fresh model of this shape). MHA's\n"
        "medians over the rounds: {} ms a step, {} ms a window, {} ms a token. Each variant's time as a\n"
        "share of MHA's in the same round: the median of the rounds, and their lowest and highest.",
        threads::count(), threads::count() == 1 ? "" : "s", timing_rounds, f.recipe.gpt.batch,
        runs[0].lm.trained.model.config.context, with_commas(long_context), format_number(median_of(mha[0]), 2),
        format_number(median_of(mha[1]), 3), format_number(median_of(mha[2]), 3)));
    lesson.table({"variant", "step × MHA", "range", "window × MHA", "range", "token × MHA", "range"}, rows, 64);
    std::string verdict;
    for (std::size_t q = 0; q < 3; ++q) {
        const auto list = [](const std::vector<std::string>& names) {
            return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
        };
        verdict += fmt::format("{}{}: faster than MHA in every round: {}; slower in every round: {}.",
                               q == 0 ? "" : "\n", figure_names[q], list(faster[q]), list(slower[q]));
    }
    lesson.say(wrap_to_width(verdict + "\nThe others are within the rounds' spread of MHA: a tie on this machine.", 96, 2));
}

// Everything a learner gives, read and checked before anything prints or trains.
struct Inputs {
    Corpus corpus;
    std::u32string sentence;  // --text
};

Inputs read_inputs(const Lesson& lesson, Flags& f) {
    if (!lesson.given("--log-every")) f.recipe.log_every = f.recipe.gpt.steps;  // one measurement, at the end
    Inputs in{checked_recipe(f.recipe), {}};
    const Corpus& corpus = in.corpus;
    std::u32string& sentence = in.sentence;
    sentence = checked_sentence("--text", f.text, char_tokenizer(corpus.text), corpus.name);
    // refused now, before anything prints: a variant this shape lacks, a sentence longer than the context
    const std::vector<VariantChoice> choices = variant_choices(f.recipe.gpt.config);
    if (std::none_of(choices.begin(), choices.end(), [&](const VariantChoice& c) { return c.flag == f.variant; }))
        throw InputError(fmt::format("--variant {}: not trained at this shape (GQA needs an even number of heads, "
                                     "at least 4; MLA a d_h that 4 divides; RoPE an even d_h)",
                                     f.variant));
    const std::size_t T = f.recipe.gpt.config.context;
    if (sentence.size() > T) {  // more characters than the context: perhaps more tokens too
        const Tokenizer tokens = tokenizer_of(corpus, f.recipe);
        // the default sentence is cut to a small context; a sentence you give is refused
        std::size_t count = model_tokens(tokens, sentence).size();
        for (; !lesson.given("--text") && count > T; count = model_tokens(tokens, sentence).size()) sentence.pop_back();
        if (count > T)
            throw InputError(fmt::format("--text: {} tokens, more than the {} the model reads at once (--context)",
                                         count, T));
    }
    {  // the delta rules keep their state after every token for the backward pass, beyond
       // the training's estimate (checked_recipe's): B·T·L·H·d_h² floats
        const GptConfig& c = f.recipe.gpt.config;
        const std::uint64_t dh = c.d_model / c.heads;
        require_memory(fmt::format("--d-model {} --heads {}: the delta rules' states", c.d_model, c.heads),
                       4 * f.recipe.gpt.batch * c.context * c.layers * c.heads * dh * dh, memory_limit_bytes());
    }
    if (!f.recipe.checkpoint.empty())  // a checkpoint is one model's; this chapter trains one per variant
        throw InputError(fmt::format("--checkpoint {}: this chapter trains and keeps one model per variant; it "
                                     "reads no other",
                                     f.recipe.checkpoint));
    return in;
}

// Every variant trained (or read back), tabulated, and the labels of the table's rows and columns.
TrainedVariants trained_variants(Lesson& lesson, const Corpus& corpus, const Flags& f) {
    TrainedVariants t{train_variants(corpus, f), {}, {}, {}, {}, {}};
    tabulate(t, f.windows);
    Labels names;
    for (const TrainedVariant& v : t.runs) names.push_back(v.choice.name);
    lesson.labels({{"variants", names},
                   {"measures", {"parameters", "kept", "held_out", "first_copy", "second_copy"}},
                   {"seeds", seed_labels(f)},
                   {"loss_columns", {"step", "training", "held_out"}}});
    return t;
}

// The sentence through the variant --variant names, its tokens labelled and its parameters listed.
VariantReading read_sentence(Lesson& lesson, const TrainedVariant& v, const std::u32string& sentence) {
    const Tokens ids = model_tokens(v.lm.trained.tokenizer, sentence);
    Labels tokens;
    for (std::size_t id : ids) tokens.push_back(visible_symbol(v.lm.trained.tokenizer.symbol(int(id))));
    lesson.labels("tokens", tokens);
    lesson.list(v.lm.matrices());  // its parameters under nanoGPT's names, for --dump
    return read_with_variant(v.lm.trained.model, ids);
}

}  // namespace

int main(int argc, char** argv) {
    reuse_training_buffers();
    Lesson lesson;  // named and titled by chapter.toml
    Flags f;
    add_flags(lesson, f);
    return lesson.run(argc, argv, [&] {
        const Inputs in = read_inputs(lesson, f);
        const Corpus& corpus = in.corpus;
        const std::u32string& sentence = in.sentence;
        Part<TrainedVariants>& trained = lesson.part<TrainedVariants>([&] { return trained_variants(lesson, corpus, f); });
        const auto runs = [&]() -> const std::vector<TrainedVariant>& { return trained().runs; };
        lesson.step("recipe", "One model, its attention changed", [&] { show_recipe(lesson, f, runs()); });
        lesson.step("table", "What each costs, and what it learned", [&] {
            show_table(lesson, trained(), f);
            show_chart(lesson, trained());
        });
        lesson.step("positions", "Does it still read far back?", [&] { show_positions(lesson, runs()); });
        Part<VariantReading>& reading =
            lesson.part<VariantReading>([&] { return read_sentence(lesson, chosen(runs(), f.variant), sentence); });
        lesson.step("your-sentence", "Your sentence through one variant",
                    [&] { show_sentence(lesson, chosen(runs(), f.variant), reading()); });
        lesson.step("next-tokens", "What it expects next",
                    [&] { show_next(lesson, chosen(runs(), f.variant), reading()); });
        if (f.measure)
            lesson.step("measured", "Measured: time per step, per window, per token",
                        [&] { show_measured(lesson, runs(), f); });
        lesson.step("checks", "Self-checks", [&] { check_variants(lesson.checks(), trained(), reading(), f); });
        lesson.present();
    });
}
