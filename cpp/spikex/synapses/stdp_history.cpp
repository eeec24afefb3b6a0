#include "spikex/synapses/stdp_history.hpp"

namespace spikex {

void post_history::record(step_type stamp, double dt_ms, double tau_minus, std::uint32_t incoming,
                          step_type max_delay) {
    while (size() > 1 && entries_[first_].reads >= incoming && stamp - entries_[first_ + 1].stamp > max_delay) {
        ++first_;
    }
    if (first_ > 16 && 2 * first_ > entries_.size()) {
        entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(first_));
        first_ = 0;
    }
    k_minus_ = k_minus_ * std::exp(double(last_ - stamp) * dt_ms / tau_minus) + 1.0; // 0 before the first
    last_ = stamp;
    entries_.push_back({stamp, k_minus_, 0});
    asked_ = -1; // a new spike can change the answer for later stamps
}

void post_history::answer(step_type t, double dt_ms, double tau_minus) {
    asked_ = t;
    answer_ = 0.0;
    for (std::size_t i = entries_.size(); i > first_; --i) {
        const entry& e = entries_[i - 1];
        if (e.stamp < t) {
            answer_ = e.k_minus * std::exp(double(e.stamp - t) * dt_ms / tau_minus);
            break;
        }
    }
}

void stdp_pre_advance(stdp_pre_state& pre, step_type stamp, double dt_ms, double tau_plus) {
    pre.k_plus = pre.k_plus * std::exp(double(pre.last_stamp - stamp) * dt_ms / tau_plus) + 1.0;
    pre.last_stamp = stamp;
}

} // namespace spikex
