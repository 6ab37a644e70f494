// The side-by-side table of the attention variants (common/copy_model/attention_variants): each
// formula against the numbers worked by hand at DeepSeek-V3's shape (h = 128, d_h = 128,
// d_model = 7168, 61 layers, bfloat16), and the accuracy column against train_copy_task run
// on its own (a tiny budget: the same numbers exactly), the evaluated rows against the MHA
// model with the variant set by hand.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/copy_model/attention_variants.hpp"
#include "common/copy_model/score_indexer.hpp"
#include "common/numbers/input_error.hpp"

namespace {

VariantRow row_named(const std::vector<VariantRow>& table, const std::string& name) {
    for (const VariantRow& r : table)
        if (r.name == name) return r;
    FAIL("no row ", name);
    return {};
}

using U = std::uint64_t;

}  // namespace

TEST_CASE("variant table: the rows, in the header's order, and which are trained") {
    const std::vector<VariantRow> t = variant_costs();
    const std::vector<std::string> names = {"MHA",        "MQA",   "GQA",    "MLA",      "sliding window", "window + sinks",
                                            "sink logit", "top-k", "linear", "DeltaNet", "gated DeltaNet"};
    REQUIRE(t.size() == names.size());
    for (std::size_t r = 0; r < t.size(); ++r) {
        CHECK(t[r].name == names[r]);
        CHECK(t[r].trained == !(r == 4 || r == 5 || r == 7));  // window, window + sinks, top-k: evaluated
    }
}

TEST_CASE("variant table: what a layer keeps, and the bytes of 61 layers in bfloat16, worked by hand") {
    const std::vector<VariantRow> t = variant_costs();
    const VariantRow mha = row_named(t, "MHA");
    CHECK(mha.per_token == 2 * 128 * 128);                        // 32 768
    CHECK(mha.kept_short == U(4096) * 32768);                     // 134 217 728
    CHECK(mha.bytes_short == U(4096) * 32768 * 61 * 2);           // 16 374 562 816
    CHECK(mha.bytes_short == 16374562816ULL);
    CHECK(mha.bytes_long == 523986010112ULL);                     // chapter 18's number for V3 with MHA
    CHECK(row_named(t, "MQA").per_token == 2 * 128);
    CHECK(row_named(t, "GQA").bytes_long == U(131072) * 2 * 8 * 128 * 61 * 2);
    CHECK(row_named(t, "MLA").bytes_long == 9210691584ULL);       // (512 + 64) × 61 × 2 × 131 072: chapter 18's
    const VariantRow window = row_named(t, "sliding window"), sinks = row_named(t, "window + sinks");
    CHECK(window.bytes_short == mha.bytes_short);                 // n = w = 4096: the window holds everything
    CHECK(window.bytes_long == mha.bytes_short);                  // n = 131 072: still 4096 tokens
    CHECK(sinks.kept_long == U(4100) * 32768);                    // 4096 + 4 sinks: 134 348 800
    CHECK(row_named(t, "sink logit").bytes_long == mha.bytes_long);
    const VariantRow top = row_named(t, "top-k");
    CHECK(top.per_token == 32768 + 128);                          // and one indexer key of d^I = 128
    CHECK(top.kept_long == 4311744512ULL);                        // 131 072 × 32 896
    const VariantRow linear = row_named(t, "linear"), delta = row_named(t, "DeltaNet");
    CHECK(linear.state == U(128) * (128 * 128 + 128));            // 2 113 536, whatever n
    CHECK(linear.bytes_short == 257851392ULL);
    CHECK(linear.bytes_long == linear.bytes_short);
    CHECK(delta.bytes_long == U(128) * 128 * 128 * 61 * 2);       // 255 852 544
    CHECK(row_named(t, "gated DeltaNet").bytes_long == 255852544ULL);
}

TEST_CASE("variant table: FLOPs per decoded token per layer, worked by hand") {
    const std::vector<VariantRow> t = variant_costs();
    // MHA at L = 4096: q, k, v 2·7168·3·128·128 = 704 643 072; scores and weights · V
    // 4·4096·128·128 = 268 435 456; W_O 2·128·128·7168 = 234 881 024
    CHECK(row_named(t, "MHA").flops_short == 704643072ULL + 268435456ULL + 234881024ULL);
    CHECK(row_named(t, "MHA").flops_long == 939524096ULL + U(4) * 131072 * 128 * 128);  // 9 529 458 688
    CHECK(row_named(t, "MQA").flops_short == 741867520ULL);        // 2·7168·130·128 + the same attention and W_O
    CHECK(row_named(t, "GQA").flops_short == 767557632ULL);        // 2·7168·144·128 + …
    // MLA: shared 2·7168·2112 + 2·1536·128·192 = 105 775 104; absorbed 2 097 152 000 (chapter 18's check)
    CHECK(row_named(t, "MLA").flops_short == 105775104ULL + 2097152000ULL);
    CHECK(row_named(t, "sliding window").flops_long == row_named(t, "MHA").flops_short);
    CHECK(row_named(t, "window + sinks").flops_long == 939524096ULL + U(4) * 4100 * 128 * 128);  // 1 208 221 696
    // top-k at 131 072: MHA over 2048 keys (939 524 096 + 134 217 728) and the indexer:
    // 2·7168·(64·128 + 128 + 64) = 120 193 024, 2·131072·64·128 = 2 147 483 648, 2·131072·64 = 16 777 216
    CHECK(row_named(t, "top-k").flops_long == 3358195712ULL);
    CHECK(row_named(t, "top-k").flops_short == 939524096ULL + 134217728ULL + 120193024ULL + U(2) * 4096 * 64 * 128 +
                                                     U(2) * 4096 * 64);
    // the recurrences: 704 643 072 + 234 881 024 of projections, then per head
    CHECK(row_named(t, "linear").flops_short == 939524096ULL + 4 * 2097152 + 3 * 16384);           // 947 961 856
    CHECK(row_named(t, "DeltaNet").flops_short == 939524096ULL + 1835008 + 6 * 2097152 + 2 * 16384);  // 953 974 784
    CHECK(row_named(t, "gated DeltaNet").flops_short == 939524096ULL + 3670016 + 7 * 2097152 + 2 * 16384);
    for (const char* name : {"linear", "DeltaNet", "gated DeltaNet"})
        CHECK(row_named(t, name).flops_long == row_named(t, name).flops_short);  // a state: n does not count
}

TEST_CASE("variant table: the accuracies come from training (a tiny budget: train_copy_task's numbers exactly)") {
    CopyTaskSettings base;
    base.vocabulary = 6, base.half_length = 4, base.d_model = 16, base.heads = 4, base.batch = 4;
    base.steps = 3, base.log_every = 1, base.seed = 5;
    CopyScale scale;
    scale.window = 2, scale.sinks = 1, scale.top_k = 2;
    std::vector<std::size_t> heard;
    const std::vector<VariantRun> runs =
        variant_runs(base, scale, [&](std::size_t row) { return [&, row](int, int, const LoggedStep&) { heard.push_back(row); }; });
    REQUIRE(runs.size() == 11);
    const std::vector<Tokens> held_out = held_out_sequences(base);
    for (std::size_t r = 0; r < runs.size(); ++r) {
        CAPTURE(runs[r].name);
        if (runs[r].trained) {
            const TrainedModel t = train_copy_task(runs[r].settings, {});
            CHECK(runs[r].held_out.accuracy_second == t.after.accuracy_second);
            CHECK(runs[r].held_out.loss_second == t.after.loss_second);
            CHECK(runs[r].model.W_Q[0] == t.trained.W_Q[0]);
            CHECK(runs[r].settings.steps == 3);
        } else {  // the MHA model with the variant set by hand
            AttentionOnlyModel<float> m = runs[0].model;
            m.variant = runs[r].model.variant;
            if (m.variant.top_k > 0) set_indexer_from_heads(m, 2);
            const Halves h = halves(model_forward(m, held_out), held_out, base.half_length);
            CHECK(runs[r].held_out.accuracy_second == h.accuracy_second);
            CHECK(runs[r].held_out.loss_second != runs[0].held_out.loss_second);  // it changes what the heads read
        }
    }
    CHECK(runs[1].settings.variant.kv_heads == 1);
    CHECK(runs[2].settings.variant.kv_heads == 2);                       // h/2
    CHECK(runs[3].settings.variant.latent == 8);                         // 2·d_h
    CHECK(runs[4].model.variant.window == 2);
    CHECK(runs[5].model.variant.sinks == 1);
    CHECK(runs[7].model.variant.top_k == 2);
    CHECK(runs[8].settings.mixer == Mixer::linear);
    CHECK(runs[10].settings.mixer == Mixer::gated_delta);
    CHECK(heard.size() == 8 * 4);  // 8 trained rows, steps 0 … 3 each
    const std::vector<VariantRow> table = variant_table(runs);
    for (std::size_t r = 0; r < runs.size(); ++r) {
        CHECK(table[r].name == runs[r].name);
        CHECK(table[r].accuracy == runs[r].held_out.accuracy_second);
    }
    CHECK(&run_named(runs, "top-k") == &runs[7]);
    CHECK_THROWS_AS(run_named(runs, "no such row"), InputError);
    CopyTaskSettings two_heads = base;
    two_heads.heads = 2;  // GQA needs groups between 1 and h
    CHECK_THROWS_AS(variant_runs(two_heads), InputError);
}
