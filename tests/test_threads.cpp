// Work shared by threads (common/numbers/threads.hpp): every entry computed once, whatever the
// pieces; an exception of a piece reaches the caller; and a GPT trained a few steps holds the same
// bits at one thread, two and eight (its products, heads and element-wise passes all split).
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/gpt/gpt_training.hpp"
#include "common/machine/cores.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/threads.hpp"

namespace {

// The parameters after `steps` AdamW steps on fixed batches, at `count` threads.
std::vector<std::vector<float>> trained_parameters(std::size_t count, std::size_t steps) {
    threads::set_count(count);
    const GptConfig config{64, 32, 2, 4, 64};  // N = 8 · 32 rows: every kind of split runs
    Gpt<float> model = fresh_gpt(config, 5);
    Tokens ids(2000);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = (i * i * 7 + i * 3) % 64;
    Random rng(9);
    GptTrainer trainer;
    std::vector<Tokens> inputs, targets;
    for (std::size_t s = 0; s < steps; ++s) {
        random_batch(ids, 8, 32, rng, inputs, targets);
        trainer.step(model, inputs, targets, 3e-3f);
    }
    threads::set_count(1);
    std::vector<std::vector<float>> numbers;
    for (const NamedParameter<float>& p : named_parameters(model)) numbers.emplace_back(p.tensor->begin(), p.tensor->end());
    return numbers;
}

}  // namespace

TEST_CASE("threads: a split runs every entry once, in pieces a multiple of the grain long") {
    for (const std::size_t count : {1, 2, 3, 8}) {
        threads::set_count(count);
        for (std::size_t total = 1; total < 300; total += 37)
            for (const std::size_t grain : {1, 4, 64}) {
                std::vector<int> seen(total, 0);
                bool whole_grains = true;
                threads::split(total, [&](std::size_t begin, std::size_t end) {
                    whole_grains &= begin % grain == 0 && (end == total || end % grain == 0);
                    for (std::size_t i = begin; i < end; ++i) ++seen[i];
                }, grain);
                CHECK(seen == std::vector<int>(total, 1));
                CHECK(whole_grains);
            }
    }
    threads::set_count(1);
}

TEST_CASE("threads: a piece's exception reaches the caller, and the next split runs") {
    threads::set_count(4);
    CHECK_THROWS_AS(threads::split(100, [](std::size_t begin, std::size_t) {
        if (begin > 0) throw std::runtime_error("a piece failed");
    }), std::runtime_error);
    std::vector<int> seen(100, 0);
    threads::split(100, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) ++seen[i];
    });
    CHECK(seen == std::vector<int>(100, 1));
    threads::set_count(1);
}

TEST_CASE("threads: a split asked from inside a piece runs, at any count") {
    // (chapter 20's trainings are pieces of one split, and their products ask for splits)
    for (const std::size_t count : {1, 2, 3}) {
        threads::set_count(count);
        for (const std::size_t outer : {1, 5}) {
            std::vector<int> seen(outer * 7, 0);
            threads::split(outer, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i)
                    threads::split(7, [&](std::size_t b, std::size_t e) {
                        for (std::size_t j = b; j < e; ++j) ++seen[i * 7 + j];
                    });
            });
            CHECK(seen == std::vector<int>(outer * 7, 1));
        }
    }
    threads::set_count(1);
}

TEST_CASE("threads: a GPT trained at 1, 2 and 8 threads holds the same bits") {
    const auto one = trained_parameters(1, 3);
    for (const std::size_t count : {2, 8}) {
        const auto many = trained_parameters(count, 3);
        REQUIRE(many.size() == one.size());
        bool same = true;
        for (std::size_t k = 0; k < one.size(); ++k)
            same &= one[k].size() == many[k].size() &&
                    std::memcmp(one[k].data(), many[k].data(), one[k].size() * sizeof(float)) == 0;
        CHECK_MESSAGE(same, count, " threads changed a parameter's bits");
    }
}

TEST_CASE("threads: --threads, else $TUTORIAL_THREADS, else the machine's cores (at most 8)") {
    unsetenv("TUTORIAL_THREADS");
    CHECK(training_threads(3) == 3);
    CHECK(training_threads(0) >= 1);
    CHECK(training_threads(0) <= 8);
    setenv("TUTORIAL_THREADS", "5", 1);
    CHECK(training_threads(0) == 5);
    CHECK(training_threads(2) == 2);
    for (const char* bad : {"0", "65", "abc", "2x", ""}) {
        setenv("TUTORIAL_THREADS", bad, 1);
        CHECK_THROWS_AS(training_threads(0), InputError);
    }
    unsetenv("TUTORIAL_THREADS");
}
