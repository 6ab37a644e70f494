// The copy task, and an attention-only model trained on it (chapters 16, 19 and 20).
//
// A sequence of n = 2L tokens repeats its start: tokens[i] uniform in [0, V) for i < lag,
// tokens[i] = tokens[i − lag] after. The next token of the first half cannot be predicted
// (the best loss there is ln V); in the second half it can be copied, by a model that finds
// where the current token occurred before and copies the token that followed it.
//
// Training: Adam on a fresh batch of sequences each step, its learning rate constant, then
// falling linearly to 0 over the last decay_share of the steps; every log_every steps, the
// loss of each half on probe_count held-out sequences joins the curve.
//
// Shapes: V vocabulary, L half length, n = 2L, d = d_model, h heads, d_h = d / h;
// a batch of B sequences is stacked as (B·n × d).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/copy_model/attention_only_model.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/random.hpp"

struct CopyTaskSettings {
    std::size_t vocabulary = 32, half_length = 16, d_model = 32, layers = 2, heads = 2, batch = 16;
    int steps = 3500, log_every = 20;
    float lr = 1e-2f;
    float decay_share = 0.4f;  // the learning rate falls linearly to 0 over this share of the steps, at the end
    bool learned_positions = true;
    std::uint64_t seed = 0;
    Mixer mixer = Mixer::softmax;  // how each head mixes its tokens (attention_only_model.hpp)
    Variant variant;               // which keys a head reads, how heads share them (the same header)
};
constexpr std::size_t held_out_count = 64;  // held-out sequences: accuracy, and what a lesson measures on them
constexpr std::size_t probe_count = 32;     // the first held-out sequences, whose losses make the curve

// B sequences of 2L tokens; each repeats its start at a lag drawn uniformly from
// [shortest_lag, L]: tokens[i] = tokens[i − lag] for i ≥ lag. With shortest_lag = L the
// second half repeats the first (the held-out sequences). Training draws shorter lags too,
// so that the copy is not always L positions back: a fixed lag could be learned from the
// positions alone, by one layer (attend to i − L + 1), without looking at the tokens.
std::vector<Tokens> repeated_sequences(Random& rng, std::size_t count, std::size_t vocabulary, std::size_t half,
                                       std::size_t shortest_lag);
// The shortest training lag: L/2 (at least 1).
inline std::size_t shortest_lag(std::size_t half) { return std::max<std::size_t>(1, half / 2); }

// The held_out_count sequences whose second half repeats the first, drawn from the stream
// Random(2·seed + 2); `rest`, when given, receives that stream after them.
std::vector<Tokens> held_out_sequences(const CopyTaskSettings& s, Random* rest = nullptr);

// Mean loss and share of right argmax predictions, for the predictions made at
// positions i < L − 1 (first half: the next token is new) and L ≤ i < n − 1 (second half).
struct Halves {
    double loss_first = 0, loss_second = 0, accuracy_first = 0, accuracy_second = 0;
};
Halves halves(const ModelForward<float>& f, const std::vector<Tokens>& batch, std::size_t half);

struct LoggedStep {
    int step;
    double loss_first, loss_second;  // of the probe sequences, before the step
};

struct TrainedModel {
    AttentionOnlyModel<float> start, trained;
    std::vector<LoggedStep> curve;  // every log_every steps, and the last
    Halves before, after;           // on the held-out sequences
};
using Progress = std::function<void(int step, int steps, const LoggedStep&)>;
// A random_model(V, 2L, d, layers, heads, learned_positions, seed, mixer, variant) trained on the task
// with the batches of the stream Random(2·seed + 1); `progress` (when set) hears every logged step.
TrainedModel train_copy_task(const CopyTaskSettings& s, const Progress& progress);

// A memory of trained models that train_copy_task asks before it trains and tells after:
// the same settings and the same code train the same model to the last bit, so a run may
// read back what an earlier run trained (common/training/training_memory.hpp keeps them on
// disk). None by default: every call trains.
class TrainingMemory {
public:
    virtual ~TrainingMemory() = default;
    // True, with `model` filled, when a model trained with exactly these settings is kept.
    virtual bool recall(const CopyTaskSettings& s, TrainedModel& model) = 0;
    virtual void remember(const CopyTaskSettings& s, const TrainedModel& model) = 0;
};
void use_training_memory(TrainingMemory* memory);  // nullptr: none
// Every field of the settings as text, one place: what a memory keys its models by.
std::string settings_text(const CopyTaskSettings& s);
// The model train_copy_task starts from (random_model of the settings): its shapes are the trained one's.
AttentionOnlyModel<float> starting_model(const CopyTaskSettings& s);

// Names a lesson gives the model's heads and a sequence's tokens: head k = l·heads + h is
// "L{l+1}H{h}"; a token is its id.
std::string head_name(const CopyTaskSettings& s, std::size_t k);
Labels head_names(const CopyTaskSettings& s);  // every head, in order
Labels token_labels(const Tokens& tokens);
// A sequence of tokens as a (1 × n) row of numbers (what a lesson lists and dumps).
Matrix token_row(const Tokens& tokens);

// Central differences D(h) = (loss(w + h) − loss(w − h)) / 2h in double, extrapolated as
// (4·D(h) − D(2h)) / 3 (Richardson: the h² error terms cancel), against the backward pass.
struct GradientCheck {
    std::size_t entries = 0;
    double max_relative_error = 0, max_abs_error = 0;
};
GradientCheck gradient_check(const AttentionOnlyModel<double>& m, const std::vector<Tokens>& batch, double h);
