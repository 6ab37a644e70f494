#include "common/numbers/random_embeddings.hpp"

Matrix random_embeddings(const Labels& tokens, std::size_t d_model, Random& random) {
    Labels words;                                                 // the distinct words met so far
    Matrix table = Matrix::from_shape({tokens.size(), d_model});  // one row per distinct word
    Matrix X = Matrix::from_shape({tokens.size(), d_model});      // (n × d_model)
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::size_t w = index_of(words, tokens[i]);
        if (w == words.size()) {
            words.push_back(tokens[i]);
            for (std::size_t d = 0; d < d_model; ++d) table(w, d) = random.normal();
        }
        for (std::size_t d = 0; d < d_model; ++d) X(i, d) = table(w, d);
    }
    return X;
}
