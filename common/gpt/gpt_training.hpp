// Training a GPT (gpt_model.hpp) as nanoGPT's train.py does, one step at a time: forward, loss,
// backward, the gradient clipped to a global norm (1 by default), then AdamW at the step's
// learning rate (adamw.hpp; the rate of each step from scheduled_learning_rate there).
//
// And on a whole text's token ids, as train.py's loop:
//   each step s = 0 … S−1:
//     B windows of T + 1 tokens at random starts in the training ids (Random(seed): the same
//     batches on every machine); inputs the first T of each, targets the last T
//     lr_s = warmup over 100 steps, then cosine to lr/10 at the last step (adamw.hpp)
//     GptTrainer::step: forward, loss, backward, the gradient clipped to norm 1, AdamW
//
//   held-out loss = the mean cross-entropy over whole windows of T + 1 held-out tokens (windows
//   start at 0, T, 2T, …): all of them, or 200 spread evenly over the text when there are more
//   (window ⌊k·W/200⌋ of the W, k = 0 … 199): one number, the same every time it is measured.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/gpt/gpt_model.hpp"
#include "common/learning/adamw.hpp"
#include "common/numbers/random.hpp"

struct GptStep {
    double loss = 0;           // the batch's mean cross-entropy before the update
    double gradient_norm = 0;  // the global norm of the gradient before clipping
};

// The optimiser's state and every matrix a step works in, kept from step to step (a step then
// asks for no new memory).
class GptTrainer {
public:
    explicit GptTrainer(AdamWSettings settings = {}) : optimiser_(settings) {}

    // One step on inputs and targets (B × t): targets[b][i] is the token after inputs[b][i].
    // Updates the model; an InputError (before any change) when the batch does not fit it.
    GptStep step(Gpt<float>& model, const std::vector<Tokens>& inputs, const std::vector<Tokens>& targets,
                 float learning_rate, double clip_norm = 1.0);

    // The last step's forward pass and gradient (after clipping), for a lesson to show.
    const GptForward<float>& forward() const { return forward_; }
    const Gpt<float>& gradient() const { return gradient_; }

private:
    AdamW optimiser_;
    GptForward<float> forward_;
    Mat<float> d_logits_;
    Gpt<float> gradient_;
    GptBackwardBuffers<float> buffers_;
};

// ---- on a text ----

struct GptRecipe {
    GptConfig config;
    std::size_t batch = 12, steps = 2000, warmup = 100;
    float learning_rate = 1e-3f;
    std::uint64_t seed = 1;
    double repeats = 0.0;  // the share of windows that repeat a passage of their own (random_batch)
};

struct LoggedLoss {
    std::size_t step = 0;       // steps taken
    double train = 0;           // the mean loss of the batches since the last entry (step 0:
                                // the fresh model's loss on the first batch)
    double held_out = 0;        // held_out_loss after that many steps
    std::vector<double> probes; // what the training's probe measured then (none without a probe)
};

// B windows at random starts: inputs[b] = ids[s_b … s_b + T − 1], targets[b] the ids one later.
// With repeats > 0, each window w (its T + 1 ids) is, with that probability, given a copy of a
// passage of its own first half later on: m ids from a start a in [0, h − m] written over
// w[c … c + m − 1], c in [h, T + 1 − m], h = ⌊(T+1)/2⌋; m in [max(1, ⌊T/8⌋), h], a and c drawn
// uniformly. The ids after c can then be read from the first copy: what an induction head does.
// (No draw is made for the repeats at 0: the plain book's batches stay the same.)
void random_batch(const Tokens& ids, std::size_t batch, std::size_t context, Random& rng, std::vector<Tokens>& inputs,
                  std::vector<Tokens>& targets, double repeats = 0.0);

constexpr std::size_t held_out_windows = 200;  // at most this many windows measure the held-out loss

// The mean loss over the whole windows of the ids, at most `most` of them spread evenly (an
// InputError when there is none).
double held_out_loss(const Gpt<float>& model, const Tokens& ids, std::size_t most = held_out_windows,
                     std::size_t windows_per_pass = 32);

// Trains `model` by the recipe on `train_ids`, measuring the held-out loss before training and
// every `every` steps (and after the last); `progress(step, loss)` after each step when given;
// `probe(model)` at each of those measurements when given, its numbers logged beside the loss.
using TrainingProbe = std::function<std::vector<double>(const Gpt<float>&)>;
std::vector<LoggedLoss> train_gpt(Gpt<float>& model, const GptRecipe& recipe, const Tokens& train_ids,
                                  const Tokens& held_out_ids, std::size_t every,
                                  const std::function<void(std::size_t, double)>& progress = {},
                                  const TrainingProbe& probe = {});
