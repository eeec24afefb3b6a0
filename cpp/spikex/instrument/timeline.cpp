#include "spikex/instrument/timeline.hpp"
#include "spikex/instrument/stopwatch.hpp"

namespace spikex {

void timeline_recorder::start_run() {
    if (enabled_) mark_ = wall_seconds();
}

void timeline_recorder::sample(step_type step, step_type due, double compute_s, std::uint64_t spikes_generated,
                               const spike_exchange& exchange) {
    if (!enabled_) return;
    const double now = wall_seconds();
    auto counters = exchange.counters();
    auto counter = [&](const char* name) {
        auto it = counters.find(name);
        return it == counters.end() ? 0.0 : it->second;
    };
    totals t{compute_s,         exchange.send_seconds(),  exchange.wait_seconds(), exchange.exchange_seconds(),
             counter("rounds"), double(spikes_generated), counter("spikes_sent"),  counter("spikes_received")};
    steps_.push_back(step);
    dues_.push_back(due);
    compute_.push_back(t.compute_s - last_.compute_s);
    send_.push_back(t.send_s - last_.send_s);
    wait_.push_back(t.wait_s - last_.wait_s);
    exchange_.push_back(t.exchange_s - last_.exchange_s);
    wall_.push_back(mark_ < 0 ? 0.0 : now - mark_);
    rounds_.push_back(static_cast<std::int64_t>(t.rounds - last_.rounds));
    generated_.push_back(static_cast<std::int64_t>(t.generated - last_.generated));
    sent_.push_back(static_cast<std::int64_t>(t.sent - last_.sent));
    received_.push_back(static_cast<std::int64_t>(t.received - last_.received));
    last_ = t;
    mark_ = wall_seconds();
}

std::map<std::string, std::vector<std::int64_t>> timeline_recorder::integer_columns() const {
    return {{"step", steps_},       {"due", dues_},
            {"rounds", rounds_},    {"spikes_generated", generated_},
            {"spikes_sent", sent_}, {"spikes_received", received_}};
}

std::map<std::string, std::vector<double>> timeline_recorder::float_columns() const {
    return {
        {"compute_s", compute_}, {"send_s", send_}, {"wait_s", wait_}, {"exchange_s", exchange_}, {"wall_s", wall_}};
}

std::size_t timeline_recorder::bytes() const {
    return (steps_.capacity() + dues_.capacity() + rounds_.capacity() + generated_.capacity() + sent_.capacity() +
            received_.capacity()) *
               sizeof(std::int64_t) +
           (compute_.capacity() + send_.capacity() + wait_.capacity() + exchange_.capacity() + wall_.capacity()) *
               sizeof(double);
}

} // namespace spikex
