// One training step of a GPT (gpt_model.hpp) as nanoGPT's train.py takes it: forward, loss,
// backward, the gradient clipped to norm 1, then AdamW at the step's learning rate (adamw.hpp).
#pragma once

#include <vector>

#include "common/math/adamw.hpp"
#include "common/math/gpt_model.hpp"

struct GptStep {
    double loss = 0;           // the batch's mean cross-entropy before the update
    double gradient_norm = 0;  // the global norm of the gradient before clipping
};

// inputs and targets (B × t): targets[b][i] is the token after inputs[b][i]. Updates the model.
GptStep train_step(Gpt<float>& model, AdamW& optimiser, const std::vector<Tokens>& inputs,
                   const std::vector<Tokens>& targets, float learning_rate, double clip_norm = 1.0);
