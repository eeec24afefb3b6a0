// spike_source_inh_gamma: cells that each emit one inhomogeneous gamma train whose rate
// steps to rate_values[i] at rate_times[i] (PyNN's SpikeSourceInhGamma, which pyNN.nest
// maps onto an inh_gamma_generator that NEST 3.10 does not have). Every target of a cell
// receives the same train.
//
// The process is NEST's inhomogeneous gamma process (sinusoidal_gamma_generator's; Barbieri
// et al. 2001), a gamma renewal process in rescaled time: with
// Lambda(t) = gamma_shape · ∫ rate(s) ds / 1000 from the window's start, the events are
// where Lambda has grown by Gamma(gamma_shape, 1) since the one before (the first from the
// start, as if an event had been there). Drawn exactly in continuous time: a gamma variate
// (Marsaglia-Tsang) per interval and the time where the piecewise linear Lambda reaches it.
// An event at t is emitted at step ceil(t/dt) - 1 (NEST's stamp of it is the first grid
// time >= t); a cell spikes at most once per step (source_trains.hpp).
//
// Timing, as NEST's inhomogeneous_poisson_generator: the rate of rate_times[i] (a grid
// time, or with allow_offgrid_times = 1 the end of its step) is the rate of the steps
// whose spikes NEST stamps rate_times[i] or later, 0 before the first; the train runs in
// the device's window (origin + start, origin + stop].
#include <algorithm>
#include <cmath>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/models/source_trains.hpp"

namespace spikex {
namespace {

using model_parameters::number;
namespace st = source_trains;

struct inh_gamma_parameters {
    double gamma_shape, allow_offgrid_times, start, stop, origin;
};

const char* const model_name = "spike_source_inh_gamma";

const std::vector<model_parameters::field<inh_gamma_parameters>> table = {
    {{"gamma_shape", "1", 1.0, "", ranges::positive(),
      "shape of the gamma process (its intervals' CV is 1/sqrt(gamma_shape) at a constant rate)"},
     &inh_gamma_parameters::gamma_shape},
    {{"allow_offgrid_times", "1", 0.0, "", ranges::flag(),
      "1: rate times off the grid move to the end of their step (NEST's option)"},
     &inh_gamma_parameters::allow_offgrid_times},
    {{"start", "ms", 0.0, "", ranges::non_negative(), "the train's events lie after origin + start"},
     &inh_gamma_parameters::start},
    {{"stop", "ms", std::numeric_limits<double>::infinity(), "", ranges::any_or_inf(),
      "the train's events lie until origin + stop (must be >= start)"},
     &inh_gamma_parameters::stop},
    {{"origin", "ms", 0.0, "", ranges::non_negative(), "time that start and stop are counted from"},
     &inh_gamma_parameters::origin},
};

const std::vector<parameter_spec> list_specs = {
    {"rate_times", "ms", 0.0, "", ranges::non_negative(),
     "times at which the rate changes, strictly increasing, on the grid (default: none: rate 0)",
     parameter_shape::per_cell_list},
    {"rate_values", "Hz", 0.0, "", ranges::non_negative(), "the rate from each of rate_times on",
     parameter_shape::per_cell_list},
};

struct inh_gamma_process {
    static constexpr bool continuous = true;
    struct setup {
        st::window active;
        double dt, shape;
        double begin, end;           // the process runs in (begin, end] (ms)
        std::vector<double> changes; // times (ms) from which rates[i] holds, increasing
        std::vector<double> rates;   // Hz
        std::uint32_t components = 1;
        std::uint32_t digest;
    };

    static setup parse(const population_spec& pop, gid_type gid, std::uint32_t seed, double dt) {
        const inh_gamma_parameters p = model_parameters::parse(model_name, table, cell_parameters(pop, gid, seed));
        model_parameters::require(p.stop >= p.start, model_name, "stop", p.stop,
                                  spikex::format("must be >= start = {} ms", number(p.start)));
        const std::vector<double> times = pop.list_of("rate_times", gid);
        const std::vector<double> values = pop.list_of("rate_values", gid);
        if (times.size() != values.size()) {
            throw user_error(spikex::format("{} (cell {}): {} rate_times and {} rate_values: give one value per time",
                                            model_name, gid, times.size(), values.size()));
        }
        setup s;
        s.active = st::device_window(p.start, p.stop, p.origin, dt);
        s.dt = dt;
        s.shape = p.gamma_shape;
        s.begin = double(s.active.first) * dt;
        s.end = double(s.active.last + 1) * dt;
        step_type previous = -1;
        for (std::size_t k = 0; k < times.size(); ++k) {
            const double x = times[k] / dt;
            double stamp = std::round(x);
            if (!std::isfinite(times[k]) || !(times[k] >= 0)) {
                throw user_error(spikex::format("{} parameter rate_times = {} (cell {}): must be >= 0 ms", model_name,
                                                number(times[k]), gid));
            }
            if (std::abs(x - stamp) > 1e-6) {
                if (p.allow_offgrid_times == 0.0) {
                    throw user_error(spikex::format("{} parameter rate_times = {} (cell {}): must be a multiple of dt "
                                                    "= {} ms (or set allow_offgrid_times = 1)",
                                                    model_name, number(times[k]), gid, number(dt)));
                }
                stamp = std::ceil(x); // the end of the step it lies in (NEST's ms_stamp)
            }
            if (!std::isfinite(values[k]) || !(values[k] >= 0)) {
                throw user_error(spikex::format("{} parameter rate_values = {} (cell {}): must be a finite rate >= 0 "
                                                "Hz",
                                                model_name, number(values[k]), gid));
            }
            const auto step = static_cast<step_type>(stamp);
            if (step <= previous) {
                throw user_error(spikex::format("{} parameter rate_times = {} (cell {}): must be strictly increasing, "
                                                "on distinct steps",
                                                model_name, number(times[k]), gid));
            }
            previous = step;
            // The steps whose spikes NEST stamps `step` or later: emission steps >= step - 1,
            // the times after (step - 1) · dt.
            s.changes.push_back(double(step - 1) * dt);
            s.rates.push_back(values[k]);
        }
        st::digest d;
        for (double x: {p.gamma_shape, p.allow_offgrid_times, p.start, p.stop, p.origin}) d.add(x);
        s.digest = d.add(times).add(values).value();
        return s;
    }

    // The next event after the one at time t (ms; updated): where Lambda has grown by a
    // Gamma(shape) variate.
    static step_type advance(const setup& s, random_stream& stream, double& t) {
        double left = st::gamma_variate(stream, s.shape);
        double now = t;
        // The rate just after `now`: the last change at or before it.
        auto i = std::size_t(std::upper_bound(s.changes.begin(), s.changes.end(), now) - s.changes.begin());
        for (;;) {
            const double until = std::min(i < s.changes.size() ? s.changes[i] : st::infinity, s.end);
            const double rate = i == 0 ? 0.0 : s.rates[i - 1];
            if (rate > 0) {
                const double per_ms = s.shape * rate / 1000.0; // growth of Lambda
                const double room = (until - now) * per_ms;
                if (left <= room) {
                    t = std::min(now + left / per_ms, s.end);
                    const auto step = static_cast<step_type>(std::ceil(t / s.dt)) - 1;
                    return std::clamp(step, s.active.first, s.active.last);
                }
                left -= room;
            }
            if (until >= s.end) {
                t = st::infinity;
                return st::never;
            }
            now = until;
            ++i;
        }
    }

    static step_type first(const setup& s, std::uint32_t, random_stream& stream, double& t) {
        t = s.begin;
        return advance(s, stream, t);
    }

    static step_type next(const setup& s, step_type, random_stream& stream, double& t) { return advance(s, stream, t); }
};

std::vector<parameter_spec> all_specs() {
    std::vector<parameter_spec> specs = list_specs;
    for (const auto& spec: model_parameters::specs_of(table)) specs.push_back(spec);
    return specs;
}

} // namespace

model_entry spike_source_inh_gamma_model() {
    return {.name = model_name,
            .kind = model_kind::spike_source,
            .description = "cells that each emit one gamma train whose rate steps at given times, the same to every "
                           "target (PyNN's SpikeSourceInhGamma)",
            .parameters = all_specs(),
            .checkpoint_state = st::train_group<inh_gamma_process>::checkpoint_state(),
            .integration = "exact (time-rescaled gamma process in continuous time)",
            .docs_page = "docs/models/spike_source_trains.md",
            .make = st::make_train_group<inh_gamma_process>};
}

} // namespace spikex
