// One training step of a GPT (gpt_training.hpp).
#include "common/math/gpt_training.hpp"

GptStep GptTrainer::step(Gpt<float>& model, const std::vector<Tokens>& inputs, const std::vector<Tokens>& targets,
                         float learning_rate, double clip_norm) {
    GptStep result;
    gpt_forward_into(model, inputs, forward_);
    result.loss = gpt_loss(forward_, targets, &d_logits_);
    gpt_backward_into(model, inputs, forward_, d_logits_, gradient_, buffers_);
    std::vector<Mat<float>*> parameters, gradients;
    std::vector<const Mat<float>*> read_gradients;
    std::vector<bool> decays;  // matrices (wte, wpe, every weight of a linear layer); not vectors
    for (const NamedParameter<float>& p : named_parameters(model)) parameters.push_back(p.tensor), decays.push_back(!p.vector);
    for (const NamedParameter<float>& g : named_parameters(gradient_))
        gradients.push_back(g.tensor), read_gradients.push_back(g.tensor);
    result.gradient_norm = clip_gradient_norm(gradients, clip_norm);
    optimiser_.step(parameters, read_gradients, decays, learning_rate);
    return result;
}
