#pragma once
// Wall-clock seconds for the per-phase timers.
#include <chrono>

namespace spikex {

inline double wall_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Adds the time between construction and destruction to `total`.
class scoped_timer {
public:
    explicit scoped_timer(double& total): total_(total), start_(wall_seconds()) {}
    ~scoped_timer() { total_ += wall_seconds() - start_; }
    scoped_timer(const scoped_timer&) = delete;
    scoped_timer& operator=(const scoped_timer&) = delete;

private:
    double& total_;
    double start_;
};

} // namespace spikex
