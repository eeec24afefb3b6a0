#pragma once
// Runs work(t) for t = 0 .. threads-1, each on its own OpenMP thread, and rethrows the
// first exception any of them raised.
#include "spikex/core/thread_team.hpp"

namespace spikex {

template <typename Work>
void for_each_thread(unsigned threads, Work&& work) {
    if (threads <= 1) {
        work(0u);
        return;
    }
    first_thread_error error;
#pragma omp parallel num_threads(threads)
    error.guard([&] {
        require_team_size(threads);
        work(static_cast<unsigned>(omp_get_thread_num()));
    });
    error.rethrow_if_any();
}

} // namespace spikex
