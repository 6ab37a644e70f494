#include "chapters/16_induction_head/math.hpp"

#include <algorithm>
#include <cmath>
#include <string>

HeadScores head_scores(const ModelForward<float>& f, std::size_t half) {
    HeadScores s;
    const std::size_t n = f.length;
    for (const Mat<float>& A : f.weights) {
        double previous = 0, induction = 0;
        // ┌ exercise head-scores
        for (std::size_t b = 0; b < f.batch; ++b) {  // row b·n + i is query i of sequence b
            for (std::size_t i = 1; i < n; ++i) previous += A(b * n + i, i - 1);
            for (std::size_t i = half; i < n; ++i) induction += A(b * n + i, i - half + 1);
        }
        // └ stub: (void)A;
        s.previous_token.push_back(previous / double(f.batch * (n - 1)));
        s.induction.push_back(induction / double(f.batch * (n - half)));
    }
    return s;
}

Generation generate(const AttentionOnlyModel<float>& m, const Tokens& sequence, std::size_t half) {
    Generation g;
    const std::size_t n = sequence.size(), d = cols(m.E), V = rows(m.E), H = m.layers * m.heads;
    const std::size_t prompt = half + prompt_repeat, dh = d / m.heads;
    g.prompt.assign(sequence.begin(), sequence.begin() + long(prompt));
    g.expected.assign(sequence.begin() + long(prompt), sequence.end());
    std::vector<Mat<float>> K(H, Mat<float>::from_shape({n, dh})), Vc = K;  // the cache: n rows each
    g.cached_logits = Mat<float>::from_shape({n, V});
    Tokens tokens = g.prompt;
    for (std::size_t t = 0; t < n; ++t) {
        // 1. x = E[token] + P[t]                                       (1 × d)
        Mat<float> x = Mat<float>::from_shape({1, d});
        for (std::size_t c = 0; c < d; ++c) x(0, c) = m.E(tokens[t], c) + m.P(t, c);
        for (std::size_t l = 0; l < m.layers; ++l) {
            Mat<float> next = x;
            for (std::size_t h = 0; h < m.heads; ++h) {
                const std::size_t k = l * m.heads + h;
                // 2. q, k, v of token t; k and v become row t of the cache
                std::vector<float> q(dh, 0.0f), z(dh, 0.0f), w(t + 1);
                for (std::size_t e = 0; e < dh; ++e) {
                    K[k](t, e) = Vc[k](t, e) = 0.0f;
                    for (std::size_t c = 0; c < d; ++c) {
                        q[e] += x(0, c) * m.W_Q[k](c, e);
                        K[k](t, e) += x(0, c) * m.W_K[k](c, e);
                        Vc[k](t, e) += x(0, c) * m.W_V[k](c, e);
                    }
                }
                // 3. one query over the t + 1 cached keys: no mask needed
                float largest = -INFINITY, sum = 0.0f;
                for (std::size_t j = 0; j <= t; ++j) {
                    w[j] = 0.0f;
                    for (std::size_t e = 0; e < dh; ++e) w[j] += q[e] * K[k](j, e);
                    largest = std::max(largest, w[j] /= std::sqrt(float(dh)));
                }
                for (std::size_t j = 0; j <= t; ++j) sum += (w[j] = std::exp(w[j] - largest));
                for (std::size_t j = 0; j <= t; ++j)
                    for (std::size_t e = 0; e < dh; ++e) z[e] += w[j] / sum * Vc[k](j, e);
                for (std::size_t c = 0; c < d; ++c)  // 4. the head's output joins the residual
                    for (std::size_t e = 0; e < dh; ++e) next(0, c) += z[e] * m.W_O[k](e, c);
            }
            x = next;
        }
        for (std::size_t v = 0; v < V; ++v) {  // 5. logits of position t; greedy next token
            g.cached_logits(t, v) = 0.0f;
            for (std::size_t c = 0; c < d; ++c) g.cached_logits(t, v) += x(0, c) * m.U(c, v);
        }
        if (t + 1 < n && t + 1 >= prompt) tokens.push_back(argmax_of_row(g.cached_logits, t));
    }
    g.generated.assign(tokens.begin() + long(prompt), tokens.end());
    g.full_logits = model_forward(m, {tokens}).logits;
    for (std::size_t i = 0; i < g.generated.size(); ++i) g.right += g.generated[i] == g.expected[i];
    return g;
}

namespace {

// 2L tokens whose first half are all different when V ≥ L (a partial Fisher–Yates shuffle;
// uniform when V < L), the second half a copy: the copy to generate is then unambiguous.
Tokens distinct_segment(Random& rng, std::size_t vocabulary, std::size_t half) {
    Tokens segment(2 * half);
    std::vector<std::size_t> pool(vocabulary);
    for (std::size_t v = 0; v < vocabulary; ++v) pool[v] = v;
    for (std::size_t i = 0; i < half; ++i) {
        const std::size_t j = vocabulary >= half ? i + std::size_t(rng.uniform() * double(vocabulary - i))
                                                 : std::size_t(rng.uniform() * double(vocabulary));
        std::swap(pool[i % vocabulary], pool[j]);
        segment[i] = segment[i + half] = pool[i % vocabulary];
    }
    return segment;
}

// The heads whose trained scores reach role_score, and the held-out halves with heads zeroed.
void name_and_ablate(Induction& r, const std::vector<Tokens>& held_out) {
    const auto best = [](const std::vector<double>& v) {
        return std::size_t(std::max_element(v.begin(), v.end()) - v.begin());
    };
    r.previous_head = best(r.scores_after.previous_token), r.induction_head = best(r.scores_after.induction);
    const std::size_t H = r.settings.layers * r.settings.heads, L = r.settings.half_length;
    for (std::size_t k = 0; k < H; ++k) {
        const bool previous = r.scores_after.previous_token[k] >= role_score;
        const bool induction = r.scores_after.induction[k] >= role_score;
        if (previous) r.previous_heads.push_back(k);
        if (induction) r.induction_heads.push_back(k);
        if (!previous && !induction) r.other_heads.push_back(k);
    }
    const auto without = [&](const std::vector<std::size_t>& heads) {  // those heads' outputs set to 0
        std::vector<bool> ablated(H, false);
        for (std::size_t k : heads) ablated[k] = true;
        return halves(model_forward(r.trained, held_out, ablated), held_out, L);
    };
    for (std::size_t k = 0; k < H; ++k) r.ablated.push_back(without({k}));
    r.without_previous = without(r.previous_heads), r.without_induction = without(r.induction_heads);
}

// The numbers the lesson shows or keeps as matrices: the sequence, the curves, the scores,
// the accuracy and the generated sequence.
void as_matrices(Induction& r) {
    r.tokens = token_row(r.shown);
    r.loss_first_half = Matrix::from_shape({r.curve.size(), 1});
    r.loss_second_half = Matrix::from_shape({r.curve.size(), 1});
    for (std::size_t i = 0; i < r.curve.size(); ++i) {
        r.loss_first_half(i, 0) = float(r.curve[i].loss_first);
        r.loss_second_half(i, 0) = float(r.curve[i].loss_second);
    }
    r.table_stride = std::max<std::size_t>(1, r.curve.size() / 8);  // about 8 rows
    for (std::size_t i = 0; i < r.curve.size(); ++i) {
        const LoggedStep& row = r.curve[i];
        r.curve_steps.push_back(row.step), r.curve_first.push_back(row.loss_first);
        r.curve_second.push_back(row.loss_second);
        if (i % r.table_stride == 0 || i + 1 == r.curve.size()) r.table_rows.push_back(i);
    }
    const std::size_t H = r.scores_after.induction.size();
    r.score_table = Matrix::from_shape({H, 4});  // (heads × 4)
    for (std::size_t k = 0; k < H; ++k) {
        r.score_table(k, 0) = float(r.scores_before.previous_token[k]);
        r.score_table(k, 1) = float(r.scores_after.previous_token[k]);
        r.score_table(k, 2) = float(r.scores_before.induction[k]);
        r.score_table(k, 3) = float(r.scores_after.induction[k]);
    }
    r.accuracy = Matrix::from_shape({1, 2});
    r.accuracy(0, 0) = float(r.after.accuracy_first), r.accuracy(0, 1) = float(r.after.accuracy_second);
    Tokens sequence = r.generation.prompt;
    sequence.insert(sequence.end(), r.generation.generated.begin(), r.generation.generated.end());
    r.generated_tokens = token_row(sequence);
}

}  // namespace

MatrixList Induction::matrices() const {
    MatrixList list = {{"tokens", tokens, "", "", "", MatrixKind::indices},
                       {"loss_first_half", loss_first_half, ""},
                       {"loss_second_half", loss_second_half, ""},
                       {"E", trained.E, ""},
                       {"P", trained.P, ""},
                       {"U", trained.U, ""}};
    for (std::size_t k = 0; k < settings.layers * settings.heads; ++k) {
        const int layer = int(k / settings.heads + 1), head = int(k % settings.heads);
        const std::string suffix = "_L" + std::to_string(layer) + "_H" + std::to_string(head);
        // One family per matrix of a head: the page switches between its layers and heads.
        const auto per_head = [&](const ListedMatrix& m, const std::string& family) {
            list.push_back(m.in_family(family, head, layer));
        };
        per_head({"W_Q" + suffix, trained.W_Q[k], ""}, "W_Q");
        per_head({"W_K" + suffix, trained.W_K[k], ""}, "W_K");
        per_head({"W_V" + suffix, trained.W_V[k], ""}, "W_V");
        per_head({"W_O" + suffix, trained.W_O[k], ""}, "W_O");
        per_head({"weights" + suffix + "_before", shown_before.weights[k], "at the start", "tokens", "tokens",
                  MatrixKind::attention_weights},
                 "weights_before");
        per_head({"weights" + suffix, shown_after.weights[k], "head " + head_name(settings, k) + " after training",
                  "tokens", "tokens", MatrixKind::attention_weights},
                 "weights");
    }
    list.push_back({"head_scores", score_table, "", "heads", "scores"});
    list.push_back({"accuracy", accuracy, "", "trained", "halves"});
    list.push_back({"generated_tokens", generated_tokens, "", "", "", MatrixKind::indices});
    list.push_back({"cached_logits", generation.cached_logits, ""});
    list.push_back({"full_logits", generation.full_logits, ""});
    return list;
}

Induction train_induction(const Settings& s, const Progress& progress) {
    Induction r;
    r.settings = s;
    const std::size_t L = s.half_length, V = s.vocabulary;
    Random held(0);  // the held-out stream, after the held-out sequences: the generation's prompt comes from it
    const std::vector<Tokens> held_out = held_out_sequences(s, &held);
    r.shown = held_out[0];
    TrainedModel t = train_copy_task(s, progress);
    r.start = std::move(t.start), r.trained = std::move(t.trained), r.curve = std::move(t.curve);
    r.before = t.before, r.after = t.after;
    r.scores_before = head_scores(model_forward(r.start, held_out), L);
    r.shown_before = model_forward(r.start, {r.shown});
    r.scores_after = head_scores(model_forward(r.trained, held_out), L);
    r.shown_after = model_forward(r.trained, {r.shown});
    name_and_ablate(r, held_out);
    r.drop_step = std::size_t(s.steps) + 1;
    for (const LoggedStep& row : r.curve)
        if (row.loss_second < 0.5 * std::log(double(V))) { r.drop_step = std::size_t(row.step); break; }
    r.generation = generate(r.trained, distinct_segment(held, V, L), L);
    Random small(s.seed + 101);
    const std::vector<Tokens> tiny = repeated_sequences(small, 2, 5, 3, 2);
    r.check_small = gradient_check(in_double(random_model(5, 6, 4, 2, 2, true, s.seed + 7)), tiny, 1e-5);
    for (Mat<float>* w : parameters(r.trained)) r.parameter_count += w->size();
    as_matrices(r);
    return r;
}
