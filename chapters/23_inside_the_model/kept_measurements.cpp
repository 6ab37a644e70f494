#include "chapters/23_inside_the_model/kept_measurements.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "common/training/kept_file.hpp"
#include "common/training/training_memory.hpp"

namespace {

const std::string file_header = "attention-step-by-step chapter 23's measurements, version 2\n";

// Every number the measurements keep, in one order: written by put, read by get.
template <class Each>
void every_field(Measurements& m, Each&& each) {
    HeadScores& s = m.scores;
    Removals& r = m.removals;
    each(s.layers), each(s.heads), each(s.held_out_loss), each(s.uniform_share), each(s.uniform_induction);
    for (Matrix* x : {&s.held_out_windows, &s.previous_token, &s.self, &s.first_token, &s.induction, &s.roles,
                      &s.examples, &s.example_weights, &s.random_sequences, &s.mean_outputs, &s.loss_by_position,
                      &s.lens_loss, &r.increase_removed, &r.increase_mean, &r.repeated_passages, &r.repeated_losses,
                      &r.loss_by_position_without, &r.in_context_scores})
        each(*x);
    each(r.induction_heads), each(r.other_heads), each(r.induction_found);
}

struct Put {
    Numbers& out;
    template <class T>
    void operator()(const T& x) { out.put(x); }
    void operator()(const Matrix& m) { put_matrix(out, m); }
    void operator()(const std::vector<std::size_t>& v) {
        out.put(std::uint64_t(v.size()));
        for (std::size_t k : v) out.put(k);
    }
};

struct Get {
    Numbers& in;
    bool whole = true;
    template <class T>
    void operator()(T& x) { whole = whole && in.get(x); }
    void operator()(Matrix& m) { whole = whole && get_matrix(in, m); }
    void operator()(std::vector<std::size_t>& v) {
        std::uint64_t n = 0;
        whole = whole && in.get(n) && n <= in.bytes().size();
        if (!whole) return;
        v.resize(n);
        for (std::size_t& k : v) whole = whole && in.get(k);
    }
};

// What the measurements depend on, as text: the program, the model's numbers, the held-out
// tokens, the probe. Empty when the program is not known (nothing is kept then).
std::string key_of(const Gpt<float>& model, const Tokens& held_out, const Probe& probe) {
    if (program_fingerprint().empty()) return {};
    std::string numbers;
    for (const NamedParameter<float>& p : named_parameters(const_cast<Gpt<float>&>(model)))  // read only
        numbers.append(reinterpret_cast<const char*>(p.tensor->data()), p.tensor->size() * sizeof(float));
    const std::string ids(reinterpret_cast<const char*>(held_out.data()), held_out.size() * sizeof(held_out[0]));
    return fmt::format("{}{}\nmodel {:016x}\nheld-out {:016x}\nwindows {} sequences {} passages {} seed {}\n", file_header,
                       program_fingerprint(), fnv1a(numbers), fnv1a(ids), probe.windows, probe.sequences,
                       probe.passages, probe.seed);
}

}  // namespace

Measurements measured(const Gpt<float>& model, const Tokens& held_out, const Probe& probe) {
    const std::string key = key_of(model, held_out, probe), folder = trained_folder();
    const std::string file = key.empty() || folder.empty()
                                 ? std::string()
                                 : (std::filesystem::path(folder) / "inside-the-model" /
                                    fmt::format("{:016x}.measured", fnv1a(key)))
                                       .string();
    Measurements m;
    if (!file.empty())
        if (const std::optional<std::string> kept = read_kept(file, key)) {
            Numbers in(*kept);
            Get get{in};
            every_field(m, get);
            if (get.whole && in.done()) return m;
            m = {};
        }
    m.scores = score_heads(model, held_out, probe);
    m.removals = remove_heads(model, m.scores, probe, held_out);
    if (!file.empty()) {
        Numbers out;
        every_field(m, Put{out});
        write_kept(file, key, out.bytes());
    }
    return m;
}
