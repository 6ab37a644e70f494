// Chapter @NN@ · @Title@
//
// The lesson: the self-attention of math.cpp, shown step by step, then checked against the
// reference attention in double precision.
#include <string>

#include "chapters/@folder@/checks.hpp"
#include "chapters/@folder@/math.hpp"
#include "common/inputs/sequence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"

namespace {

const std::string default_sentence = "the cat sat on the mat";

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, "\"" + default_sentence + "\"");

    return lesson.run(argc, argv, [&] {
        const Sequence seq = load_sequence(input, default_sentence);
        const SelfAttention r = self_attention(seq.X);  // math.cpp
        lesson.labels({{"tokens", seq.tokens}, {"dimensions", seq.dimensions}});
        lesson.list(seq.matrices());
        lesson.list(r.matrices());

        lesson.step("embeddings", "The sequence as a matrix", [&] {
            lesson.say("Each token is a row of numbers: its embedding.");
            lesson.show(seq.X, Style().decimals(1));
        });
        lesson.step("scores", "Every token against every token, scaled", [&] {
            lesson.say("scaled_scores(i, j) = Σ_d X[i, d] · X[j, d] / √d_model, one pair at a time.");
            lesson.show(r.scaled_scores);
        });
        lesson.step("weights", "Softmax: each row becomes weights that sum to 1", [&] {
            lesson.show(r.weights, Style().svg());
        });
        lesson.step("output", "What each token takes in: a weighted mix of the sequence", [&] {
            lesson.show(r.output);
        });
        lesson.step("checks", "Self-checks", [&] { check_self_attention(lesson.checks(), seq, r); });
        lesson.present();
    });
}
