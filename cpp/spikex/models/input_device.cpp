// The input devices' registry entries and parameters; their inputs are computed on the
// targets' ranks (engine/device_inputs.cpp), so their own cells do nothing.
#include <cmath>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/input_device.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace {

using model_parameters::number;

// A device's own cells: no state, no spikes.
class idle_group final: public cell_group {
public:
    void begin_step(step_type, spike_output&) override {}
    void deliver(step_type, const local_index*, const double*, std::uint32_t, std::uint32_t, spike_output&) override {}
    std::size_t bytes() const override { return 0; }
};

std::unique_ptr<cell_group> make_idle(const network_spec&, const std::vector<gid_type>&, local_index) {
    return std::make_unique<idle_group>();
}

} // namespace

bool is_input_device(const std::string& model) { return model == "poisson_generator" || model == "dc_generator"; }

input_device_parameters parse_input_device(const population_spec& pop, gid_type gid, std::uint32_t seed) {
    input_device_parameters p;
    p.kind = pop.model == "dc_generator" ? input_device_kind::dc_generator : input_device_kind::poisson_generator;
    const std::string level = p.kind == input_device_kind::dc_generator ? "amplitude" : "rate";
    for (const auto& [name, value]: cell_parameters(pop, gid, seed)) {
        auto fail = [&](const std::string& allowed) {
            throw user_error(spikex::format("{} parameter {} = {}: {}", pop.model, name, number(value), allowed));
        };
        if (std::isnan(value) || (name != "stop" && !std::isfinite(value))) fail("must be a finite number");
        if (name == level && level == "rate") {
            if (value < 0) fail("must be >= 0 Hz");
            p.rate_hz = value;
        } else if (name == level) {
            p.amplitude = value;
        } else if (name == "start") {
            if (value < 0) fail("must be >= 0 ms");
            p.start = value;
        } else if (name == "stop") {
            p.stop = value;
        } else if (name == "origin") {
            if (value < 0) fail("must be >= 0 ms");
            p.origin = value;
        } else {
            throw user_error(spikex::format("{} parameter \"{}\" is unknown: allowed are {}, start, stop, origin",
                                            pop.model, name, level));
        }
    }
    if (p.stop < p.start) {
        throw user_error(spikex::format("{} parameter stop = {}: must be >= start = {} ms", pop.model, number(p.stop),
                                        number(p.start)));
    }
    return p;
}

model_entry poisson_generator_model() {
    return {.name = "poisson_generator",
            .kind = model_kind::input_device,
            .description = "NEST's poisson_generator: an independent Poisson train of the given rate to each target",
            .parameters = {"rate", "start", "stop", "origin"},
            .docs_page = "docs/models/devices.md",
            .make = make_idle};
}

model_entry dc_generator_model() {
    return {.name = "dc_generator",
            .kind = model_kind::input_device,
            .description = "NEST's dc_generator: a constant current (amplitude times the connection weight) "
                           "between start and stop",
            .parameters = {"amplitude", "start", "stop", "origin"},
            .docs_page = "docs/models/devices.md",
            .make = make_idle};
}

} // namespace spikex
