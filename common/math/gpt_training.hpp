// Training a GPT (gpt_model.hpp) as nanoGPT's train.py does, one step at a time: forward, loss,
// backward, the gradient clipped to a global norm (1 by default), then AdamW at the step's
// learning rate (adamw.hpp; the rate of each step from scheduled_learning_rate there).
#pragma once

#include <vector>

#include "common/math/adamw.hpp"
#include "common/math/gpt_model.hpp"

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
