#pragma once
// spikex's own team of threads for the time-step loop: persistent threads that help the
// caller with the parts of each round (a step, or a sub-interval of steps), without OpenMP
// and without any process-wide setting.
//
// Why not an OpenMP region: its waiting threads either sleep (OMP_WAIT_POLICY=passive: a
// futex wake-up per barrier, tens of microseconds, 2.3x slower at 2 threads than at 1 on a
// 5,000-cell network, issue 60) or spin without end (active: a core lost for good when the
// job has more threads than cores, and for every other library of the process, whose own
// OpenMP threads then spin too). The policy is read from the environment once per process,
// so spikex could only choose it by setting a variable that numpy and the user's other
// libraries share. Here the wait is spikex's own, for spikex's threads only:
//
//   spin   (up to wait_limits::spin_us, 20 us: longer than a step's imbalance between
//          threads, so a run on free cores never sleeps; each thread's budget halves
//          after a wait that slept, down to 1/16, and doubles back after one that did not),
//   yield  (sched_yield up to wait_limits::yield_us: a thread that shares our core runs),
//   sleep  (a futex wait: between simulate() calls, or when the partner has lost its core).
//
// Parts are claimed, not assigned: thread t takes part t first, then any part nobody has
// taken. The caller never waits for a worker that has not started: a worker the kernel
// has not run yet (just created or woken; on a virtual machine a halted virtual CPU can
// take milliseconds to come back) or has preempted simply takes no part, and the caller
// runs them all, as one thread would. It waits only for parts a worker has begun. Which
// thread runs a part does not change what the part computes.
//
// The caller (thread 0) runs everything outside the rounds (the exchange calls, so MPI is
// called from the thread that initialised it).
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace spikex {

struct wait_limits {
    double spin_us = 20.0;    // busy-wait this long
    double yield_us = 2000.0; // then yield the core until this long since the wait began
};

class worker_team {
public:
    // threads >= 1: threads - 1 workers are started now and live until destruction.
    explicit worker_team(unsigned threads, wait_limits limits = {});
    ~worker_team();
    worker_team(const worker_team&) = delete;
    worker_team& operator=(const worker_team&) = delete;

    unsigned size() const { return threads_; }

    // parts <= size(): runs work(p) once for every part p = 0 .. parts-1, on the caller and on the workers
    // that are running, and returns when all have returned: what any part wrote is then
    // visible to the caller, and to every part of the next round. Rethrows the first
    // exception a part raised (the other parts still run).
    void run_parts(unsigned parts, const std::function<void(unsigned)>& work);

    // Who ran parts, and how waits ended (tests and benches).
    struct counts_type {
        std::uint64_t rounds = 0, parts_by_workers = 0; // parts the workers ran
        std::uint64_t yielded = 0, slept = 0;           // waits that went past spinning
    };
    counts_type counts() const;

private:
    struct alignas(64) padded_word {
        std::atomic<std::uint64_t> value{0};
    };

    void worker(unsigned t);
    // Claims and runs parts of round r, own part `first` first; returns how many it ran.
    unsigned take_parts(std::uint64_t r, unsigned first);
    void run_part(const std::function<void(unsigned)>& work, unsigned p);
    template <typename Done>
    void wait(const std::atomic<std::uint64_t>& word, std::atomic<std::uint32_t>& sleepers, Done&& done);

    unsigned threads_;
    wait_limits limits_;
    padded_word round_;                                        // rounds published (+1 at destruction, with stop_)
    padded_word finished_;                                     // parts of the current round that have returned
    std::unique_ptr<padded_word[]> claimed_;                   // per part (<= threads): the last round that claimed it
    alignas(64) std::atomic<std::uint32_t> round_sleepers_{0}; // workers asleep until the next round
    std::atomic<bool> wake_sent_{false};                       // a wake-up is on its way to them
    std::atomic<std::uint32_t> caller_sleeping_{0};            // the caller asleep until parts finish
    std::atomic<bool> stop_{false};
    std::atomic<int> caller_cpu_{-1}; // where the caller ran last: workers move off it
    // Round r's work and part count, in slot r % 2 (written before round_ is published).
    std::atomic<const std::function<void(unsigned)>*> work_[2] = {nullptr, nullptr};
    std::atomic<unsigned> parts_[2] = {0, 0};
    std::mutex error_mutex_;
    std::exception_ptr error_;
    std::atomic<std::uint64_t> rounds_{0}, parts_by_workers_{0}, yielded_{0}, slept_{0};
    std::vector<std::thread> workers_;
};

} // namespace spikex
