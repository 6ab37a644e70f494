// The variants of the attention-only model (common/copy_model/attention_only_model.hpp's Variant)
// against things computed another way: the hand-written backward pass against central
// differences in double (copy_task's gradient_check) for each variant and their combinations;
// the limits where a variant is plain attention (a window and sinks covering every key, top-k
// of every key, a sink logit of −∞), exactly; cases worked by hand (equal scores: the sink's
// share and the ties of top-k); the indexer built from a head ranks as the head.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/copy_model/attention_only_model.hpp"
#include "common/copy_model/copy_task.hpp"
#include "common/copy_model/score_indexer.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"

namespace {

std::vector<Tokens> random_batch(std::uint64_t seed, std::size_t count, std::size_t n, std::size_t vocabulary) {
    Random rng(seed);
    std::vector<Tokens> batch(count, Tokens(n));
    for (Tokens& s : batch)
        for (std::size_t& t : s) t = std::size_t(rng.uniform() * double(vocabulary));
    return batch;
}

// A small random model in double with the variant: V = 5, n = 7, d = 8, 2 layers of h heads.
AttentionOnlyModel<double> small_model(const Variant& v, std::size_t heads = 2, std::uint64_t seed = 7,
                                       Mixer mixer = Mixer::softmax) {
    return in_double(random_model(5, 7, 8, 2, heads, true, seed, mixer, v));
}

bool same(const std::vector<Mat<double>>& a, const std::vector<Mat<double>>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (!(a[k] == b[k])) return false;
    return true;
}

}  // namespace

TEST_CASE("variants: the backward pass equals central differences in double (window, sinks, sink logit, top-k)") {
    struct Case {
        std::string name;
        Variant v;
    };
    Variant window, sinks, logit, all, top, top_window;
    window.window = 3;
    sinks.window = 2, sinks.sinks = 2;
    logit.sink_logit = true;
    all.window = 3, all.sinks = 1, all.sink_logit = true;
    top.top_k = 3, top.indexer_rank = 2;
    top_window.top_k = 2, top_window.window = 4, top_window.sinks = 1, top_window.sink_logit = true;
    const std::vector<Case> cases = {{"window 3", window},  {"window 2 + 2 sinks", sinks},
                                     {"sink logit", logit}, {"window 3 + 1 sink + sink logit", all},
                                     {"top-3", top},        {"top-2 of window 4 + 1 sink + sink logit", top_window}};
    for (const Case& c : cases) {
        CAPTURE(c.name);
        AttentionOnlyModel<double> m = small_model(c.v);
        if (c.v.sink_logit)  // away from its start, so that every term of ds_h counts
            for (std::size_t k = 0; k < m.sink.size(); ++k) m.sink[k](0, 0) = 0.3 * double(k) - 0.5;
        const GradientCheck g = gradient_check(m, random_batch(3, 3, 7, 5), 1e-5);
        MESSAGE(c.name, ": ", g.entries, " entries, largest relative error ", g.max_relative_error);
        std::size_t entries = 0;  // every entry of every parameter, the sinks too
        for (Mat<double>* p : parameters(m)) entries += p->size();
        CHECK(g.entries == entries);
        CHECK(g.max_relative_error < 1e-6);
    }
}

TEST_CASE("variants: a window and sinks hide keys (weight exactly 0), the rest sum to 1") {
    Variant v;
    v.window = 3, v.sinks = 2;
    const std::size_t n = 7;
    const ModelForward<double> f = model_forward(small_model(v), random_batch(4, 2, n, 5));
    for (const Mat<double>& A : f.weights)
        for (std::size_t r = 0; r < rows(A); ++r) {
            const std::size_t i = r % n;
            double sum = 0;
            for (std::size_t j = 0; j < n; ++j) {
                const bool read = j <= i && (j + 3 > i || j < 2);
                if (!read) CHECK(A(r, j) == 0.0);
                if (read) CHECK(A(r, j) > 0.0);
                sum += A(r, j);
            }
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
        }
}

TEST_CASE("variants: a window and s sinks with s + w ≥ n, and top-k with k = n, are full attention, exactly") {
    const std::vector<Tokens> batch = random_batch(5, 3, 7, 5);
    const AttentionOnlyModel<double> plain = small_model({});
    const ModelForward<double> full = model_forward(plain, batch);
    for (std::size_t w = 1; w <= 7; ++w) {
        AttentionOnlyModel<double> m = plain;  // trained without: a window needs no numbers of its own
        m.variant.window = w, m.variant.sinks = 7 - w;
        const ModelForward<double> f = model_forward(m, batch);
        CAPTURE(w);
        CHECK(same(f.weights, full.weights));
        CHECK(f.logits == full.logits);
    }
    Variant top;
    top.top_k = 7;
    const ModelForward<double> f = model_forward(small_model(top), batch);
    CHECK(same(f.weights, full.weights));
    CHECK(f.logits == full.logits);
    CHECK(f.index_scores.size() == 4);
}

TEST_CASE("variants: a sink logit of −∞ is plain softmax, exactly; the sink's share is 1 − the row's sum") {
    const std::vector<Tokens> batch = random_batch(6, 3, 7, 5);
    Variant v;
    v.sink_logit = true;
    AttentionOnlyModel<double> m = small_model(v);
    CHECK(m.sink.size() == 4);
    CHECK(m.sink[3](0, 0) == 0.0);  // the start stated in the header
    const ModelForward<double> at_zero = model_forward(m, batch);
    for (std::size_t k = 0; k < 4; ++k)
        for (std::size_t r = 0; r < rows(at_zero.weights[k]); ++r) {
            double sum = 0;
            for (std::size_t j = 0; j < 7; ++j) sum += at_zero.weights[k](r, j);
            CHECK(at_zero.sink_share[k](r, 0) > 0.0);
            CHECK(sum + at_zero.sink_share[k](r, 0) == doctest::Approx(1.0).epsilon(1e-12));
        }
    for (Mat<double>& s : m.sink) s(0, 0) = -std::numeric_limits<double>::infinity();
    const ModelForward<double> f = model_forward(m, batch), plain = model_forward(small_model({}), batch);
    CHECK(same(f.weights, plain.weights));
    CHECK(f.logits == plain.logits);
    for (const Mat<double>& share : f.sink_share) CHECK(double(xt::amax(share)()) == 0.0);
}

namespace {

// One layer, one head (d = d_h = 4), W_Q = 0: every score is 0, so a query's visible keys
// all weigh the same, and every indexer score is 0 when W_IQ = 0 (ties everywhere).
AttentionOnlyModel<double> flat_model(const Variant& v) {
    AttentionOnlyModel<double> m = in_double(random_model(3, 6, 4, 1, 1, true, 2, Mixer::softmax, v));
    m.W_Q[0].fill(0.0);
    for (Mat<double>& w : m.W_IQ) w.fill(0.0);
    return m;
}

}  // namespace

TEST_CASE("variants: equal scores, worked by hand: the sink takes 1/(i + 2), top-k keeps the lowest positions") {
    const std::vector<Tokens> batch = {{0, 1, 2, 0, 1, 2}};
    SUBCASE("sink logit s = 0 beside i + 1 scores of 0: each key and the sink get 1/(i + 2)") {
        Variant v;
        v.sink_logit = true;
        const ModelForward<double> f = model_forward(flat_model(v), batch);
        for (std::size_t i = 0; i < 6; ++i) {
            CHECK(f.sink_share[0](i, 0) == doctest::Approx(1.0 / double(i + 2)).epsilon(1e-15));
            for (std::size_t j = 0; j <= i; ++j) CHECK(f.weights[0](i, j) == doctest::Approx(1.0 / double(i + 2)));
        }
    }
    SUBCASE("sink logit s = ln 3: the sink weighs 3 keys") {
        Variant v;
        v.sink_logit = true;
        AttentionOnlyModel<double> m = flat_model(v);
        m.sink[0](0, 0) = std::log(3.0);
        const ModelForward<double> f = model_forward(m, batch);
        for (std::size_t i = 0; i < 6; ++i)
            CHECK(f.sink_share[0](i, 0) == doctest::Approx(3.0 / double(i + 4)).epsilon(1e-14));
    }
    SUBCASE("top-2 with every indexer score 0: the two lowest positions, 1/2 each") {
        Variant v;
        v.top_k = 2;
        const ModelForward<double> f = model_forward(flat_model(v), batch);
        for (std::size_t i = 0; i < 6; ++i)
            for (std::size_t j = 0; j < 6; ++j)
                CHECK(f.weights[0](i, j) == (j <= i && j < 2 ? (i == 0 ? 1.0 : 0.5) : 0.0));
    }
    SUBCASE("top-2 of a window of 3 with 1 sink: the sink and the window's lowest key") {
        Variant v;
        v.top_k = 2, v.window = 3, v.sinks = 1;
        const ModelForward<double> f = model_forward(flat_model(v), batch);
        const std::size_t kept[6][2] = {{0, 0}, {0, 1}, {0, 1}, {0, 1}, {0, 2}, {0, 3}};  // query 3 sees 0, 1, 2, 3
        for (std::size_t i = 1; i < 6; ++i)
            for (std::size_t j = 0; j < 6; ++j)
                CHECK(f.weights[0](i, j) == (j == kept[i][0] || j == kept[i][1] ? 0.5 : 0.0));
    }
}

TEST_CASE("variants: the indexer built from the heads (r = d_h) scores as the heads, and top-k keeps their best keys") {
    const std::size_t n = 7, k_keep = 3;
    const std::vector<Tokens> batch = random_batch(8, 3, n, 5);
    for (const std::size_t kv_heads : {std::size_t(0), std::size_t(1)}) {
        CAPTURE(kv_heads);
        Variant v;
        v.kv_heads = kv_heads;
        AttentionOnlyModel<double> m = small_model(v);
        set_indexer_from_heads(m, 4);  // d_h = 8 / 2
        m.variant.top_k = k_keep;
        const ModelForward<double> f = model_forward(m, batch);
        for (std::size_t k = 0; k < 4; ++k)
            for (std::size_t b = 0; b < 3; ++b)
                for (std::size_t i = 0; i < n; ++i) {
                    const std::size_t r = b * n + i;
                    std::vector<std::pair<double, std::size_t>> scores;  // the head's own q_i · k_j
                    for (std::size_t j = 0; j <= i; ++j) {
                        double qk = 0;
                        for (std::size_t c = 0; c < 4; ++c) qk += f.Q[k](r, c) * f.K[k](b * n + j, c);
                        CHECK(f.index_scores[k](r, j) == doctest::Approx(qk).epsilon(1e-9));
                        scores.push_back({-qk, j});
                    }
                    std::sort(scores.begin(), scores.end());
                    for (std::size_t t = 0; t < scores.size(); ++t)
                        CHECK((f.weights[k](r, scores[t].second) > 0.0) == (t < k_keep));
                }
    }
}

TEST_CASE("variants: a rank-1 indexer of a head whose form W_Q W_Kᵀ has rank 1 is exact; r outside [1, d] is refused") {
    AttentionOnlyModel<double> m = small_model({});
    for (std::size_t k = 0; k < 4; ++k)  // keep column 0 of W_Q and W_K: B = W_Q[:, 0] W_K[:, 0]ᵀ
        for (std::size_t i = 0; i < 8; ++i)
            for (std::size_t c = 1; c < 4; ++c) m.W_Q[k](i, c) = 0;
    set_indexer_from_heads(m, 1);
    for (std::size_t k = 0; k < 4; ++k) {
        double worst = 0;
        for (std::size_t i = 0; i < 8; ++i)
            for (std::size_t j = 0; j < 8; ++j) {
                double b = 0;
                for (std::size_t c = 0; c < 4; ++c) b += m.W_Q[k](i, c) * m.W_K[k](j, c);
                worst = std::max(worst, std::abs(m.W_IQ[k](i, 0) * m.W_IK[k](j, 0) - b));
            }
        CHECK(worst < 1e-12);
    }
    CHECK_THROWS_AS(set_indexer_from_heads(m, 0), InputError);
    CHECK_THROWS_AS(set_indexer_from_heads(m, 9), InputError);
}

TEST_CASE("variants: what does not fit is refused") {
    Variant window;
    window.window = 2;
    CHECK_THROWS_AS(random_model(5, 7, 8, 2, 2, true, 1, Mixer::linear, window), InputError);
    Variant groups;
    groups.kv_heads = 3;
    CHECK_THROWS_AS(random_model(5, 7, 8, 2, 2, true, 1, Mixer::softmax, groups), InputError);
    Variant logit;
    logit.sink_logit = true;
    AttentionOnlyModel<double> m = small_model({});
    m.variant = logit;  // no sinks drawn
    CHECK_THROWS_AS(model_forward(m, random_batch(1, 1, 7, 5)), InputError);
}

TEST_CASE("variants: shared keys (MQA, GQA) and latent keys (MLA): the backward pass equals central differences") {
    struct Case {
        std::string name;
        std::size_t heads, kv_heads, latent;
        Mixer mixer;
    };
    const std::vector<Case> cases = {{"MQA, 4 heads", 4, 1, 0, Mixer::softmax},
                                     {"GQA, 4 heads in 2 groups", 4, 2, 0, Mixer::softmax},
                                     {"MLA, d_c = 6", 2, 0, 6, Mixer::softmax},
                                     {"MLA, d_c = 3, 4 heads", 4, 0, 3, Mixer::softmax},
                                     {"GQA with the gated delta rule", 4, 2, 0, Mixer::gated_delta},
                                     {"MLA with linear attention", 2, 0, 4, Mixer::linear}};
    for (const Case& c : cases) {
        CAPTURE(c.name);
        Variant v;
        v.kv_heads = c.kv_heads, v.latent = c.latent;
        const AttentionOnlyModel<double> m = small_model(v, c.heads, 9, c.mixer);
        const std::size_t groups = c.latent > 0 ? 0 : 2 * c.kv_heads;  // 2 layers
        CHECK(m.W_K.size() == groups);
        CHECK(m.W_DKV.size() == (c.latent > 0 ? 2u : 0u));
        const GradientCheck g = gradient_check(m, random_batch(10, 3, 7, 5), 1e-5);
        MESSAGE(c.name, ": ", g.entries, " entries, largest relative error ", g.max_relative_error);
        CHECK(g.max_relative_error < 1e-6);
    }
}

TEST_CASE("variants: a group's heads read the same keys and values, its first head's of the MHA draw") {
    Variant gqa;
    gqa.kv_heads = 2;
    const AttentionOnlyModel<double> mha = small_model({}, 4), m = small_model(gqa, 4);
    CHECK(m.W_K.size() == 4);  // 2 layers × 2 groups
    for (std::size_t l = 0; l < 2; ++l)
        for (std::size_t g = 0; g < 2; ++g) {
            CHECK(m.W_K[l * 2 + g] == mha.W_K[l * 4 + 2 * g]);
            CHECK(m.W_V[l * 2 + g] == mha.W_V[l * 4 + 2 * g]);
        }
    for (std::size_t k = 0; k < 8; ++k) CHECK(m.W_Q[k] == mha.W_Q[k]);
    const ModelForward<double> f = model_forward(m, random_batch(11, 2, 7, 5));
    CHECK(f.K[0] == f.K[1]);
    CHECK(f.V[6] == f.V[7]);
    CHECK(!(f.K[1] == f.K[2]));
}

TEST_CASE("variants: latent keys are c W_UK^h with c = X W_DKV, by loops") {
    Variant v;
    v.latent = 3;
    const AttentionOnlyModel<double> m = small_model(v);
    const ModelForward<double> f = model_forward(m, random_batch(12, 2, 7, 5));
    double worst = 0;
    for (std::size_t k = 0; k < 4; ++k) {
        const std::size_t l = k / 2;
        for (std::size_t r = 0; r < 14; ++r)
            for (std::size_t c = 0; c < 4; ++c) {
                double key = 0, value = 0;
                for (std::size_t a = 0; a < 3; ++a) {
                    double latent = 0;
                    for (std::size_t i = 0; i < 8; ++i) latent += f.X[l](r, i) * m.W_DKV[l](i, a);
                    key += latent * m.W_UK[k](a, c), value += latent * m.W_UV[k](a, c);
                }
                worst = std::max({worst, std::abs(key - f.K[k](r, c)), std::abs(value - f.V[k](r, c))});
            }
    }
    CHECK(worst < 1e-12);
}
