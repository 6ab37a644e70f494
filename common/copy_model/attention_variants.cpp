#include "common/copy_model/attention_variants.hpp"

#include <algorithm>

#include "common/copy_model/score_indexer.hpp"
#include "common/long_context/decode_flops.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/threads.hpp"

namespace {

// What a row is, at any shape: the cache and the cost of one decoded token, as functions of n.
struct Row {
    std::string name, chapter, kept;
    std::function<std::uint64_t(std::uint64_t)> tokens;  // tokens cached at n (0: a state instead)
    std::uint64_t per_token, state;
    std::function<std::uint64_t(std::uint64_t)> flops;   // per decoded token per layer, L = n keys
    bool trained;
};

std::vector<Row> rows_at(const VariantShapes& s) {
    const PublishedModel& m = s.model;
    const std::uint64_t h = m.h, d_h = m.d_h, d = m.d_model, g = s.gqa_groups, w = s.window, sinks = s.sinks;
    const std::uint64_t H_I = s.indexer_heads, d_I = s.indexer_width, k = s.top_k;
    // a softmax head over L keys: q, k, v of the new token (for `kv` key–value heads), the
    // scores and weights · V of every head, then W_O
    const auto softmax = [=](std::uint64_t kv, std::uint64_t L) {
        return 2 * d * (h + 2 * kv) * d_h + 4 * L * h * d_h + 2 * h * d_h * d;
    };
    const auto all = [](std::uint64_t n) { return n; };
    const auto indexer = [=](std::uint64_t n) {  // q^I (H^I · d^I), k^I (d^I), w (H^I); n scores, summed over heads
        return 2 * d * (H_I * d_I + d_I + H_I) + 2 * n * H_I * d_I + 2 * n * H_I;
    };
    const std::uint64_t projections = 2 * d * 3 * h * d_h, out = 2 * h * d_h * d;
    return {
        {"MHA", "7, 16", "n · 2·h·d_h", all, mha_cache_elements(h, d_h), 0,
         [=](std::uint64_t n) { return softmax(h, n); }, true},
        {"MQA", "15", "n · 2·d_h", all, mqa_cache_elements(d_h), 0, [=](std::uint64_t n) { return softmax(1, n); },
         true},
        {"GQA", "15", "n · 2·g·d_h", all, gqa_cache_elements(g, d_h), 0,
         [=](std::uint64_t n) { return softmax(g, n); }, true},
        {"MLA", "18", "n · (d_c + d_h^R)", all, mla_cache_elements(m.d_c, m.d_rope), 0,
         [=](std::uint64_t n) {
             const DecodeFlops f = decode_flops(d, shape_of(m), n);
             return f.shared + f.absorbed;
         },
         true},
        {"sliding window", "20", "min(n, w) · 2·h·d_h", [=](std::uint64_t n) { return std::min(n, w); },
         mha_cache_elements(h, d_h), 0, [=](std::uint64_t n) { return softmax(h, std::min(n, w)); }, false},
        {"window + sinks", "20", "min(n, w + s) · 2·h·d_h", [=](std::uint64_t n) { return std::min(n, w + sinks); },
         mha_cache_elements(h, d_h), 0, [=](std::uint64_t n) { return softmax(h, std::min(n, w + sinks)); }, false},
        {"sink logit", "20", "n · 2·h·d_h", all, mha_cache_elements(h, d_h), 0,
         [=](std::uint64_t n) { return softmax(h, n); }, true},
        {"top-k", "20", "n · (2·h·d_h + d^I)", all, mha_cache_elements(h, d_h) + d_I, 0,
         [=](std::uint64_t n) { return softmax(h, std::min(n, k)) + indexer(n); }, false},
        {"linear", "19", "h · (d_h² + d_h)", [](std::uint64_t) { return std::uint64_t(0); }, 0, h * (d_h * d_h + d_h),
         [=](std::uint64_t) { return projections + 4 * h * d_h * d_h + 3 * h * d_h + out; }, true},
        {"DeltaNet", "19", "h · d_h²", [](std::uint64_t) { return std::uint64_t(0); }, 0, h * d_h * d_h,
         [=](std::uint64_t) { return projections + 2 * d * h + 6 * h * d_h * d_h + 2 * h * d_h + out; }, true},
        {"gated DeltaNet", "19", "h · d_h²", [](std::uint64_t) { return std::uint64_t(0); }, 0, h * d_h * d_h,
         [=](std::uint64_t) { return projections + 4 * d * h + 7 * h * d_h * d_h + 2 * h * d_h + out; }, true},
    };
}

}  // namespace

std::vector<VariantRow> variant_costs(const VariantShapes& s) {
    std::vector<VariantRow> table;
    for (const Row& r : rows_at(s)) {
        VariantRow v;
        v.name = r.name, v.chapter = r.chapter, v.kept = r.kept, v.trained = r.trained;
        v.per_token = r.per_token, v.state = r.state;
        v.kept_short = r.tokens(s.short_n) * r.per_token + r.state;
        v.kept_long = r.tokens(s.long_n) * r.per_token + r.state;
        v.bytes_short = v.kept_short * s.model.layers * s.bytes_per_number;
        v.bytes_long = v.kept_long * s.model.layers * s.bytes_per_number;
        v.flops_short = r.flops(s.short_n), v.flops_long = r.flops(s.long_n);
        table.push_back(v);
    }
    return table;
}

std::vector<VariantRun> variant_runs(const CopyTaskSettings& base, const CopyScale& scale,
                                     const std::function<Progress(std::size_t)>& progress,
                                     const std::vector<std::string>& only) {
    const std::size_t h = base.heads, d_h = base.d_model / std::max<std::size_t>(1, h);
    const std::size_t groups = scale.kv_heads == 0 ? h / 2 : scale.kv_heads;
    if (groups <= 1 || groups >= h || h % groups != 0)
        throw InputError(describe("GQA with ", groups, " key–value groups of ", h,
                                  " heads (it needs more than 1 group, fewer than the heads, dividing them)"));
    if (scale.window == 0 || scale.top_k == 0 || scale.indexer_rank == 0)
        throw InputError("a window, top-k and an indexer of at least 1");
    // the rows' variants, in the order of rows_at: the mixer, the variant, trained or evaluated
    struct Spec {
        Mixer mixer;
        Variant variant;
        bool trained;
    };
    Variant mqa, gqa, mla, window, sinks, logit, top;
    mqa.kv_heads = 1, gqa.kv_heads = groups;
    mla.latent = scale.latent == 0 ? 2 * d_h : scale.latent;
    window.window = scale.window;
    sinks.window = scale.window, sinks.sinks = scale.sinks;
    logit.sink_logit = true;
    top.top_k = scale.top_k, top.indexer_rank = scale.indexer_rank;
    const std::vector<Spec> specs = {{Mixer::softmax, {}, true},      {Mixer::softmax, mqa, true},
                                     {Mixer::softmax, gqa, true},     {Mixer::softmax, mla, true},
                                     {Mixer::softmax, window, false}, {Mixer::softmax, sinks, false},
                                     {Mixer::softmax, logit, true},   {Mixer::softmax, top, false},
                                     {Mixer::linear, {}, true},       {Mixer::delta, {}, true},
                                     {Mixer::gated_delta, {}, true}};
    const std::vector<VariantRow> names = variant_costs();
    CopyTaskSettings mha_settings = base;
    mha_settings.mixer = Mixer::softmax, mha_settings.variant = {};
    const std::vector<Tokens> held_out = held_out_sequences(mha_settings);  // every row's (seed, V and L)
    const auto asked = [&](std::size_t r) {
        return only.empty() || std::find(only.begin(), only.end(), names[r].name) != only.end();
    };
    bool read_mha = false;  // a row asked for reads MHA's model (row 0)
    for (std::size_t r = 0; r < specs.size(); ++r) read_mha = read_mha || (asked(r) && !specs[r].trained);
    std::vector<VariantRun> runs(specs.size());
    std::vector<std::size_t> to_train;  // rows asked for (or MHA's, which the others read) that train
    std::vector<Progress> said(specs.size());
    for (std::size_t r = 0; r < specs.size(); ++r) {
        VariantRun& run = runs[r];
        run.name = names[r].name, run.trained = specs[r].trained;
        if (!specs[r].trained || (!asked(r) && !(r == 0 && read_mha))) continue;
        run.settings = base;
        run.settings.mixer = specs[r].mixer, run.settings.variant = specs[r].variant;
        to_train.push_back(r), said[r] = progress ? progress(r) : Progress();
    }
    // the trainings side by side, one model a thread (threads.hpp): a model's numbers are its own
    // thread's alone, the same bits at any count
    threads::split(to_train.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            VariantRun& run = runs[to_train[i]];
            const TrainedModel t = train_copy_task(run.settings, said[to_train[i]]);
            run.model = t.trained, run.held_out = t.after;  // on held_out_sequences(run.settings)
        }
    });
    for (std::size_t r = 0; r < specs.size(); ++r) {
        VariantRun& run = runs[r];
        if (specs[r].trained || !asked(r)) continue;  // trained above, or not asked: its name, no model
        // the MHA row's model (row 0), evaluated with the variant
        run.settings = mha_settings;
        run.model = runs[0].model;
        if (specs[r].variant.top_k > 0) set_indexer_from_heads(run.model, specs[r].variant.indexer_rank);
        run.model.variant = specs[r].variant;
        run.held_out = halves(model_forward(run.model, held_out), held_out, base.half_length);
    }
    return runs;
}

std::vector<VariantRow> variant_table(const std::vector<VariantRun>& runs, const VariantShapes& shapes) {
    std::vector<VariantRow> table = variant_costs(shapes);
    if (runs.size() != table.size())
        throw InputError(describe(runs.size(), " runs for the ", table.size(), " rows of the table"));
    for (std::size_t r = 0; r < table.size(); ++r) table[r].accuracy = runs[r].held_out.accuracy_second;
    return table;
}

const VariantRun& run_named(const std::vector<VariantRun>& runs, const char* name) {
    for (const VariantRun& run : runs)
        if (run.name == name) return run;
    throw InputError(std::string("no run of the variant ") + name);
}
