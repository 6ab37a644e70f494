#include "chapters/07_multi_head/math.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "common/attention/attention.hpp"
#include "common/numbers/matmul.hpp"

Heads split_into_heads(const Matrix& m, std::size_t h) {
    const std::size_t n = rows(m), d_k = cols(m) / h;
    // ┌ exercise split-heads
    const Heads by_token = xt::reshape_view(m, {n, h, d_k});  // (n × h × d_k): row t cut into h pieces
    return xt::transpose(by_token, {1, 0, 2});                // (h × n × d_k): piece i of every row
    // └ stub: return Heads(xt::zeros<float>({h, n, d_k}));
}

Matrix concat_heads(const Heads& heads) {
    const std::size_t h = heads.shape(0), n = heads.shape(1), d_v = heads.shape(2);
    Matrix concat = Matrix::from_shape({n, h * d_v});  // (n × h·d_v)
    // ┌ exercise concat-heads
    for (std::size_t i = 0; i < h; ++i)  // head i's block fills columns [i·d_v, (i+1)·d_v)
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t c = 0; c < d_v; ++c) concat(t, i * d_v + c) = heads(i, t, c);
    // └ stub: concat.fill(0.0f);
    return concat;
}

MultiHeadForms multi_head_forms(const Matrix& X, const MultiHeadWeights& W, std::size_t h) {
    const std::size_t n = rows(X), d_model = cols(X), d_k = d_model / h;
    MultiHeadForms r;
    r.n = n, r.d_model = d_model, r.h = h, r.d_k = d_k;
    // pass 1: head by head, each on a copy of its columns (BLAS takes no column slice)
    r.concat = Matrix::from_shape({n, h * d_k});  // (n × h·d_v)
    for (std::size_t i = 0; i < h; ++i) {
        OneHead one;
        one.Q = matmul(X, head_columns(W.W_Q, h, i));  // (n × d_k)
        one.K = matmul(X, head_columns(W.W_K, h, i));  // (n × d_k)
        one.V = matmul(X, head_columns(W.W_V, h, i));  // (n × d_v)
        const AttentionSteps a = scaled_dot_product_attention(one.Q, one.K, one.V);
        one.weights = a.weights, one.output = a.output;
        for (std::size_t q = 0; q < n; ++q) one.favourite.push_back(argmax_of_row(a.weights, q));
        for (std::size_t t = 0; t < n; ++t)  // head i's output fills columns [i·d_v, (i+1)·d_v) of concat
            for (std::size_t c = 0; c < d_k; ++c) r.concat(t, i * d_k + c) = a.output(t, c);
        r.heads.push_back(one);
    }
    // pass 2: mix the heads: (n × h·d_v) · (h·d_v × d_model) → (n × d_model)
    r.output = matmul(r.concat, W.W_O);
    // pass 3: the same with one split matrix, as real code does: project once, split, attend, concat
    r.Q = matmul(X, W.W_Q);                                // (n × h·d_k)
    r.Q_split = split_into_heads(r.Q, h);                  // (h × n × d_k)
    const Heads K = split_into_heads(matmul(X, W.W_K), h);  // (h × n × d_k)
    const Heads V = split_into_heads(matmul(X, W.W_V), h);  // (h × n × d_v)
    r.split.weights = Heads::from_shape({h, n, n});
    Heads outputs = Heads::from_shape({h, n, d_k});        // (h × n × d_v)
    for (std::size_t i = 0; i < h; ++i) {                  // the same attention on every head's block
        const AttentionSteps a = scaled_dot_product_attention(head(r.Q_split, i), head(K, i), head(V, i));
        xt::view(r.split.weights, i, xt::all(), xt::all()) = a.weights;
        xt::view(outputs, i, xt::all(), xt::all()) = a.output;
    }
    r.split.concat = concat_heads(outputs);                // (n × h·d_v)
    r.split.output = matmul(r.split.concat, W.W_O);        // (n × d_model)
    // pass 4: W_O as a sum over heads, each through its own rows
    r.summed = Matrix::from_shape({n, d_model});
    r.summed.fill(0.0f);
    for (std::size_t i = 0; i < h; ++i) r.summed += matmul(head_columns(r.concat, h, i), head_rows(W.W_O, h, i));
    return r;
}

MatrixList MultiHeadForms::matrices() const {
    MatrixList list;
    for (std::size_t i = 0; i < h; ++i) {
        const std::string head = "head" + std::to_string(i), columns = head + " columns";
        const std::string slice = "[:, " + std::to_string(i * d_k) + ":" + std::to_string((i + 1) * d_k) + "]";
        const int at = int(i);
        list.push_back(
            ListedMatrix(head + "_Q", heads[i].Q, "X · W_Q" + slice, "tokens", columns).in_family("head_Q", at));
        list.push_back(
            ListedMatrix(head + "_K", heads[i].K, "X · W_K" + slice, "tokens", columns).in_family("head_K", at));
        list.push_back(
            ListedMatrix(head + "_V", heads[i].V, "X · W_V" + slice, "tokens", columns).in_family("head_V", at));
        list.push_back(ListedMatrix(head + "_output", heads[i].output, head + "_weights · V_" + std::to_string(i),
                                    "tokens", columns)
                           .in_family("head_output", at));
    }
    for (std::size_t i = 0; i < h; ++i) {
        const std::string head = "head" + std::to_string(i);
        list.push_back(ListedMatrix(head + "_weights", heads[i].weights,
                                    "softmax(Q_" + std::to_string(i) + " K_" + std::to_string(i) + "ᵀ/√d_k)", "tokens", "tokens",
                                    MatrixKind::attention_weights)
                           .in_family("head_weights", int(i)));
    }
    const std::string pieces = h == 1   ? "head0_output"
                               : h == 2 ? "[head0_output, head1_output]"
                                        : "[head0_output, …, head" + std::to_string(h - 1) + "_output]";
    list.push_back({"concat", concat, pieces, "tokens", "head columns"});
    list.push_back({"output", output, "concat · W_O", "tokens", "dimensions"});
    list.push_back({"Q", Q, "X · W_Q", "tokens", "head columns"});
    return list;
}

Cost multi_head_cost(std::size_t n, std::size_t d_model, std::size_t h) {
    const auto product = [](std::uint64_t r, std::uint64_t k, std::uint64_t c) { return r * k * c; };
    const std::size_t d_k = d_model / h;
    Cost cost;
    for (std::size_t i = 0; i < h; ++i) {
        cost.projections += 3 * product(n, d_model, d_k);  // (n × d_model) · (d_model × d_k)
        cost.scores += product(n, d_k, n);                 // (n × d_k) · (d_k × n)
        cost.mix += product(n, n, d_k);                    // (n × n) · (n × d_v)
    }
    cost.output = product(n, h * d_k, d_model);  // (n × h·d_v) · (h·d_v × d_model)
    return cost;
}

double weight_moved(const Matrix& a, const Matrix& b) {
    double most = 0.0;
    for (std::size_t r = 0; r < rows(a); ++r) {
        double moved = 0.0;
        for (std::size_t c = 0; c < cols(a); ++c) moved += std::abs(double(a(r, c)) - double(b(r, c)));
        most = std::max(most, moved / 2.0);
    }
    return most;
}
