// One training step of a GPT (gpt_training.hpp).
#include "common/math/gpt_training.hpp"

GptStep train_step(Gpt<float>& model, AdamW& optimiser, const std::vector<Tokens>& inputs,
                   const std::vector<Tokens>& targets, float learning_rate, double clip_norm) {
    GptStep result;
    Mat<float> d_logits;
    const GptForward<float> forward = gpt_forward(model, inputs);
    result.loss = gpt_loss(forward, targets, &d_logits);
    Gpt<float> gradient = gpt_backward(model, inputs, forward, d_logits);
    std::vector<Mat<float>*> parameters, gradients;
    std::vector<const Mat<float>*> read_gradients;
    std::vector<bool> decays;  // matrices (wte, wpe, every weight of a linear layer); not vectors
    for (const NamedParameter<float>& p : named_parameters(model)) parameters.push_back(p.tensor), decays.push_back(!p.vector);
    for (const NamedParameter<float>& g : named_parameters(gradient))
        gradients.push_back(g.tensor), read_gradients.push_back(g.tensor);
    result.gradient_norm = clip_gradient_norm(gradients, clip_norm);
    optimiser.step(parameters, read_gradients, decays, learning_rate);
    return result;
}
