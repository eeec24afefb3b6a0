#pragma once
// spikex's own team of threads for the time-step loop: persistent threads that meet a
// few times per 0.1 ms step, without OpenMP and without any process-wide setting.
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
// A meeting costs two cache-line transfers (the arrival count, the release generation).
// Thread 0 is the caller; it runs the serial part of a meeting (the step's exchange calls,
// so MPI is called from the thread that initialised it).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace spikex {

struct wait_limits {
    double spin_us = 20.0;    // busy-wait this long
    double yield_us = 2000.0; // then yield the core until this long since the wait began
    // A new worker busy-waits this long from its start, whatever the budget: a thread the
    // scheduler has just created shares its creator's core (or wakes a halted virtual CPU)
    // for some milliseconds, during which a meeting per step costs tens of microseconds.
    // Spinning, it is moved to a free core meanwhile (the caller works alone then).
    double warm_us = 0.0;
};

class worker_team {
public:
    // threads >= 1: threads - 1 workers are started now and live until destruction.
    explicit worker_team(unsigned threads, wait_limits limits = {});
    ~worker_team();
    worker_team(const worker_team&) = delete;
    worker_team& operator=(const worker_team&) = delete;

    unsigned size() const { return threads_; }

    // Runs job(t) on every thread t = 0 .. size()-1 (t = 0 on the caller) and returns when
    // all have returned; rethrows the first exception a job raised (the others still
    // finish theirs: a job that may throw between meetings must catch, or the others would
    // wait at the next meeting for ever).
    void run(const std::function<void(unsigned)>& job);

    // Inside run(): every thread calls meet(t, serial) the same number of times. Thread 0
    // runs serial() once all have arrived, and none leaves before serial() has returned;
    // what any thread wrote before the meeting is visible after it, to every thread.
    template <typename Serial>
    void meet(unsigned t, Serial&& serial) {
        if (threads_ == 1) {
            serial();
            return;
        }
        if (t != 0) {
            const std::uint32_t generation = released_.value.load(std::memory_order_acquire);
            arrive();
            wait_while_equal(released_.value, generation);
            return;
        }
        wait_for_arrivals();
        serial();
        release(released_.value);
    }

    // How many waits went past spinning: to yielding, to sleeping (tests and benches).
    struct wait_counts {
        std::uint64_t yielded = 0, slept = 0;
    };
    wait_counts counts() const;

private:
    struct alignas(64) padded_word {
        std::atomic<std::uint32_t> value{0};
    };

    void worker(unsigned t);
    void arrive();            // a worker at a meeting or at the end of a job
    void wait_for_arrivals(); // thread 0: every worker arrived; resets the count
    void release(std::atomic<std::uint32_t>& generation);
    void wait_while_equal(const std::atomic<std::uint32_t>& word, std::uint32_t old);
    template <typename Done>
    void wait(const std::atomic<std::uint32_t>& word, Done&& done);

    unsigned threads_;
    wait_limits limits_;
    std::chrono::steady_clock::time_point warm_until_; // see wait_limits::warm_us
    padded_word arrived_;                              // workers arrived at the current meeting or job end
    padded_word released_;                             // meetings passed
    padded_word started_;                              // jobs started (+1 at destruction, with stop_)
    alignas(64) std::atomic<std::uint32_t> sleepers_{0};
    std::atomic<bool> stop_{false};
    const std::function<void(unsigned)>* job_ = nullptr;
    std::mutex error_mutex_;
    std::exception_ptr error_;
    std::atomic<std::uint64_t> yielded_{0}, slept_{0};
    std::vector<std::thread> workers_;
};

} // namespace spikex
