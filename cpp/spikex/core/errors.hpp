#pragma once
// Two exception roots (as Arbor): a user error is bad input that the user can fix
// (reported as one line, exit status 2); an internal error is a bug or a failed
// rank (exit status 3).
#include <stdexcept>
#include <string>

namespace spikex {

struct user_error: std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct internal_error: std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A cell's dynamics diverged during a run (NEST's numerical-instability checks): the run
// ends with exit status 3, the message naming the model, the cell and the time.
struct simulation_error: internal_error {
    using internal_error::internal_error;
};

// Communication failure reported by the MPI library (turned into an exception).
struct comm_error: internal_error {
    using internal_error::internal_error;
};

} // namespace spikex
