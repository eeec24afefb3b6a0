#pragma once
// What every parallel region of spikex needs: the team it asked for (an OpenMP region with
// fewer threads, from OMP_THREAD_LIMIT or nesting, would silently skip the work of the
// missing ones), and the first exception a thread raised, kept to rethrow after the region
// (an exception must not leave an OpenMP region).
#include <atomic>
#include <exception>
#include <mutex>
#include <string>

#include <omp.h>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

// Call inside the region: throws unless the team has exactly `threads` threads.
inline void require_team_size(unsigned threads) {
    const int started = omp_get_num_threads();
    if (started != static_cast<int>(threads)) {
        throw internal_error(
            spikex::format("OpenMP started {} threads, not {} (is OMP_THREAD_LIMIT set lower?)", started, threads));
    }
}

class first_thread_error {
public:
    // Runs work() unless a thread has failed already; keeps the first exception.
    template <typename Work>
    void guard(Work&& work) noexcept {
        if (failed_.load()) return;
        try {
            work();
        } catch (...) {
            {
                std::lock_guard lock(mutex_);
                if (!error_) error_ = std::current_exception();
            }
            failed_.store(true);
        }
    }
    // Call after the region.
    void rethrow_if_any() const {
        if (error_) std::rethrow_exception(error_);
    }

private:
    std::mutex mutex_;
    std::exception_ptr error_;
    std::atomic<bool> failed_{false};
};

} // namespace spikex
