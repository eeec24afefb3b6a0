#pragma once
// Runs work(t) for t = 0 .. threads-1, each on its own OpenMP thread, and rethrows the
// first exception any of them raised (an exception must not leave an OpenMP region).
#include <exception>
#include <string>

#include <omp.h>

#include "spikex/core/errors.hpp"

namespace spikex {

template <typename Work>
void for_each_thread(unsigned threads, Work&& work) {
    if (threads <= 1) {
        work(0u);
        return;
    }
    std::exception_ptr error;
#pragma omp parallel num_threads(threads)
    {
        try {
            // Fewer threads than asked for (OMP_THREAD_LIMIT) would silently skip work.
            if (omp_get_num_threads() != static_cast<int>(threads)) {
                throw internal_error("OpenMP started " + std::to_string(omp_get_num_threads()) + " threads, not " +
                                     std::to_string(threads));
            }
            work(static_cast<unsigned>(omp_get_thread_num()));
        } catch (...) {
#pragma omp critical(spikex_for_each_thread_error)
            {
                if (!error) error = std::current_exception();
            }
        }
    }
    if (error) std::rethrow_exception(error);
}

} // namespace spikex
