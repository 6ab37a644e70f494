// The pool behind threads::split (threads.hpp). A split is cut into a few pieces a thread, and
// every thread, the caller included, takes the next piece not yet taken until none is left:
// a thread the system has set aside (another program wants the core) holds up at most the
// piece it took, and the others do the rest. Which thread computes a piece changes none of
// its numbers.
//
// A training asks for a split every few hundred microseconds, and waking a sleeping thread costs
// about 50 µs here: so a worker first watches for the next split for a while before it sleeps,
// and the caller watches for the last piece before it sleeps.
#include "common/numbers/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace threads {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto watch_for = std::chrono::microseconds(50);
constexpr std::size_t pieces_a_thread = 4;

void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

// true once ready() holds, false when it did not within watch_for
template <class Ready>
bool watch(Ready ready) {
    const Clock::time_point until = Clock::now() + watch_for;
    for (;;) {
        for (int i = 0; i < 64; ++i) {
            if (ready()) return true;
            pause();
        }
        if (Clock::now() > until) return false;
    }
}

struct Pool {
    std::mutex mutex;
    std::condition_variable start, done;
    std::vector<std::thread> workers;
    // the split's number (high 32 bits) and its next piece not yet taken (low 32 bits)
    std::atomic<std::uint64_t> ticket{0};
    std::atomic<const std::function<void(std::size_t)>*> job{nullptr};
    std::atomic<std::size_t> pieces{0};      // of this split
    std::atomic<std::size_t> finished{0};    // pieces of this split done
    std::exception_ptr error;                // the first a piece threw
    bool stopping = false;

    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            stopping = true;
            ticket += std::uint64_t(1) << 32;
        }
        start.notify_all();
        for (std::thread& t : workers) t.join();
    }

    // Takes and runs pieces of split `number` until none is left (or another split began).
    void run_pieces(std::uint64_t number) {
        for (;;) {
            std::uint64_t t = ticket.load(std::memory_order_acquire);
            do {
                if ((t >> 32) != number || (t & 0xffffffffu) >= pieces) return;
            } while (!ticket.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel));
            try {
                (*job.load())(std::size_t(t & 0xffffffffu));
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex);
                if (!error) error = std::current_exception();
            }
            if (finished.fetch_add(1, std::memory_order_acq_rel) + 1 == pieces) {
                std::lock_guard<std::mutex> lock(mutex);  // the caller may be asleep
                done.notify_one();
            }
        }
    }
};

Pool& pool() {
    static Pool p;
    return p;
}

std::atomic<std::size_t> wanted{1};
std::mutex one_split_at_a_time;  // a split from another thread of the program waits its turn
thread_local bool inside_a_piece = false;

void work(Pool& p, std::uint64_t seen) {
    inside_a_piece = true;
    for (;;) {
        if (!watch([&] { return (p.ticket.load(std::memory_order_acquire) >> 32) != seen; })) {
            std::unique_lock<std::mutex> lock(p.mutex);
            p.start.wait(lock, [&] { return (p.ticket.load() >> 32) != seen; });
        }
        {
            std::lock_guard<std::mutex> lock(p.mutex);
            if (p.stopping) return;
            seen = p.ticket.load() >> 32;
        }
        p.run_pieces(seen);  // the job and its pieces were set before the ticket moved on
    }
}

}  // namespace

void set_count(std::size_t count) {
#if defined(__EMSCRIPTEN__)
    count = 1;
#endif
    wanted = std::clamp<std::size_t>(count, 1, 256);
}

std::size_t count() { return wanted; }

void split(std::size_t total, const std::function<void(std::size_t, std::size_t)>& piece, std::size_t grain) {
    if (total == 0) return;
    grain = std::max<std::size_t>(1, grain);
    const std::size_t units = (total + grain - 1) / grain;
    if (inside_a_piece) return piece(0, total);
    // one piece: run here before the turn is taken, so that a split it asks for can take it
    const std::size_t threads = std::min(wanted.load(), units);
    if (threads <= 1) return piece(0, total);
    std::lock_guard<std::mutex> turn(one_split_at_a_time);
    const std::size_t pieces = std::min(units, threads * pieces_a_thread);
    // piece p: units [units·p/pieces, units·(p+1)/pieces), as numbers
    const auto bound = [&](std::size_t p) { return std::min(total, units * p / pieces * grain); };
    const std::function<void(std::size_t)> job = [&](std::size_t p) { piece(bound(p), bound(p + 1)); };
    Pool& p = pool();
    std::uint64_t number;
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        // First closed (a number of its own, no piece left): a thread still in the last split
        // can take no piece once the job and the count below change. Then opened.
        const std::uint64_t closed = (p.ticket.load() >> 32) + 1;
        number = closed + 1;
        p.ticket.store((closed << 32) | 0xffffffffu);
        while (p.workers.size() + 1 < threads)  // a new worker waits for the split to open
            p.workers.emplace_back(work, std::ref(p), closed);
        p.job = &job, p.pieces = pieces, p.error = nullptr;
        p.finished.store(0);
        p.ticket.store(number << 32, std::memory_order_release);
    }
    p.start.notify_all();
    inside_a_piece = true;
    p.run_pieces(number);
    inside_a_piece = false;
    if (!watch([&] { return p.finished.load(std::memory_order_acquire) == pieces; })) {
        std::unique_lock<std::mutex> lock(p.mutex);
        p.done.wait(lock, [&] { return p.finished.load() == pieces; });
    }
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.error) std::rethrow_exception(p.error);
}

}  // namespace threads
