// spike_source_gamma: cells that each emit one train, the superposition of n_proc
// independent gamma processes of order gamma_shape (NEST 3.10's gamma_sup_generator into a
// parrot neuron; PyNN's SpikeSourceGamma). Every target of a cell receives the same train.
//
// NEST's process, drawn exactly: a component process moves through gamma_shape phases;
// in each step of the device's window it leaves its phase with probability
// p = rate · gamma_shape · dt / 1000, and leaving the last phase is a spike (back to the
// first). NEST starts floor(n_proc / gamma_shape) components in each phase and the rest in
// the last one (with n_proc = 1: the last phase, the first spike after one phase). So a
// component's interval is the sum of gamma_shape geometric numbers of steps (mean 1000 /
// rate ms, CV sqrt((1 - p) / gamma_shape), a gamma interval as dt -> 0). NEST draws the
// transitions of all components at once (binomial, or Poisson when many are in a phase);
// here each component's geometric steps are drawn by inversion from the cell's stream,
// which is the same law. A cell spikes at most once per step (source_trains.hpp); NEST's
// parrot passes the multiplicity.
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

struct gamma_parameters {
    double rate, gamma_shape, n_proc, start, stop, origin;
};

const char* const model_name = "spike_source_gamma";

const std::vector<model_parameters::field<gamma_parameters>> table = {
    {{"rate", "Hz", 0.0, "", ranges::non_negative(), "mean rate of each component process"}, &gamma_parameters::rate},
    {{"gamma_shape",
      "1",
      1.0,
      "",
      {.low = 1.0, .integer = true},
      "order of the component gamma processes (their intervals' CV is 1/sqrt(gamma_shape))"},
     &gamma_parameters::gamma_shape},
    {{"n_proc",
      "1",
      1.0,
      "",
      {.low = 1.0, .integer = true},
      "number of independent component processes the cell's train superposes"},
     &gamma_parameters::n_proc},
    {{"start", "ms", 0.0, "", ranges::non_negative(), "the train's events lie after origin + start"},
     &gamma_parameters::start},
    {{"stop", "ms", std::numeric_limits<double>::infinity(), "", ranges::any_or_inf(),
      "the train's events lie until origin + stop (must be >= start)"},
     &gamma_parameters::stop},
    {{"origin", "ms", 0.0, "", ranges::non_negative(), "time that start and stop are counted from"},
     &gamma_parameters::origin},
};

struct gamma_process {
    static constexpr bool continuous = false;
    struct setup {
        st::window active;
        double p;                 // probability per step that a component leaves its phase
        std::uint32_t shape;      // phases per interval
        std::uint32_t per_phase;  // NEST's initial components in every phase
        std::uint32_t components; // n_proc
        std::uint32_t digest;
    };

    static setup parse(const population_spec& pop, gid_type gid, std::uint32_t seed, double dt) {
        const gamma_parameters p = model_parameters::parse(model_name, table, cell_parameters(pop, gid, seed));
        model_parameters::require(p.stop >= p.start, model_name, "stop", p.stop,
                                  spikex::format("must be >= start = {} ms", number(p.start)));
        const double probability = p.rate * p.gamma_shape * dt / 1000.0;
        model_parameters::require(probability <= 1.0, model_name, "rate", p.rate,
                                  spikex::format("must be <= 1000 / (gamma_shape · dt) = {} Hz (at most one phase "
                                                 "change per step)",
                                                 number(1000.0 / (p.gamma_shape * dt))));
        model_parameters::require(p.n_proc < 0x1p32, model_name, "n_proc", p.n_proc, "must be < 2^32");
        model_parameters::require(p.gamma_shape < 0x1p32, model_name, "gamma_shape", p.gamma_shape, "must be < 2^32");
        const auto shape = static_cast<std::uint32_t>(p.gamma_shape);
        const auto n = static_cast<std::uint32_t>(p.n_proc);
        st::digest d;
        for (double x: {p.rate, p.gamma_shape, p.n_proc, p.start, p.stop, p.origin}) d.add(x);
        return {st::device_window(p.start, p.stop, p.origin, dt), probability, shape, n / shape, n, d.value()};
    }

    // The step of the m-th phase change after step `after`.
    static step_type changes_after(const setup& s, step_type after, std::uint32_t m, random_stream& stream) {
        step_type step = after;
        for (std::uint32_t i = 0; i < m; ++i) {
            const step_type trials = st::trials_to_success(stream, s.p);
            if (trials == st::never) return st::never;
            step += trials;
            if (step > s.active.last) return st::never;
        }
        return step;
    }

    static step_type first(const setup& s, std::uint32_t k, random_stream& stream, double&) {
        const std::uint32_t phase = k < s.per_phase * s.shape ? k % s.shape : s.shape - 1;
        return changes_after(s, s.active.first - 1, s.shape - phase, stream);
    }

    static step_type next(const setup& s, step_type fired, random_stream& stream, double&) {
        return changes_after(s, fired, s.shape, stream);
    }
};

} // namespace

model_entry spike_source_gamma_model() {
    return {.name = model_name,
            .kind = model_kind::spike_source,
            .description = "cells that each emit one train, a superposition of n_proc gamma processes, the same to "
                           "every target (PyNN's SpikeSourceGamma, NEST's gamma_sup_generator into a parrot_neuron)",
            .parameters = model_parameters::specs_of(table),
            .checkpoint_state = st::train_group<gamma_process>::checkpoint_state(),
            .integration = "exact (NEST's phase process, drawn event by event)",
            .nest_model = "gamma_sup_generator",
            .pynn_types = {"SpikeSourceGamma"},
            .docs_page = "docs/models/spike_source_trains.md",
            .make = st::make_train_group<gamma_process>};
}

} // namespace spikex
