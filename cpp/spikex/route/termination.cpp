#include "spikex/route/termination.hpp"

namespace spikex {

bool termination_detector::poll(context& comm, bool idle, std::uint64_t injected, std::uint64_t delivered) {
    if (!running_) {
        if (!idle) return false;
        sums_[0] = static_cast<std::int64_t>(injected);
        sums_[1] = static_cast<std::int64_t>(delivered);
        request_ = comm.iallreduce_sum(sums_, 2);
        running_ = true;
    }
    if (!comm.test(request_)) return false;
    running_ = false;
    ++waves_;
    return sums_[0] == sums_[1];
}

} // namespace spikex
