#include "common/reference/latent_attention_by_loops.hpp"

#include <vector>

#include "common/attention/multi_head.hpp"
#include "common/numbers/project_in_double.hpp"
#include "common/reference/rope_by_loops.hpp"

namespace {

using Rows = std::vector<std::vector<double>>;

Matrix rounded(const Rows& A) {
    Matrix M = Matrix::from_shape({A.size(), A.empty() ? 0 : A[0].size()});
    for (std::size_t t = 0; t < A.size(); ++t)
        for (std::size_t c = 0; c < A[t].size(); ++c) M(t, c) = float(A[t][c]);
    return M;
}

Rows in_double(const Matrix& M) {
    Rows A(rows(M), std::vector<double>(cols(M)));
    for (std::size_t t = 0; t < rows(M); ++t)
        for (std::size_t c = 0; c < cols(M); ++c) A[t][c] = M(t, c);
    return A;
}

}  // namespace

LatentByLoops latent_attention_by_loops(const Matrix& X, const LatentWeights& W, std::size_t h, double base) {
    const std::size_t n = rows(X), d_h = cols(W.W_UK) / h, d_r = cols(W.W_KR);
    LatentByLoops r;
    const Rows c_KV = project_in_double(X, W.W_DKV), c_Q = project_in_double(X, W.W_DQ);
    r.c_KV = rounded(c_KV);
    r.K = times_in_double(c_KV, W.W_UK);
    r.V = times_in_double(c_KV, W.W_UV);
    r.Q = times_in_double(c_Q, W.W_UQ);
    r.K_rope = rope_by_loops(rounded(project_in_double(X, W.W_KR)), 0, base);
    const Matrix Q_rope_unturned = times_in_double(c_Q, W.W_QR);
    r.Q_rope = Matrix::from_shape({n, h * d_r});
    for (std::size_t i = 0; i < h; ++i) {
        const Matrix turned = rope_by_loops(head_columns(Q_rope_unturned, h, i), 0, base);
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t c = 0; c < d_r; ++c) r.Q_rope(t, i * d_r + c) = turned(t, c);
    }
    // Each head's query and key d_h + d_h^R wide: the content part, then the RoPE part.
    const std::size_t w = d_h + d_r;
    Matrix Qs = Matrix::from_shape({n, h * w}), Ks = Matrix::from_shape({n, h * w});
    for (std::size_t i = 0; i < h; ++i)
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t c = 0; c < w; ++c) {
                Qs(t, i * w + c) = c < d_h ? r.Q(t, i * d_h + c) : r.Q_rope(t, i * d_r + c - d_h);
                Ks(t, i * w + c) = c < d_h ? r.K(t, i * d_h + c) : r.K_rope(t, c - d_h);  // one k_R for all
            }
    r.heads = heads_by_loops(Qs, Ks, r.V, h, h, KeysSeen::causal());  // scale 1/√(d_h + d_h^R)
    r.output = times_in_double(in_double(r.heads.output), W.W_O);
    return r;
}
