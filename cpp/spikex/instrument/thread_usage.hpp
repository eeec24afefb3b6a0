#pragma once
// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID: the scheduler's nanoseconds;
// getrusage's times follow the 4 ms tick and read 0 for a short part) and context switches
// so far (getrusage RUSAGE_THREAD):
// with more ranks than cores, how much of a timed part a rank actually ran, and how often
// it gave its core away (voluntary: it blocked; involuntary: it was preempted or yielded).
#include <sys/resource.h>
#include <time.h>

#include <cstdint>

namespace spikex {

struct thread_usage {
    double cpu_seconds = 0; // user + system
    std::uint64_t voluntary_switches = 0, involuntary_switches = 0;

    static thread_usage now() {
        thread_usage u;
        timespec cpu{};
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
            u.cpu_seconds = double(cpu.tv_sec) + 1e-9 * double(cpu.tv_nsec);
#ifdef RUSAGE_THREAD
        rusage r{};
        if (getrusage(RUSAGE_THREAD, &r) == 0) {
            u.voluntary_switches = static_cast<std::uint64_t>(r.ru_nvcsw);
            u.involuntary_switches = static_cast<std::uint64_t>(r.ru_nivcsw);
        }
#endif
        return u;
    }
    thread_usage since(const thread_usage& start) const {
        return {cpu_seconds - start.cpu_seconds, voluntary_switches - start.voluntary_switches,
                involuntary_switches - start.involuntary_switches};
    }
};

} // namespace spikex
