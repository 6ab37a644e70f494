// Chapter 18 · Multi-head latent attention
//
// The lesson: keys and values read out of one small latent per token (math.cpp), the
// decoupled RoPE key that every head shares, the naive form, the absorbed form that attends
// over the cached latents directly, what a decoded token costs each way, and the cache
// per token of real models; checked against MLA's definition written out as loops in double.
//
// The numbers of X and of the weights are random (seeded, the same on every machine), as in
// chapters 07 and 15: the flags change every shape.
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/18_latent_attention/checks.hpp"
#include "chapters/18_latent_attention/inputs.hpp"
#include "chapters/18_latent_attention/math.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"

namespace {

std::string g(std::uint64_t v) { return grouped(v); }
std::string giga(std::uint64_t flops) { return format_number(double(flops) / 1e9, 2) + " G"; }
std::string gib(std::uint64_t bytes) { return format_number(double(bytes) / double(1ULL << 30), 1) + " GiB"; }

// What every step shows: the sequence, what math.cpp computed, and its shapes.
struct Shown {
    Lesson& lesson;
    const Inputs& in;  // X and the eight projections
    const LatentForms& r;
    const SequenceSource& input;
    std::size_t n, d_model;
};

// Step: the sequence.
void show_sequence(const Shown& s) {
    const LatentShape& z = s.r.s;
    s.lesson.say(fmt::format(
        "{} tokens of width d_model = {}; h = {} heads of d_h = {}; a key–value latent of\n"
        "d_c = {}, a query latent of d_c' = {}, and a RoPE part of d_h^R = {}. Token t stands at\n"
        "position t, and attention is causal: a decoder's.\n{}",
        s.n, s.d_model, z.h, z.d_h, z.d_c, z.d_cq, z.d_rope, s.input.embeddings_said()));
    s.lesson.show(s.in.seq.X, Style().decimals(2));
}

// Step: the latent: one row per token, from which K and V are read.
void show_latent(const Shown& s) {
    const LatentShape& z = s.r.s;
    s.lesson.say(fmt::format(
        "c_KV = X · W_DKV squeezes each token to d_c = {} numbers. Every head's key and value is\n"
        "read back out of it, K = c_KV · W_UK and V = c_KV · W_UV, each (n × h·d_h) = ({} × {}).\n"
        "A decoder caches c_KV, not K and V: per token {} numbers instead of 2·h·d_h = {}.",
        z.d_c, s.n, z.h * z.d_h, z.d_c, s.r.mha_elements));
    for (const Matrix* m : {&s.in.W.W_DKV, &s.in.W.W_UK, &s.in.W.W_UV}) s.lesson.show(*m, Style().decimals(2).svg());
    s.lesson.show(s.r.c_KV, Style().decimals(2).svg());
    s.lesson.show(s.r.K, Style().decimals(2).svg());
    s.lesson.show(s.r.V, Style().decimals(2).svg());
    s.lesson.table({"one token", "X row", "c_KV row (cached)", "K and V rows (not cached)"},
                   {{"numbers", g(s.d_model), g(z.d_c), fmt::format("2 × {} × {} = {}", z.h, z.d_h, s.r.mha_elements)}});
}

// Step: the decoupled RoPE key and the per-head RoPE queries.
void show_rope(const Shown& s) {
    const LatentShape& z = s.r.s;
    s.lesson.say(fmt::format(
        "Positions enter through a separate part, d_h^R = {} wide, turned by RoPE (chapter 14):\n"
        "K_rope = RoPE(X · W_KR), ONE key per token that all {} heads share, and cached beside\n"
        "c_KV; Q_rope = RoPE(c_Q · W_QR), a RoPE query per head, with c_Q = X · W_DQ. Why not\n"
        "turn K itself? Key j turned is c_KV_j · W_UK_i · R_j: its rotation R_j sits between\n"
        "the query and c_KV_j and depends on j, so W_UK could no longer be folded into the\n"
        "query ({}). The cache per token is d_c + d_h^R = {} + {} = {} numbers.",
        z.d_rope, z.h, s.lesson.ref("absorbed"), z.d_c, z.d_rope, s.r.cache_elements));
    s.lesson.show(s.r.K_rope, Style().decimals(2));
    s.lesson.show(s.r.Q_rope, Style().decimals(2));
}

// Step: the naive form.
void show_naive(const Shown& s) {
    const LatentShape& z = s.r.s;
    s.lesson.say(fmt::format(
        "Head i's query is [Q_i, Q_rope_i] and its key [K_i, K_rope], d_h + d_h^R = {} wide:\n"
        "  head{{i}}_weights = causal softmax((Q_i · K_iᵀ + Q_rope_i · K_ropeᵀ) / √{})\n"
        "  output = [head0_weights · V_0, …] · W_O",
        z.d_h + z.d_rope, z.d_h + z.d_rope));
    std::vector<Lesson::SideBySide> weights;
    for (const Matrix& head : s.r.weights) weights.push_back({head, Style().svg()});
    s.lesson.show_side_by_side(weights);
    s.lesson.show(s.r.output_naive);
}

// Step: the absorbed form.
void show_absorbed(const Shown& s) {
    const LatentShape& z = s.r.s;
    s.lesson.say(fmt::format(
        "Q_i · K_iᵀ = Q_i · (c_KV · W_UK_i)ᵀ = (Q_i · W_UK_iᵀ) · c_KVᵀ: fold W_UK_i into the\n"
        "query, and the scores come from the cached latents directly. Likewise\n"
        "(weights_i · V_i) · W_O_i = (weights_i · c_KV) · (W_UV_i · W_O_i): fold W_UV_i into W_O.\n"
        "  Q_absorbed = [Q_0 · W_UK_0ᵀ, …]            (n × h·d_c)\n"
        "  W_UVO = [W_UV_0 · W_O_0; …], stacked       (h·d_c × d_model)\n"
        "  head{{i}}_weights_absorbed = causal softmax((Q_absorbed_i · c_KVᵀ\n"
        "                                             + Q_rope_i · K_ropeᵀ) / √{})\n"
        "  output_absorbed = [head0_weights_absorbed · c_KV, …] · W_UVO\n"
        "The scale stays 1/√(d_h + d_h^R): the scores are the same numbers, only summed\n"
        "over d_c = {} instead of d_h = {}. Nothing but c_KV and K_rope is read of the keys.",
        z.d_h + z.d_rope, z.d_c, z.d_h));
    s.lesson.show(s.r.Q_absorbed, Style().decimals(2));
    std::vector<Lesson::SideBySide> weights;
    for (const Matrix& head : s.r.weights_absorbed) weights.push_back({head, Style()});
    s.lesson.show_side_by_side(weights);
    s.lesson.show(s.r.output_absorbed);
    s.lesson.say("largest |output_absorbed − output_naive| = " + format_number(s.r.largest_difference, 7));
}

// Step: FLOPs per decoded token, three ways.
void show_flops(const Shown& s) {
    const LatentShape& z = s.r.s;
    const DecodeFlops &here = s.r.flops_here, &a = s.r.flops_v3_short, &b = s.r.flops_v3_long, &k = s.r.v3_per_key;
    s.lesson.say(
        "One new token at position L − 1 attends over L cached tokens. FLOPs per layer (a multiply\n"
        "and an add are 2), besides what every form does alike (its c_KV, k_R, c_Q, q_C, q_R:\n"
        "2·d_model·(d_c + d_h^R + d_c') + 2·d_c'·h·(d_h + d_h^R)):\n"
        "  naive over cached latents  4·L·d_c·h·d_h + 2·L·h·(2·d_h + d_h^R) + 2·h·d_h·d_model\n"
        "  naive over cached K and V  4·d_c·h·d_h   + 2·L·h·(2·d_h + d_h^R) + 2·h·d_h·d_model\n"
        "  absorbed                   2·h·d_h·d_c   + 2·L·h·(2·d_c + d_h^R) + 2·h·d_c·d_model\n"
        "(rebuild K and V of every cached token; or cache K and V themselves, as large as MHA's;\n"
        "or attend in the latent's width).");
    const auto row = [&](const std::string& form, const std::string& cached, const std::string& v3_cached,
                         std::uint64_t f_here, std::uint64_t f_a, std::uint64_t f_b) {
        return TextRow{form, cached, v3_cached, g(f_here), giga(f_a), giga(f_b)};
    };
    // cached a token and layer: c_KV and K_rope; or K, V and K_rope
    const PublishedModel v3 = published_model("DeepSeek-V3");
    const std::string latents = g(s.r.cache_elements), v3_latents = g(mla_cache_elements(v3.d_c, v3.d_rope));
    const std::string kv = g(mha_cache_elements(z.h, z.d_h) + z.d_rope),
                      v3_kv = g(mha_cache_elements(v3.h, v3.d_h) + v3.d_rope);
    s.lesson.say(fmt::format(
        "cached: the numbers a decoder keeps a token and layer. The latent forms keep c_KV and\n"
        "K_rope, d_c + d_h^R = {} + {}; the naive form over K and V keeps every head's K and V and\n"
        "the shared K_rope, 2·h·d_h + d_h^R = {} + {} (MHA keeps 2·h·d_h = {}: no RoPE key apart).",
        z.d_c, z.d_rope, s.r.mha_elements, z.d_rope, s.r.mha_elements));
    s.lesson.table({"form", "cached", "cached, V3", fmt::format("FLOPs, L = {}", s.n), "V3, L = 4 096", "V3, L = 131 072"},
                   {row("naive, latents", latents, v3_latents, here.naive_latent, a.naive_latent, b.naive_latent),
                    row("naive, K, V, K_rope", kv, v3_kv, here.naive_kv, a.naive_kv, b.naive_kv),
                    row("absorbed", latents, v3_latents, here.absorbed, a.absorbed, b.absorbed),
                    row("(shared)", "", "", here.shared, a.shared, b.shared)});
    s.lesson.say(fmt::format(
        "Here the absorbed form costs {} FLOPs, the naive form {} over cached latents\n"
        "and {} over cached K and V. At DeepSeek-V3's sizes one more cached token costs the\n"
        "absorbed form 2·h·(2·d_c + d_h^R) = {} FLOPs, attention over cached K and V\n"
        "2·h·(2·d_h + d_h^R) = {} ({}× less: d_c = {} is wider than d_h = {}), and the naive\n"
        "form over latents {} (its K and V rebuilt, then attended). So at L = 131 072 the\n"
        "absorbed form does {}× the FLOPs of attention over a cache of K and V, and {}× fewer\n"
        "than rebuilding K and V: it spends arithmetic to read a cache {}× smaller, and a\n"
        "decoding step waits on reading the cache more than on arithmetic.",
        g(here.absorbed), g(here.naive_latent), g(here.naive_kv), g(k.absorbed), g(k.naive_kv),
        format_number(double(k.absorbed) / double(k.naive_kv), 1), v3.d_c, v3.d_h, g(k.naive_latent),
        format_number(double(b.absorbed) / double(b.naive_kv), 1),
        format_number(double(b.naive_latent) / double(b.absorbed), 0),
        format_number(double(mha_cache_elements(v3.h, v3.d_h) + v3.d_rope) /
                          double(mla_cache_elements(v3.d_c, v3.d_rope)), 0)));
}

// Step: the cache per token of real models.
void show_cache(const Shown& s) {
    s.lesson.say(
        "The cache per token and layer, in numbers (DeepSeek-V2, Table 1): MHA 2·h·d_h, GQA\n"
        "2·g·d_h, MQA 2·d_h, MLA d_c + d_h^R. In bytes per token: × layers × 2 (bfloat16).");
    std::vector<TextRow> body;
    for (const CacheRow& c : cache_table())
        body.push_back({c.model, c.attention, g(c.layers), g(c.elements), g(c.bytes_per_token), gib(c.context_bytes)});
    s.lesson.table({"model", "attention", "layers", "a token, a layer", "bytes a token", "131 072 tokens"}, body);
    std::string sources = "where the numbers come from:";
    for (const PublishedModel& m : published_models())
        for (std::size_t line = 0; line < m.source.size(); ++line)
            sources += fmt::format("\n  {:<12} {}", line == 0 ? m.name : "", m.source[line]);
    s.lesson.say(sources);
    s.lesson.say(fmt::format("This chapter's layer caches c_KV and K_rope: {} numbers a token where MHA's K and V\n"
                             "would be {}.", s.r.cache_elements, s.r.mha_elements));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, input_help);
    Flags f;
    add_flags(lesson, f);
    return lesson.run(argc, argv, [&] {
        const Inputs in = draw_inputs(input, f, lesson.given("--d-model"));
        const LatentForms r = latent_forms(in.seq.X, in.W, f.s);
        const Shown s{lesson, in, r, input, rows(in.seq.X), cols(in.seq.X)};
        lesson.labels({{"tokens", in.seq.tokens}, {"dimensions", in.seq.dimensions}, {"latent", r.latent},
                       {"query latent", r.query_latent}, {"head columns", r.head_columns}, {"rope", r.rope},
                       {"head rope", r.head_rope}, {"absorbed columns", r.absorbed_columns}});
        lesson.list(in.seq.matrices());
        lesson.list(in.W.matrices());
        lesson.list(r.matrices());
        lesson.step("sequence", "The sequence", [&] { show_sequence(s); });
        lesson.step("latent", "One latent per token: K and V read out of c_KV", [&] { show_latent(s); });
        lesson.step("rope", "The decoupled RoPE key, shared by every head", [&] { show_rope(s); });
        lesson.step("naive", "The naive form", [&] { show_naive(s); });
        lesson.step("absorbed", "The absorbed form: attend over the latents", [&] { show_absorbed(s); });
        lesson.step("flops", "What a decoded token costs, counted", [&] { show_flops(s); });
        lesson.step("cache", "The cache per token", [&] { show_cache(s); });
        lesson.step("checks", "Self-checks", [&] { check_latent(lesson.checks(), in.seq.X, in.W, r); });
        lesson.present();
    });
}
