// A fresh seeded GPT (common/gpt/gpt_model.hpp), a batch of tokens and the model's logits on
// them, written as .npy files, so that a model of nanoGPT's architecture in numpy or PyTorch can
// load the same numbers and compare its logits:
//
//   gpt_dump OUTDIR [--vocab 81] [--context 64] [--layers 4] [--heads 4] [--d-model 128]
//                   [--batch 2] [--seed 1] [--steps 0]
//
// --steps N first trains the fresh model N steps on the batch (AdamW, lr 1e-2, clipping at 1):
// a start's weights are so small that every head attends almost evenly, and a mistake in how
// the heads split would hardly show in its logits.
// OUTDIR/<name>.npy for every parameter under nanoGPT's name (transformer.wte.weight,
// transformer.h.0.attn.c_attn.weight (3d × d), …; vectors 1-D), float32; tokens.npy and
// targets.npy (B × T, int64: targets[b][i] = tokens[b][i + 1], the last one tokens[b][0]);
// logits.npy (B × T × V, float32); loss.npy (1, float64: the mean cross-entropy against targets).
// Bad flags: one line on stderr, exit 2, nothing written.
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "common/gpt/gpt_training.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"
#include "common/output/output_files.hpp"

namespace {

const char* const usage =
    "usage: gpt_dump OUTDIR [--vocab V] [--context T] [--layers L] [--heads H] [--d-model D] [--batch B] [--seed S] "
    "[--steps N]";

std::uint64_t whole_number(const std::string& flag, const std::string& text) {
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || text.empty() || text[0] == '-')
        throw InputError(flag + " " + text + ": expected a whole number");
    return value;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::map<std::string, std::uint64_t> value{{"--vocab", 81}, {"--context", 64}, {"--layers", 4}, {"--heads", 4},
                                                   {"--d-model", 128}, {"--batch", 2},   {"--seed", 1},
                                                   {"--steps", 0}};
        std::string dir;
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (value.count(arg)) {
                if (i + 1 == argc) throw InputError(arg + ": expected a value after it");
                value[arg] = whole_number(arg, argv[++i]);
            } else if (arg.rfind("--", 0) == 0 || !dir.empty()) {
                throw InputError(arg + ": unknown argument (" + usage + ")");
            } else {
                dir = arg;
            }
        }
        if (dir.empty()) throw InputError(usage);
        const std::size_t most = 1 << 20;  // sizes beyond this are a typing mistake, not a test
        for (const auto& [flag, v] : value)
            if (flag != "--seed" && flag != "--steps" && (v < 1 || v > most)) throw InputError(flag + " " + std::to_string(v) + ": expected 1 … 1048576");
        const GptConfig config{value["--vocab"], value["--context"], value["--layers"], value["--heads"], value["--d-model"]};
        const std::size_t B = value["--batch"], T = config.context, V = config.vocab;
        if (value["--steps"] > 10000) throw InputError("--steps " + std::to_string(value["--steps"]) + ": expected 0 … 10000");
        if (double(B) * double(T) * double(V + 20 * config.d_model) * double(config.layers) > 4e8)
            throw InputError("the batch's activations would take more than a few GB: choose smaller sizes");
        Gpt<float> model = fresh_gpt(config, value["--seed"]);  // refuses sizes that do not fit first
        require_writable_directory("OUTDIR", dir);
        Random rng(value["--seed"] + 1);  // the tokens: their own generator, after the model's
        std::vector<Tokens> tokens(B, Tokens(T)), targets(B, Tokens(T));
        for (Tokens& s : tokens)
            for (std::size_t& t : s) t = std::size_t(rng.uniform() * double(V));
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t i = 0; i < T; ++i) targets[b][i] = tokens[b][(i + 1) % T];
        GptTrainer trainer;
        for (std::uint64_t s = 0; s < value["--steps"]; ++s) trainer.step(model, tokens, targets, 1e-2f);
        const GptForward<float> forward = gpt_forward(model, tokens);
        const double loss = gpt_loss(forward, targets);

        OutputFiles files;
        for (const NamedParameter<float>& p : named_parameters(model)) {
            const std::vector<std::size_t> shape =
                p.vector ? std::vector<std::size_t>{p.tensor->size()} : std::vector<std::size_t>{p.tensor->shape(0), p.tensor->shape(1)};
            files.add(dir + "/" + p.name + ".npy", xt::dump_npy(xt::adapt(p.tensor->data(), p.tensor->size(), xt::no_ownership(), shape)));
        }
        std::vector<std::int64_t> token_ids, target_ids;
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t i = 0; i < T; ++i) token_ids.push_back(std::int64_t(tokens[b][i])), target_ids.push_back(std::int64_t(targets[b][i]));
        const std::vector<std::size_t> bt{B, T};
        files.add(dir + "/tokens.npy", xt::dump_npy(xt::adapt(token_ids, bt)));
        files.add(dir + "/targets.npy", xt::dump_npy(xt::adapt(target_ids, bt)));
        const std::vector<std::size_t> btv{B, T, V};
        files.add(dir + "/logits.npy", xt::dump_npy(xt::adapt(forward.logits.data(), forward.logits.size(), xt::no_ownership(), btv)));
        std::vector<double> loss_value{loss};
        files.add(dir + "/loss.npy", xt::dump_npy(xt::adapt(loss_value, std::vector<std::size_t>{1})));
        files.write_all();
        std::cout << "Wrote " << named_parameters(model).size() << " parameters, tokens, targets, logits and loss to "
                  << dir << " (loss " << loss << ")\n";
    } catch (const InputError& e) {
        std::cerr << "gpt_dump: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "gpt_dump: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
