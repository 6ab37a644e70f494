// Benchmarks of byte-pair encoding (common/tokens/tokenizer.hpp) on Moby-Dick's training text
// (the first 90 %, 1,070,685 characters; tools/corpus.py sets it up): learning the merges up
// to a vocabulary of 256 (chapter 21's default), 512 and 1024 symbols, and encoding the
// held-out 10 %. One core: learning is single-threaded.
//
//   ./tutorial bench --benchmark_filter=Bpe
#include <benchmark/benchmark.h>

#include "common/text/corpus.hpp"
#include "common/tokens/tokenizer.hpp"

namespace {

const Corpus& moby_dick() {
    static const Corpus corpus = load_corpus("", 1);
    return corpus;
}

void BM_BpeLearn(benchmark::State& state) {
    const std::u32string training = moby_dick().training();
    const Tokenizer characters = char_tokenizer(moby_dick().text);
    for (auto _ : state) {
        const Tokenizer t = learn_bpe(characters, training, static_cast<std::size_t>(state.range(0)));
        benchmark::DoNotOptimize(t.merges.data());
    }
    state.counters["characters"] = static_cast<double>(training.size());
}
BENCHMARK(BM_BpeLearn)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_BpeEncodeHeldOut(benchmark::State& state) {
    const Tokenizer t =
        learn_bpe(char_tokenizer(moby_dick().text), moby_dick().training(), static_cast<std::size_t>(state.range(0)));
    const std::u32string held_out = moby_dick().held_out();
    std::size_t tokens = 0;
    for (auto _ : state) tokens = encode(t, held_out).size();
    state.counters["chars_per_token"] = static_cast<double>(held_out.size()) / static_cast<double>(tokens);
}
BENCHMARK(BM_BpeEncodeHeldOut)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
