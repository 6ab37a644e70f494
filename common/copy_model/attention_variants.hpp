// Every attention variant the tutorial builds, side by side: what a layer keeps while decoding,
// what one decoded token costs, and how well the attention-only model of chapter 16 learns the
// copy task with it.
//
//   row              chapter  kept per layer (elements)   keys read per query
//   MHA              7, 16    n · 2·h·d_h                 n
//   MQA              15       n · 2·d_h                   n (one key–value head for all)
//   GQA (g groups)   15       n · 2·g·d_h                 n
//   MLA              18       n · (d_c + d_h^R)           n (latents; absorbed form)
//   sliding window   20       min(n, w) · 2·h·d_h         min(n, w)
//   window + sinks   20       min(n, w + s) · 2·h·d_h     min(n, w + s)
//   sink logit       20       n · 2·h·d_h                 n (and the sink's column)
//   top-k            20       n · (2·h·d_h + d^I)         min(n, k), after the indexer reads n
//   linear           19       h · (d_h² + d_h)            a state S (d_h × d_h) and z (d_h) per head
//   DeltaNet         19       h · d_h²                    a state S per head
//   gated DeltaNet   19       h · d_h²                    a state S per head
//
// (a) The cache, at ONE published model's shape for every row: DeepSeek-V3's attention (h = 128,
//     d_h = 128, d_model = 7168, 61 layers; MLA as published, d_c = 512, d_h^R = 64, d_c' = 1536:
//     cache_size.hpp), 2 bytes a number (bfloat16), at n = 4096 and n = 131072 tokens. Every
//     other row is that shape's MHA with the one change the row names: GQA with g = 8 (chapter
//     18's table), the window w = 4096 (Mistral 7B: Jiang et al. 2023, "Mistral 7B", Table 1,
//     window_size), s = 4 sinks (Xiao et al. 2024, "Efficient Streaming Language Models with
//     Attention Sinks", §3.2 and Table 2: four initial tokens suffice), top-k with k = 2048 and
//     the lightning indexer of DeepSeek-V3.2 (DeepSeek-AI 2025, "DeepSeek-V3.2-Exp", §2.1, Eq. 1:
//     I_ts = Σ_j w_tj · ReLU(q^I_tj · k^I_s); H^I = 64 indexer heads of d^I = 128, one indexer key
//     per token, and k = 2048: its released inference/config_671B_v3.2.json, index_n_heads,
//     index_head_dim, index_topk). V3.2 puts its indexer over MLA; here it stands over MHA, as the
//     accuracy column's model does. The sinks s_h of the sink logit are weights, not cache.
// (b) FLOPs per decoded token per layer (the new token's projections, its attention, W_O), a
//     multiply-add counted 2 and a lone multiply or add 1; exps, feature maps, norms, the gates'
//     σ and divisions are not counted. MHA: 2·d·3·h·d_h + 4·L·h·d_h + 2·h·d_h·d over L keys.
//     MLA: chapter 18's decode_flops, shared + absorbed (decode_flops.hpp). Top-k adds its indexer:
//     2·d·(H^I·d^I + d^I + H^I) for q^I, k^I and w (V3.2 takes q^I from its query latent; MHA has
//     none, so from x), and 2·n·H^I·d^I + 2·n·H^I for the scores of all n keys. Linear: the
//     projections, S += φk vᵀ (2·h·d_h²), z += φk (h·d_h), φqᵀS (2·h·d_h²), φq·z (2·h·d_h).
//     DeltaNet: the projections and β (2·d·h), Sᵀk̂, k̂ eᵀ and Sᵀq̂ (2·h·d_h² each), e = β(v − Sᵀk̂)
//     (2·h·d_h); gated: α's projection (2·d·h) and α·S (h·d_h²) besides.
// (c) The accuracy: the share of right next-token guesses in the second half of chapter 16's
//     held-out sequences (copy_task.hpp), after the same training (the caller's CopyTaskSettings:
//     steps, seed, …) with only the variant changed; each model is trained once. Window, sinks
//     and top-k are NOT trained with: the MHA row's trained model is evaluated with them (a
//     window and sinks need no numbers of their own; top-k's indexer is built from the trained
//     heads by score_indexer.hpp), as Mistral's window and StreamingLLM's sinks are used on
//     models trained otherwise. The sink logit, MQA, GQA, MLA and the three recurrences are
//     trained with their variant.
//     At the copy task's scale (n = 2L tokens, held-out lag L), query i copies key i − L + 1,
//     L − 1 positions back: a window reads it only when w ≥ L (w = 8 of L = 16 by default: it
//     matters); 4 sinks give back keys 0 … 3, of which queries L, L + 1, L + 2 need keys 1, 2, 3
//     (query L − 1 counts in neither half); top-k keeps k = 4 of
//     up to n keys by an indexer of rank 2 (d_h = 8 at d_model 32 and 4 heads). MLA's latent is
//     d_c = 2·d_h (V3's is 4·d_h, but at d_h = 8 that is the whole d_model), GQA has h/2 groups.
//     (MLA here has no decoupled RoPE key: the model's positions are learned and added to the
//     tokens, so nothing position-dependent stands between a query and a latent.)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/copy_model/copy_task.hpp"
#include "common/long_context/cache_size.hpp"

// The published numbers of columns (a) and (b), sources above.
struct VariantShapes {
    PublishedModel model = published_model("DeepSeek-V3");
    std::uint64_t gqa_groups = 8;                      // g
    std::uint64_t window = 4096, sinks = 4;            // w (Mistral 7B), s (StreamingLLM)
    std::uint64_t top_k = 2048;                        // k (DeepSeek-V3.2)
    std::uint64_t indexer_heads = 64, indexer_width = 128;  // H^I, d^I (DeepSeek-V3.2)
    std::uint64_t bytes_per_number = 2;                // bfloat16
    std::uint64_t short_n = 4096, long_n = 131072;
};

// The copy task's scale of the variants (c), defaults above; 0: the default said there.
struct CopyScale {
    std::size_t window = 8, sinks = 4, top_k = 4, indexer_rank = 2;
    std::size_t kv_heads = 0;  // GQA's groups (0: h/2; must be in (1, h) and divide h)
    std::size_t latent = 0;    // MLA's d_c (0: 2·d_h)
};

// One row of the table.
struct VariantRow {
    std::string name, chapter;     // "sliding window", "20"
    std::string kept;              // the formula of what a layer keeps: "min(n, w) · 2·h·d_h"
    std::uint64_t per_token = 0;   // elements a cached token costs per layer
    std::uint64_t state = 0;       // elements per layer whatever n (a recurrence's state)
    std::uint64_t kept_short = 0, kept_long = 0;    // elements per layer at short_n, long_n
    std::uint64_t bytes_short = 0, bytes_long = 0;  // all layers: kept × layers × bytes per number
    std::uint64_t flops_short = 0, flops_long = 0;  // per decoded token per layer, L = short_n, long_n
    bool trained = true;           // false: the MHA model, evaluated with the variant
    double accuracy = 0;           // (c), held out, second half
};

// The rows in the order above, with (a) and (b); accuracy 0.
std::vector<VariantRow> variant_costs(const VariantShapes& s = {});

// One model of column (c): its settings, its training, and what it scores held out.
struct VariantRun {
    std::string name;
    CopyTaskSettings settings;        // the mixer and variant it was trained with (MHA's for the evaluated rows)
    AttentionOnlyModel<float> model;  // trained; for the evaluated rows, MHA's with the variant set
    Halves held_out;                  // on held_out_sequences(settings)
    bool trained = true;
};
// Column (c): one run per row of variant_costs, in its order, from `base` (its mixer and variant
// are replaced); `progress(row)` hears the training of each trained row. An InputError when the
// scale does not fit the base (the GQA groups, the window and top-k at least 1).
// With `only` (row names), just those rows are run, and MHA's for the rows that read its model;
// the others keep their name and no model.
std::vector<VariantRun> variant_runs(const CopyTaskSettings& base, const CopyScale& scale = {},
                                     const std::function<Progress(std::size_t)>& progress = {},
                                     const std::vector<std::string>& only = {});

// The table: variant_costs with each run's second-half accuracy (runs from variant_runs).
std::vector<VariantRow> variant_table(const std::vector<VariantRun>& runs, const VariantShapes& shapes = {});
// The run of the row `name` ("MHA", "top-k", …); an InputError when there is none.
const VariantRun& run_named(const std::vector<VariantRun>& runs, const char* name);
