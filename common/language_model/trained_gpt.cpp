#include "common/language_model/trained_gpt.hpp"

#include <cstdint>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "common/gpt/gpt_attention.hpp"
#include "common/machine/whole_file.hpp"
#include "common/numbers/input_error.hpp"
#include "common/training/checkpoint.hpp"
#include "common/training/training_memory.hpp"

#ifndef TUTORIAL_GPT_CODE
#error "TUTORIAL_GPT_CODE: the hash of the GPT's sources, set by CMakeLists.txt"
#endif

namespace {

const char* const tokenizer_file = "tokenizer.txt";
const char* const log_file = "training_log.txt";

// The shapes a checkpoint of this configuration holds, in nanoGPT's order.
std::vector<NamedTensor> tensors_of(Gpt<float>& model, bool with_values) {
    std::vector<NamedTensor> tensors;
    for (const NamedParameter<float>& p : named_parameters(model)) {
        NamedTensor t{p.name, {}, {}};
        t.shape = p.vector ? std::vector<std::size_t>{p.tensor->size()}
                           : std::vector<std::size_t>{p.tensor->shape(0), p.tensor->shape(1)};
        if (with_values) t.values.assign(p.tensor->begin(), p.tensor->end());
        tensors.push_back(std::move(t));
    }
    return tensors;
}

const char* const log_header = "step train held_out induction first_copy second_copy";  // gpt_copying.hpp

std::string log_text(const TrainedGpt& t) {
    std::string text = fmt::format("seconds {:.3f}\n{}\n", t.seconds, log_header);
    for (const LoggedLoss& l : t.log) {
        text += fmt::format("{} {:.17g} {:.17g}", l.step, l.train, l.held_out);
        for (const double p : l.probes) text += fmt::format(" {:.17g}", p);
        text += "\n";
    }
    return text;
}

void read_log(const std::string& text, const std::string& file, TrainedGpt& t) {
    std::istringstream in(text);
    std::string word, header;
    if (!(in >> word >> t.seconds) || word != "seconds" || !std::getline(in >> std::ws, header) || header != log_header)
        throw InputError(file + ": expected \"seconds S\" then \"" + log_header + "\"");
    LoggedLoss l;
    l.probes.resize(3);
    while (in >> l.step >> l.train >> l.held_out >> l.probes[0] >> l.probes[1] >> l.probes[2]) t.log.push_back(l);
    if (!in.eof() || t.log.empty()) throw InputError(file + ": expected lines of a step, two losses and the probe's three numbers");
}

}  // namespace

std::string gpt_code_version() { return std::string("gpt ") + TUTORIAL_GPT_CODE; }

std::string gpt_recipe_text(const GptRecipe& r, const std::string& tokenizer_kind, const std::string& corpus,
                            std::size_t log_every) {
    const GptConfig& c = r.config;
    const std::string attention = attention_text(c.attention);  // none for chapter 22's MHA
    return (attention.empty() ? "" : "attention " + attention + "\n") + fmt::format(
        "corpus {}\ntokenizer {}\nvocab {}\ncontext {}\nlayers {}\nheads {}\nd_model {}\nbatch {}\nsteps {}\n"
        "warmup {}\nlr {}\nseed {}\nlog_every {}\n",
        corpus, tokenizer_kind, c.vocab, c.context, c.layers, c.heads, c.d_model, r.batch, r.steps, r.warmup,
        r.learning_rate, r.seed, log_every) + (r.repeats > 0.0 ? fmt::format("repeats {}\n", r.repeats) : "");
}

std::string gpt_folder_for(const std::string& recipe_text) {
    const std::string folder = trained_folder();
    if (folder.empty()) return {};
    return (std::filesystem::path(folder) / fmt::format("gpt-{:016x}", fnv1a(recipe_text))).string();
}

void save_trained_gpt(const std::string& dir, const std::string& recipe_text, TrainedGpt& t) {
    Checkpoint c;
    c.code = gpt_code_version();
    c.recipe = recipe_text;
    c.tensors = tensors_of(t.model, true);
    c.texts = {{tokenizer_file, tokenizer_text(t.tokenizer)}, {log_file, log_text(t)}};
    save_checkpoint(dir, c);
}

TrainedGpt load_trained_gpt(const std::string& dir, const std::string& recipe_text, GptConfig config) {
    TrainedGpt t;
    // The tokenizer first: its size is the model's vocabulary (a small text may give fewer than
    // asked). When it is missing, load_checkpoint says so, after what it checks before.
    if (const std::optional<std::string> text = whole_file(std::filesystem::path(dir) / tokenizer_file)) {
        try {
            t.tokenizer = read_tokenizer(*text);
        } catch (const InputError& e) {
            throw InputError(dir + "/" + tokenizer_file + ": " + e.what());
        }
        config.vocab = t.tokenizer.size();
    }
    t.model = zero_gpt(config);  // the shapes; every number is then read from the files
    const Checkpoint c = load_checkpoint(dir, gpt_code_version(), recipe_text, tensors_of(t.model, false),
                                         {tokenizer_file, log_file});
    std::size_t k = 0;
    for (const NamedParameter<float>& p : named_parameters(t.model))
        std::copy(c.tensors[k].values.begin(), c.tensors[k].values.end(), p.tensor->begin()), ++k;
    read_log(c.texts[1].second, dir + "/" + log_file, t);
    return t;
}
