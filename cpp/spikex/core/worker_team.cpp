#include "spikex/core/worker_team.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <pthread.h>
#include <sched.h>

namespace spikex {

namespace {
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// A thread the kernel has just created or woken tends to be placed on its creator's or
// waker's CPU (wake-affine), and may stay there for a scheduler tick (4 ms on this host's
// kernel) while the caller keeps that CPU busy. A worker that finds itself on the caller's
// CPU moves to another one of its allowed set at once, by narrowing its affinity to the
// others for a moment; the full set is restored right after, so the scheduler stays free
// to balance later (several ranks on one host).
void move_off(int caller_cpu) {
    if (caller_cpu < 0 || sched_getcpu() != caller_cpu) return;
    cpu_set_t allowed;
    if (pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed) != 0) return;
    if (!CPU_ISSET(caller_cpu, &allowed) || CPU_COUNT(&allowed) < 2) return;
    cpu_set_t others = allowed;
    CPU_CLR(caller_cpu, &others);
    if (pthread_setaffinity_np(pthread_self(), sizeof others, &others) != 0) return;
    pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
}
} // namespace

worker_team::worker_team(unsigned threads, wait_limits limits):
    threads_(threads < 1 ? 1 : threads), limits_(limits), claimed_(std::make_unique<padded_word[]>(threads_)) {
    caller_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
    workers_.reserve(threads_ - 1);
    for (unsigned t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { worker(t); });
}

worker_team::~worker_team() {
    stop_.store(true, std::memory_order_relaxed);
    round_.value.fetch_add(1, std::memory_order_seq_cst);
    round_.value.notify_all();
    for (auto& w: workers_) w.join();
}

void worker_team::run_part(const std::function<void(unsigned)>& work, unsigned p) {
    try {
        work(p);
    } catch (...) {
        std::lock_guard lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
    }
}

void worker_team::run_parts(unsigned parts, const std::function<void(unsigned)>& work) {
    if (parts > threads_) throw std::invalid_argument("worker_team::run_parts: more parts than threads");
    error_ = nullptr;
    if (threads_ == 1 || parts <= 1) {
        for (unsigned p = 0; p < parts; ++p) run_part(work, p);
    } else {
        // Round r's work goes into slot r % 2, which no worker can still be reading as round r - 2's (take_parts).
        const std::uint64_t r = round_.value.load(std::memory_order_relaxed) + 1; // only the caller adds rounds
        work_[r % 2].store(&work, std::memory_order_release);
        parts_[r % 2].store(parts, std::memory_order_release);
        finished_.value.store(0, std::memory_order_relaxed);
        caller_cpu_.store(sched_getcpu(), std::memory_order_relaxed);
        round_.value.fetch_add(1, std::memory_order_seq_cst); // publishes the above
        if (round_sleepers_.load(std::memory_order_seq_cst) > 0 && !wake_sent_.exchange(true)) {
            round_.value.notify_all();
        }
        take_parts(r, 0);
        // Only parts a worker has claimed can be missing: a worker that has not started
        // took none, and the caller ran them.
        wait(finished_.value, caller_sleeping_,
             [&] { return finished_.value.load(std::memory_order_acquire) == parts; });
    }
    rounds_.fetch_add(1, std::memory_order_relaxed);
    if (error_) std::rethrow_exception(error_);
}

unsigned worker_team::take_parts(std::uint64_t r, unsigned first) {
    // Round r's work and part count, read between two reads of round_ that both give r. The caller writes round
    // r + 1's into the other slot before publishing r + 1, and round r + 2's into this one only after r + 1 is out:
    // a worker that saw r late gets r's, or sees a later round and claims nothing. (One slot read with the round
    // before it was not enough: a late worker paired round r with round r + 1's part count while the caller was
    // writing it, claimed a part that r did not have, and ran it twice when r + 1 came, so the caller waited for
    // ever; tests/cpp/test_worker_team.cpp under oversubscription.)
    const std::function<void(unsigned)>* work = nullptr;
    unsigned parts = 0;
    for (;;) {
        const std::uint64_t now = round_.value.load(std::memory_order_acquire);
        if (now == r) {
            work = work_[r % 2].load(std::memory_order_acquire);
            parts = parts_[r % 2].load(std::memory_order_acquire);
            if (round_.value.load(std::memory_order_acquire) == r) break;
        }
        if (first != 0) return 0;                         // a worker: a later round is out, the caller runs ahead
        r = round_.value.load(std::memory_order_acquire); // (the caller publishes rounds itself: never here)
    }
    unsigned ran = 0;
    for (unsigned k = 0; k < parts; ++k) {
        const unsigned p = (first + k) % parts;
        auto& slot = claimed_[p].value;
        std::uint64_t seen = slot.load(std::memory_order_relaxed);
        if (seen >= r || !slot.compare_exchange_strong(seen, r, std::memory_order_acquire)) continue;
        run_part(*work, p);
        finished_.value.fetch_add(1, std::memory_order_seq_cst); // releases the part's writes
        if (first != 0 && caller_sleeping_.load(std::memory_order_seq_cst) > 0) finished_.value.notify_all();
        ++ran;
    }
    return ran;
}

void worker_team::worker(unsigned t) {
    move_off(caller_cpu_.load(std::memory_order_relaxed));
    std::uint64_t seen = 0;
    for (;;) {
        wait(round_.value, round_sleepers_, [&] { return round_.value.load(std::memory_order_acquire) != seen; });
        seen = round_.value.load(std::memory_order_acquire);
        if (stop_.load(std::memory_order_relaxed)) return;
        const unsigned ran = take_parts(seen, t);
        if (ran > 0) parts_by_workers_.fetch_add(ran, std::memory_order_relaxed);
    }
}

template <typename Done>
void worker_team::wait(const std::atomic<std::uint64_t>& word, std::atomic<std::uint32_t>& sleepers, Done&& done) {
    using clock = std::chrono::steady_clock;
    if (done()) return;
    // Each thread's spin budget adapts: a wait that had to sleep halves it (down to 1/16 of
    // spin_us: the partner has lost its core, spinning only takes time from it), a wait
    // that ended while spinning doubles it back.
    thread_local double budget = 1.0;
    const bool worker = &sleepers == &round_sleepers_;
    for (;;) {
        const auto start = clock::now();
        const auto spin_end = start + std::chrono::duration_cast<clock::duration>(
                                          std::chrono::duration<double, std::micro>(limits_.spin_us * budget));
        for (unsigned i = 1;; ++i) {
            cpu_relax();
            if (done()) {
                budget = std::min(1.0, budget * 2.0);
                return;
            }
            if (i % 64 == 0 && clock::now() >= spin_end) break;
        }
        yielded_.fetch_add(1, std::memory_order_relaxed);
        const auto yield_end = start + std::chrono::duration<double, std::micro>(limits_.yield_us);
        while (clock::now() < yield_end) {
            sched_yield();
            if (done()) return;
        }
        slept_.fetch_add(1, std::memory_order_relaxed);
        budget = std::max(1.0 / 16.0, budget * 0.5);
        // Sleep until the word changes. The waker changes the word, then looks for
        // sleepers; a sleeper counts itself, then sleeps only while the word still has the
        // value it saw (both sequentially consistent): one of the two sees the other.
        const std::uint64_t seen = word.load(std::memory_order_seq_cst);
        if (done()) return;
        // A worker's wake-up is sent once per sleep (run_parts: a syscall per round while the
        // woken worker waits for its CPU would cost more than the round).
        sleepers.fetch_add(1, std::memory_order_seq_cst);
        if (worker) wake_sent_.store(false, std::memory_order_seq_cst);
        if (!done()) word.wait(seen, std::memory_order_seq_cst);
        sleepers.fetch_sub(1, std::memory_order_seq_cst);
        if (worker) move_off(caller_cpu_.load(std::memory_order_relaxed));
        if (done()) return;
    }
}

worker_team::counts_type worker_team::counts() const {
    return {rounds_.load(std::memory_order_relaxed), parts_by_workers_.load(std::memory_order_relaxed),
            yielded_.load(std::memory_order_relaxed), slept_.load(std::memory_order_relaxed)};
}

} // namespace spikex
