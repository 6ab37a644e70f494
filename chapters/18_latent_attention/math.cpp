#include "chapters/18_latent_attention/math.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include "common/attention/mask.hpp"
#include "common/attention/multi_head.hpp"
#include "common/attention/rotary.hpp"
#include "common/attention/softmax.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

void check_shape(const LatentShape& s) {
    if (s.d_rope % 2 != 0)
        throw InputError(describe("--rope-dim ", s.d_rope, " is odd: RoPE turns pairs of dimensions, so d_h^R must be even"));
}

// [A, B]: the columns of A, then those of B. (n × a), (n × b) → (n × (a + b))
static Matrix side_by_side(const Matrix& A, const Matrix& B) {
    Matrix M = Matrix::from_shape({rows(A), cols(A) + cols(B)});
    xt::view(M, xt::all(), xt::range(0, cols(A))) = A;
    xt::view(M, xt::all(), xt::range(cols(A), cols(A) + cols(B))) = B;
    return M;
}

// Writes `block` (n × w) into columns [i·w, (i+1)·w) of M.
static void put_head(Matrix& M, std::size_t i, const Matrix& block) {
    xt::view(M, xt::all(), xt::range(i * cols(block), (i + 1) * cols(block))) = block;
}

// The naive form: every head's key and value read out of c_KV, then attention as chapter 06.
static void naive_form(LatentForms& r, const Matrix& X, const LatentWeights& W) {
    const std::size_t n = rows(X), h = r.s.h;
    // pass 1: the latents and what is read out of them
    r.c_KV = matmul(X, W.W_DKV);  // (n × d_c)
    r.K = matmul(r.c_KV, W.W_UK);  // (n × h·d_h)
    r.V = matmul(r.c_KV, W.W_UV);  // (n × h·d_h)
    r.c_Q = matmul(X, W.W_DQ);     // (n × d_c')
    r.Q = matmul(r.c_Q, W.W_UQ);   // (n × h·d_h)
    // pass 2: the decoupled RoPE parts, token t at position t
    r.K_rope_unturned = matmul(X, W.W_KR);        // (n × d_h^R)
    r.K_rope = rotary(r.K_rope_unturned, 0);      // one key for every head
    r.Q_rope_unturned = matmul(r.c_Q, W.W_QR);    // (n × h·d_h^R)
    r.Q_rope = r.Q_rope_unturned;
    for (std::size_t i = 0; i < h; ++i) put_head(r.Q_rope, i, rotary(head_columns(r.Q_rope_unturned, h, i), 0));
    // pass 3: head by head, [Q_i, Q_rope_i] · [K_i, K_rope]ᵀ / √(d_h + d_h^R), causal softmax, · V_i
    const Matrix mask = causal_mask(n);
    r.concat = Matrix::from_shape({n, h * r.s.d_h});
    for (std::size_t i = 0; i < h; ++i) {
        const MaskedAttentionSteps a =
            masked_attention(side_by_side(head_columns(r.Q, h, i), head_columns(r.Q_rope, h, i)),
                             side_by_side(head_columns(r.K, h, i), r.K_rope), head_columns(r.V, h, i), mask);
        r.weights.push_back(a.weights);  // (n × n)
        put_head(r.concat, i, a.output);  // (n × d_h)
    }
    // pass 4: mix the heads
    r.output_naive = matmul(r.concat, W.W_O);  // (n × d_model)
}

// Head i's absorbed query, Q_i · W_UK_iᵀ, and its output matrix W_UV_i · W_O_i.
static void absorb(LatentForms& r, const LatentWeights& W) {
    const std::size_t h = r.s.h, d_h = r.s.d_h, d_c = r.s.d_c;
    r.Q_absorbed = Matrix::from_shape({rows(r.Q), h * d_c});
    r.W_UVO = Matrix::from_shape({h * d_c, cols(W.W_O)});
    r.Q_absorbed.fill(0.0f), r.W_UVO.fill(0.0f);
    for (std::size_t i = 0; i < h; ++i) {
        // ┌ exercise absorb
        const Matrix W_UK_i = head_columns(W.W_UK, h, i);  // (d_c × d_h)
        put_head(r.Q_absorbed, i, matmul_transposed(head_columns(r.Q, h, i), W_UK_i));  // (n × d_c)
        const Matrix W_O_i = xt::view(W.W_O, xt::range(i * d_h, (i + 1) * d_h), xt::all());  // (d_h × d_model)
        xt::view(r.W_UVO, xt::range(i * d_c, (i + 1) * d_c), xt::all()) =
            matmul(head_columns(W.W_UV, h, i), W_O_i);  // (d_c × d_model)
        // └ stub: (void)d_h;
    }
}

// The absorbed form: it reads the cache (c_KV, K_rope) and the new queries, nothing else.
static void absorbed_form(LatentForms& r) {
    const std::size_t n = rows(r.c_KV), h = r.s.h, d_c = r.s.d_c;
    const Matrix mask = causal_mask(n);
    r.latent_concat = Matrix::from_shape({n, h * d_c});
    r.latent_concat.fill(0.0f);
    for (std::size_t i = 0; i < h; ++i) {
        // ┌ exercise absorbed-head
        // scores against the latents, plus the RoPE part: (n × d_c)·(d_c × n) + (n × d_h^R)·(d_h^R × n)
        const Matrix scores = matmul_transposed(head_columns(r.Q_absorbed, h, i), r.c_KV) +
                              matmul_transposed(head_columns(r.Q_rope, h, i), r.K_rope);
        // the scale of the naive form's keys, d_h + d_h^R wide (not of the latent's d_c)
        const Matrix scaled = scores / std::sqrt(float(r.s.d_h + r.s.d_rope));
        r.weights_absorbed.push_back(softmax_rows(apply_mask(scaled, mask)));  // (n × n)
        put_head(r.latent_concat, i, matmul(r.weights_absorbed[i], r.c_KV));  // (n × d_c)
        // └ stub: r.weights_absorbed.push_back(xt::zeros<float>({n, n}));
    }
    r.output_absorbed = matmul(r.latent_concat, r.W_UVO);  // (n × h·d_c)·(h·d_c × d_model)
}

LatentForms latent_forms(const Matrix& X, const LatentWeights& W, const LatentShape& s) {
    LatentForms r;
    r.s = s;
    naive_form(r, X, W);
    absorb(r, W);
    absorbed_form(r);
    r.largest_difference = float(xt::amax(xt::abs(r.output_absorbed - r.output_naive))());
    r.cache_elements = mla_cache_elements(s.d_c, s.d_rope);
    r.mha_elements = mha_cache_elements(s.h, s.d_h);
    r.flops_here = decode_flops(cols(X), s, rows(X));
    const PublishedModel v3 = published_model("DeepSeek-V3");
    r.flops_v3_short = decode_flops(v3.d_model, shape_of(v3), short_context);
    r.flops_v3_long = decode_flops(v3.d_model, shape_of(v3), context_tokens);
    const DecodeFlops one = decode_flops(v3.d_model, shape_of(v3), 1), two = decode_flops(v3.d_model, shape_of(v3), 2);
    r.v3_per_key = {two.shared - one.shared, two.naive_latent - one.naive_latent, two.naive_kv - one.naive_kv,
                    two.absorbed - one.absorbed};
    const auto label = [](std::size_t count, std::size_t width, const std::string& inner) {
        Labels l;
        for (std::size_t c = 0; c < count * width; ++c)
            l.push_back((count > 1 ? "h" + std::to_string(c / width) + ":" : "") + inner + std::to_string(c % width));
        return l;
    };
    r.latent = label(1, s.d_c, "c"), r.query_latent = label(1, s.d_cq, "cq"), r.rope = label(1, s.d_rope, "r");
    r.head_columns = label(s.h, s.d_h, ""), r.head_rope = label(s.h, s.d_rope, "r");
    r.absorbed_columns = label(s.h, s.d_c, "c");
    return r;
}

std::vector<CacheRow> cache_table() {
    std::vector<CacheRow> table;
    const auto add = [&](const PublishedModel& m, const std::string& attention, std::uint64_t elements) {
        const std::uint64_t bytes = elements * m.layers * 2;  // bfloat16
        table.push_back({m.name, attention, m.layers, elements, bytes, bytes * context_tokens});
    };
    for (const PublishedModel& m : published_models()) {
        if (m.d_c == 0) {  // published with grouped-query attention
            add(m, "GQA, g = " + std::to_string(m.g), gqa_cache_elements(m.g, m.d_h));
        } else if (m.name == "DeepSeek-V3") {  // its shape with each attention, then as published
            add(m, "MHA", mha_cache_elements(m.h, m.d_h));
            add(m, "GQA, g = 8", gqa_cache_elements(8, m.d_h));
            add(m, "MQA", mqa_cache_elements(m.d_h));
            add(m, "MLA", mla_cache_elements(m.d_c, m.d_rope));
        } else {
            add(m, "MLA", mla_cache_elements(m.d_c, m.d_rope));
        }
    }
    return table;
}

MatrixList ChapterWeights::matrices() const {
    return {{"W_DQ", W_DQ, "", "dimensions", "query latent"},
            {"W_UQ", W_UQ, "", "query latent", "head columns"},
            {"W_QR", W_QR, "", "query latent", "head rope"},
            {"W_DKV", W_DKV, "", "dimensions", "latent"},
            {"W_UK", W_UK, "", "latent", "head columns"},
            {"W_UV", W_UV, "", "latent", "head columns"},
            {"W_KR", W_KR, "", "dimensions", "rope"},
            {"W_O", W_O, "", "head columns", "dimensions"}};
}

MatrixList LatentForms::matrices() const {
    MatrixList list = {{"c_KV", c_KV, "X · W_DKV", "tokens", "latent"},
                       {"K", K, "c_KV · W_UK", "tokens", "head columns"},
                       {"V", V, "c_KV · W_UV", "tokens", "head columns"},
                       {"K_rope_unturned", K_rope_unturned, "X · W_KR", "tokens", "rope"},
                       {"K_rope", K_rope, "RoPE(X · W_KR)", "tokens", "rope"},
                       {"c_Q", c_Q, "X · W_DQ", "tokens", "query latent"},
                       {"Q", Q, "c_Q · W_UQ", "tokens", "head columns"},
                       {"Q_rope_unturned", Q_rope_unturned, "c_Q · W_QR", "tokens", "head rope"},
                       {"Q_rope", Q_rope, "RoPE(c_Q · W_QR), head by head", "tokens", "head rope"}};
    for (std::size_t i = 0; i < s.h; ++i)  // the formula is said where they are shown
        list.push_back(ListedMatrix("head" + std::to_string(i) + "_weights", weights[i], "", "tokens", "tokens",
                                    MatrixKind::attention_weights)
                           .in_family("head_weights", int(i)));
    list.push_back({"concat", concat, "[head0_weights · V_0, …]", "tokens", "head columns"});
    list.push_back({"output_naive", output_naive, "concat · W_O", "tokens", "dimensions"});
    list.push_back({"Q_absorbed", Q_absorbed, "[Q_0 · W_UK_0ᵀ, …]", "tokens", "absorbed columns"});
    list.push_back({"W_UVO", W_UVO, "[W_UV_0 · W_O_0; …] stacked", "absorbed columns", "dimensions"});
    for (std::size_t i = 0; i < s.h; ++i)
        list.push_back(ListedMatrix("head" + std::to_string(i) + "_weights_absorbed", weights_absorbed[i], "", "tokens",
                                    "tokens", MatrixKind::attention_weights)
                           .in_family("head_weights_absorbed", int(i)));
    list.push_back({"latent_concat", latent_concat, "[head0_weights_absorbed · c_KV, …]", "tokens", "absorbed columns"});
    list.push_back({"output_absorbed", output_absorbed, "latent_concat · W_UVO", "tokens", "dimensions"});
    return list;
}
