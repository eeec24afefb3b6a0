// spike_source_poisson_refractory: cells that each emit one train, the superposition of
// n_proc independent Poisson processes with dead time, optionally rate-modulated by a sine
// (NEST 3.10's ppd_sup_generator into a parrot neuron; PyNN's SpikeSourcePoissonRefractory).
// Every target of a cell receives the same train.
//
// NEST's process, drawn exactly: in each step of the device's window a component that is
// not dead spikes with probability p(t) = dt / (1000 / rate - dead_time) ·
// (1 + relative_amplitude · sin(2π · frequency · t / 1000)), t the step's start (ms); after
// a spike it is dead for D = floor(dead_time / dt) steps, so its intervals are at least
// D + 1 steps (D + geometric: mean 1000 / rate ms when dead_time is a multiple of dt).
// NEST starts floor(rate · n_proc · dt / 1000) components in each of the D dead steps and
// the rest alive. NEST draws how many of the live components spike at once (binomial, or
// Poisson when many are alive); here each component's next spike is drawn from the cell's
// stream: the trials up to a success by inversion with the largest p, each success kept
// with probability p(t) / max p (thinning), which is the same law. A cell spikes at most
// once per step (source_trains.hpp); NEST's parrot passes the multiplicity.
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

struct ppd_parameters {
    double rate, dead_time, n_proc, frequency, relative_amplitude, start, stop, origin;
};

const char* const model_name = "spike_source_poisson_refractory";

const std::vector<model_parameters::field<ppd_parameters>> table = {
    {{"rate", "Hz", 0.0, "", ranges::non_negative(), "mean rate of each component process (without modulation)"},
     &ppd_parameters::rate},
    {{"dead_time", "ms", 0.0, "", ranges::non_negative(),
      "dead time after each spike of a component (must be < 1000 / rate)"},
     &ppd_parameters::dead_time},
    {{"n_proc",
      "1",
      1.0,
      "",
      {.low = 1.0, .integer = true},
      "number of independent component processes the cell's train superposes"},
     &ppd_parameters::n_proc},
    {{"frequency", "Hz", 0.0, "", ranges::any(), "frequency of the sinusoidal rate modulation"},
     &ppd_parameters::frequency},
    {{"relative_amplitude",
      "1",
      0.0,
      "",
      {.low = 0.0, .high = 1.0},
      "amplitude of the rate modulation relative to the rate"},
     &ppd_parameters::relative_amplitude},
    {{"start", "ms", 0.0, "", ranges::non_negative(), "the train's events lie after origin + start"},
     &ppd_parameters::start},
    {{"stop", "ms", std::numeric_limits<double>::infinity(), "", ranges::any_or_inf(),
      "the train's events lie until origin + stop (must be >= start)"},
     &ppd_parameters::stop},
    {{"origin", "ms", 0.0, "", ranges::non_negative(), "time that start and stop are counted from"},
     &ppd_parameters::origin},
};

struct ppd_process {
    static constexpr bool continuous = false;
    struct setup {
        st::window active;
        double p_max;            // the largest spike probability per step
        double amplitude;        // relative_amplitude when modulated, else 0
        double omega;            // rad per step
        step_type dead_steps;    // D
        std::uint32_t dead_each; // NEST's initial components in each dead step
        std::uint32_t components;
        std::uint32_t digest;
    };

    static setup parse(const population_spec& pop, gid_type gid, std::uint32_t seed, double dt) {
        const ppd_parameters p = model_parameters::parse(model_name, table, cell_parameters(pop, gid, seed));
        model_parameters::require(p.stop >= p.start, model_name, "stop", p.stop,
                                  spikex::format("must be >= start = {} ms", number(p.start)));
        model_parameters::require(1000.0 / p.rate > p.dead_time, model_name, "dead_time", p.dead_time,
                                  spikex::format("must be < 1000 / rate = {} ms", number(1000.0 / p.rate)));
        model_parameters::require(p.n_proc < 0x1p32, model_name, "n_proc", p.n_proc, "must be < 2^32");
        const bool modulated = p.relative_amplitude > 0.0 && p.frequency != 0.0;
        const double hazard = p.rate > 0 ? dt / (1000.0 / p.rate - p.dead_time) : 0.0;
        const double p_max = modulated ? hazard * (1.0 + p.relative_amplitude) : hazard;
        model_parameters::require(p_max <= 1.0, model_name, "rate", p.rate,
                                  spikex::format("must leave 1000 / rate - dead_time >= {} ms (dt · (1 + modulation): "
                                                 "a spike probability per step <= 1)",
                                                 number(dt * (1.0 + (modulated ? p.relative_amplitude : 0.0)))));
        const auto dead_steps = static_cast<step_type>(p.dead_time / dt);
        const auto dead_each = static_cast<std::uint32_t>(p.rate / 1000.0 * p.n_proc * dt);
        st::digest d;
        for (double x: {p.rate, p.dead_time, p.n_proc, p.frequency, p.relative_amplitude, p.start, p.stop, p.origin})
            d.add(x);
        return {st::device_window(p.start, p.stop, p.origin, dt),
                p_max,
                modulated ? p.relative_amplitude : 0.0,
                2.0 * 3.14159265358979323846 * p.frequency / 1000.0 * dt,
                dead_steps,
                dead_each,
                static_cast<std::uint32_t>(p.n_proc),
                d.value()};
    }

    // The step of the first spike at or after step `from` of a live component.
    static step_type spike_from(const setup& s, step_type from, random_stream& stream) {
        step_type step = from - 1;
        for (;;) {
            const step_type trials = st::trials_to_success(stream, s.p_max);
            if (trials == st::never) return st::never;
            step += trials;
            if (step > s.active.last) return st::never;
            if (s.amplitude == 0.0) return step;
            const double kept = (1.0 + s.amplitude * std::sin(s.omega * double(step))) / (1.0 + s.amplitude);
            if (stream.next_uniform() < kept) return step;
        }
    }

    static step_type first(const setup& s, std::uint32_t k, random_stream& stream, double&) {
        // NEST's dead step b (0 first) lets its components spike from the (b + 2)-th step on.
        const std::uint64_t dead = std::uint64_t(s.dead_each) * std::uint64_t(s.dead_steps);
        const step_type delay = k < dead ? step_type(k / s.dead_each) + 1 : 0;
        return spike_from(s, s.active.first + delay, stream);
    }

    static step_type next(const setup& s, step_type fired, random_stream& stream, double&) {
        return spike_from(s, fired + s.dead_steps + 1, stream);
    }
};

} // namespace

model_entry spike_source_poisson_refractory_model() {
    return {.name = model_name,
            .kind = model_kind::spike_source,
            .description = "cells that each emit one train, a superposition of n_proc Poisson processes with dead "
                           "time, the same to every target (PyNN's SpikeSourcePoissonRefractory, NEST's "
                           "ppd_sup_generator into a parrot_neuron)",
            .parameters = model_parameters::specs_of(table),
            .checkpoint_state = st::train_group<ppd_process>::checkpoint_state(),
            .integration = "exact (NEST's process with dead time, drawn event by event)",
            .nest_model = "ppd_sup_generator",
            .pynn_types = {"SpikeSourcePoissonRefractory"},
            .docs_page = "docs/models/spike_source_trains.md",
            .make = st::make_train_group<ppd_process>};
}

} // namespace spikex
