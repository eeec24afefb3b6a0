#include "spikex/core/worker_team.hpp"

#include <algorithm>
#include <chrono>

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
} // namespace

worker_team::worker_team(unsigned threads, wait_limits limits):
    threads_(threads < 1 ? 1 : threads),
    limits_(limits),
    warm_until_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                       std::chrono::duration<double, std::micro>(limits.warm_us))) {
    workers_.reserve(threads_ - 1);
    for (unsigned t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { worker(t); });
}

worker_team::~worker_team() {
    stop_.store(true, std::memory_order_relaxed);
    release(started_.value);
    for (auto& w: workers_) w.join();
}

void worker_team::run(const std::function<void(unsigned)>& job) {
    if (threads_ == 1) {
        job(0);
        return;
    }
    job_ = &job;
    error_ = nullptr;
    release(started_.value);
    try {
        job(0);
    } catch (...) {
        std::lock_guard lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
    }
    wait_for_arrivals();
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
}

void worker_team::worker(unsigned t) {
    std::uint32_t seen = 0;
    for (;;) {
        wait_while_equal(started_.value, seen);
        seen = started_.value.load(std::memory_order_acquire);
        if (stop_.load(std::memory_order_relaxed)) return;
        try {
            (*job_)(t);
        } catch (...) {
            std::lock_guard lock(error_mutex_);
            if (!error_) error_ = std::current_exception();
        }
        arrive();
    }
}

void worker_team::arrive() {
    arrived_.value.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) arrived_.value.notify_all();
}

void worker_team::wait_for_arrivals() {
    const std::uint32_t workers = threads_ - 1;
    wait(arrived_.value, [&] { return arrived_.value.load(std::memory_order_acquire) == workers; });
    arrived_.value.store(0, std::memory_order_relaxed); // no worker arrives again before the release
}

void worker_team::release(std::atomic<std::uint32_t>& generation) {
    generation.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) generation.notify_all();
}

void worker_team::wait_while_equal(const std::atomic<std::uint32_t>& word, std::uint32_t old) {
    wait(word, [&] { return word.load(std::memory_order_acquire) != old; });
}

template <typename Done>
void worker_team::wait(const std::atomic<std::uint32_t>& word, Done&& done) {
    using clock = std::chrono::steady_clock;
    if (done()) return;
    // Each thread's spin budget adapts: a wait that had to sleep halves it (down to 1/16 of
    // spin_us: the partner has lost its core, spinning only takes time from it), a wait
    // that ended while spinning doubles it back.
    thread_local double budget = 1.0;
    const auto start = clock::now();
    const auto spin_end = std::max(start + std::chrono::duration_cast<clock::duration>(
                                               std::chrono::duration<double, std::micro>(limits_.spin_us * budget)),
                                   warm_until_);
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
    // Sleep until the word changes. The waker changes the word, then looks for sleepers;
    // a sleeper counts itself, then sleeps only while the word still has the value it
    // saw (both sequentially consistent): one of the two sees the other.
    for (;;) {
        const std::uint32_t seen = word.load(std::memory_order_seq_cst);
        if (done()) return;
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        if (!done()) word.wait(seen, std::memory_order_seq_cst);
        sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    }
}

worker_team::wait_counts worker_team::counts() const {
    return {yielded_.load(std::memory_order_relaxed), slept_.load(std::memory_order_relaxed)};
}

} // namespace spikex
