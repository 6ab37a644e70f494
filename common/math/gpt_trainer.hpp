// A GPT (gpt_model.hpp) trained on a text's token ids as nanoGPT's train.py trains it:
//
//   each step s = 0 … S−1:
//     B windows of T + 1 tokens at random starts in the training ids (Random(seed): the same
//     batches on every machine); inputs the first T of each, targets the last T
//     lr_s = warmup over 100 steps, then cosine to lr/10 at the last step (adamw.hpp)
//     forward, loss, backward, the gradient clipped to norm 1, AdamW (gpt_training.hpp)
//
//   held-out loss = the mean cross-entropy over whole windows of T + 1 held-out tokens (windows
//   start at 0, T, 2T, …): all of them, or 200 spread evenly over the text when there are more
//   (window ⌊k·W/200⌋ of the W, k = 0 … 199): one number, the same every time it is measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/math/gpt_model.hpp"
#include "common/math/random.hpp"

struct GptRecipe {
    GptConfig config;
    std::size_t batch = 12, steps = 2000, warmup = 100;
    float learning_rate = 1e-3f;
    std::uint64_t seed = 1;
};

struct LoggedLoss {
    std::size_t step = 0;       // steps taken
    double train = 0;           // the mean loss of the batches since the last entry (step 0:
                                // the fresh model's loss on the first batch)
    double held_out = 0;        // held_out_loss after that many steps
};

// B windows at random starts: inputs[b] = ids[s_b … s_b + T − 1], targets[b] the ids one later.
void random_batch(const Tokens& ids, std::size_t batch, std::size_t context, Random& rng, std::vector<Tokens>& inputs,
                  std::vector<Tokens>& targets);

constexpr std::size_t held_out_windows = 200;  // at most this many windows measure the held-out loss

// The mean loss over the whole windows of the ids, at most `most` of them spread evenly (an
// InputError when there is none).
double held_out_loss(const Gpt<float>& model, const Tokens& ids, std::size_t most = held_out_windows,
                     std::size_t windows_per_pass = 32);

// Trains `model` by the recipe on `train_ids`, measuring the held-out loss before training and
// every `every` steps (and after the last); `progress(step, loss)` after each step when given.
std::vector<LoggedLoss> train_gpt(Gpt<float>& model, const GptRecipe& recipe, const Tokens& train_ids,
                                  const Tokens& held_out_ids, std::size_t every,
                                  const std::function<void(std::size_t, double)>& progress = {});
