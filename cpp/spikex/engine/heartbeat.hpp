#pragma once
// Liveness of this process's simulation loop, for a watchdog thread that must notice a
// rank stuck in an exchange (a lost host or link: MPI over TCP would wait forever). Read
// without locks, the GIL or MPI: plain atomics, one set per process.
#include <atomic>
#include <cstdint>

namespace spikex::heartbeat {

// Exchanges completed by this process (every engine), spikes its cells emitted up to the
// last of them (for progress reports), and engines inside run_until.
inline std::atomic<std::int64_t> exchanges{0};
inline std::atomic<std::int64_t> spikes{0};
inline std::atomic<int> running{0};

// Marks one run_until call as running for its lifetime (exceptions included).
struct running_scope {
    running_scope() { running.fetch_add(1, std::memory_order_relaxed); }
    ~running_scope() { running.fetch_sub(1, std::memory_order_relaxed); }
    running_scope(const running_scope&) = delete;
    running_scope& operator=(const running_scope&) = delete;
};

} // namespace spikex::heartbeat
