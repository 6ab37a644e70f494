// One training step of a GPT (gpt_training.hpp).
#include "common/gpt/gpt_training.hpp"

#include <algorithm>

#include "common/numbers/input_error.hpp"

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

void random_batch(const Tokens& ids, std::size_t batch, std::size_t context, Random& rng, std::vector<Tokens>& inputs,
                  std::vector<Tokens>& targets, double repeats) {
    if (ids.size() < context + 1)
        throw InputError(describe("a text of ", ids.size(), " tokens is shorter than one window of ", context + 1));
    const std::size_t starts = ids.size() - context;  // s in [0, starts): s + T is the last target
    inputs.assign(batch, Tokens(context));
    targets.assign(batch, Tokens(context));
    const auto draw = [&rng](std::size_t count) { return std::min(count - 1, std::size_t(rng.uniform() * double(count))); };
    Tokens window(context + 1);
    for (std::size_t b = 0; b < batch; ++b) {
        const std::size_t s = draw(starts);
        std::copy_n(ids.begin() + std::ptrdiff_t(s), context + 1, window.begin());
        if (repeats > 0.0 && rng.uniform() < repeats) {  // a passage of the first half, again later
            const std::size_t half = (context + 1) / 2, shortest = std::max<std::size_t>(1, context / 8);
            const std::size_t m = shortest + draw(half - shortest + 1);
            const std::size_t a = draw(half - m + 1), c = half + draw(context + 1 - m - half + 1);
            std::copy_n(window.begin() + std::ptrdiff_t(a), m, window.begin() + std::ptrdiff_t(c));
        }
        std::copy_n(window.begin(), context, inputs[b].begin());
        std::copy_n(window.begin() + 1, context, targets[b].begin());
    }
}

double held_out_loss(const Gpt<float>& model, const Tokens& ids, std::size_t most, std::size_t windows_per_pass) {
    const std::size_t T = model.config.context;
    if (ids.size() < T + 1) throw InputError(describe("held-out text of ", ids.size(), " tokens: less than one window of ", T + 1));
    const std::size_t all = (ids.size() - 1) / T, windows = std::min(all, most);
    // window w of the ones measured starts at token T·⌊w·all/windows⌋
    double total = 0.0;
    GptForward<float> f;  // one set of buffers for every pass
    for (std::size_t first = 0; first < windows; first += windows_per_pass) {
        const std::size_t count = std::min(windows_per_pass, windows - first);
        std::vector<Tokens> inputs(count, Tokens(T)), targets(count, Tokens(T));
        for (std::size_t b = 0; b < count; ++b) {
            const auto s = std::ptrdiff_t((first + b) * all / windows * T);
            std::copy_n(ids.begin() + s, T, inputs[b].begin());
            std::copy_n(ids.begin() + s + 1, T, targets[b].begin());
        }
        gpt_forward_into(model, inputs, f);
        total += gpt_loss(f, targets) * double(count);
    }
    return total / double(windows);
}

std::vector<LoggedLoss> train_gpt(Gpt<float>& model, const GptRecipe& r, const Tokens& train_ids,
                                  const Tokens& held_out_ids, std::size_t every,
                                  const std::function<void(std::size_t, double)>& progress, const TrainingProbe& probe) {
    GptTrainer trainer;
    Random rng(r.seed);
    std::vector<Tokens> inputs, targets;
    const auto probed = [&] { return probe ? probe(model) : std::vector<double>{}; };
    std::vector<LoggedLoss> log{{0, 0.0, held_out_loss(model, held_out_ids), probed()}};
    double since = 0.0;
    std::size_t counted = 0;
    for (std::size_t s = 0; s < r.steps; ++s) {
        random_batch(train_ids, r.batch, r.config.context, rng, inputs, targets, r.repeats);
        const float lr = scheduled_learning_rate(s, r.learning_rate, r.warmup, r.steps, r.learning_rate / 10);
        const double loss = trainer.step(model, inputs, targets, lr).loss;
        if (s == 0) log[0].train = loss;  // the fresh model's loss on the first batch
        since += loss, ++counted;
        if (progress) progress(s + 1, loss);
        if ((s + 1) % every == 0 || s + 1 == r.steps) {
            log.push_back({s + 1, since / double(counted), held_out_loss(model, held_out_ids), probed()});
            since = 0.0, counted = 0;
        }
    }
    return log;
}
