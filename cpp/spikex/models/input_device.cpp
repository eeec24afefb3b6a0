// The input devices' registry entries and schedules; their inputs are computed on the
// targets' ranks (engine/device_inputs.cpp), so their own cells do nothing.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

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

step_type steps_of(double ms, double h) {
    if (std::isinf(ms)) return std::numeric_limits<step_type>::max() / 4;
    return static_cast<step_type>(std::llround(ms / h));
}

// NEST's device timing parameters, shared by every input device.
struct timing {
    double level, start, stop, origin;
    double allow_offgrid_times; // step_current_generator: 1 moves off-grid times to their step's end
};

parameter_spec start_spec() {
    return {"start", "ms", 0.0, "", ranges::non_negative(), "the device acts after origin + start"};
}
parameter_spec stop_spec() {
    return {"stop",
            "ms",
            std::numeric_limits<double>::infinity(),
            "",
            ranges::any_or_inf(),
            "the device acts until origin + stop (must be >= start)"};
}
parameter_spec origin_spec() {
    return {"origin", "ms", 0.0, "", ranges::non_negative(), "time that start and stop are counted from"};
}

std::vector<model_parameters::field<timing>> timing_table(parameter_spec level) {
    return {{std::move(level), &timing::level},
            {start_spec(), &timing::start},
            {stop_spec(), &timing::stop},
            {origin_spec(), &timing::origin}};
}

const std::vector<model_parameters::field<timing>>& poisson_table() {
    static const auto table =
        timing_table({"rate", "Hz", 0.0, "", ranges::non_negative(), "mean rate of each target's train"});
    return table;
}
const std::vector<model_parameters::field<timing>>& dc_table() {
    static const auto table = timing_table({"amplitude", "pA", 0.0, "", ranges::any(), "the current"});
    return table;
}
const std::vector<model_parameters::field<timing>>& step_table() {
    // amplitude_times and amplitude_values are list parameters (population_spec::lists),
    // the rest numbers: the table holds the numbers only.
    static const std::vector<model_parameters::field<timing>> table = {
        {{"allow_offgrid_times", "1", 0.0, "", ranges::flag(),
          "1: amplitude times off the grid move to the end of their step (NEST's option)"},
         &timing::allow_offgrid_times},
        {start_spec(), &timing::start},
        {stop_spec(), &timing::stop},
        {origin_spec(), &timing::origin}};
    return table;
}

const std::vector<parameter_spec> step_list_specs = {
    {"amplitude_times", "ms", 0.0, "", ranges::positive(),
     "times at which the current changes, strictly increasing, on the grid (default: none)",
     parameter_shape::per_cell_list},
    {"amplitude_values", "pA", 0.0, "", ranges::any(), "the current from each of amplitude_times on",
     parameter_shape::per_cell_list},
};

void require_stop_after_start(const std::string& model, double start, double stop) {
    if (stop < start) {
        throw user_error(
            spikex::format("{} parameter stop = {}: must be >= start = {} ms", model, number(stop), number(start)));
    }
}

timing parse_timing(const std::string& model, const std::vector<model_parameters::field<timing>>& table,
                    const population_spec& pop, gid_type gid, std::uint32_t seed) {
    const timing t = model_parameters::parse(model, table, cell_parameters(pop, gid, seed));
    require_stop_after_start(model, t.start, t.stop);
    return t;
}

// The emission steps of a current generator (header comment); none before step 0, the
// first a device is updated in (NEST: a dc_generator starting at 0 first sends at step 0).
device_schedule current_window(const timing& t, double h) {
    device_schedule s;
    s.first = std::max<step_type>(steps_of(t.origin + t.start, h) - 1, 0);
    s.last = steps_of(t.origin + t.stop, h) - 2;
    return s;
}

device_schedule poisson_schedule(const population_spec& pop, gid_type gid, std::uint32_t seed, double h) {
    const timing t = parse_timing(pop.model, poisson_table(), pop, gid, seed);
    device_schedule s;
    s.first = steps_of(t.origin + t.start, h) + 1;
    s.last = steps_of(t.origin + t.stop, h);
    s.rate_hz = t.level;
    return s;
}

device_schedule dc_schedule(const population_spec& pop, gid_type gid, std::uint32_t seed, double h) {
    const timing t = parse_timing(pop.model, dc_table(), pop, gid, seed);
    device_schedule s = current_window(t, h);
    s.levels = {{std::numeric_limits<step_type>::min(), t.level}};
    return s;
}

device_schedule step_schedule(const population_spec& pop, gid_type gid, std::uint32_t seed, double h) {
    const timing t = parse_timing(pop.model, step_table(), pop, gid, seed);
    const bool offgrid = t.allow_offgrid_times != 0.0;
    const std::vector<double> times = pop.list_of("amplitude_times", gid);
    const std::vector<double> values = pop.list_of("amplitude_values", gid);
    const std::string model = pop.model;
    if (times.size() != values.size()) {
        throw user_error(spikex::format("{} (cell {}): {} amplitude_times and {} amplitude_values: give one value "
                                        "per time",
                                        model, gid, times.size(), values.size()));
    }
    device_schedule s = current_window(t, h);
    step_type previous = 0;
    for (std::size_t k = 0; k < times.size(); ++k) {
        const double x = times[k] / h;
        double stamp = std::round(x);
        if (!std::isfinite(times[k]) || !(times[k] > 0)) {
            throw user_error(spikex::format("{} parameter amplitude_times = {} (cell {}): must be > 0 ms", model,
                                            number(times[k]), gid));
        }
        if (std::abs(x - stamp) > 1e-6) {
            if (!offgrid) {
                throw user_error(spikex::format("{} parameter amplitude_times = {} (cell {}): must be a multiple of "
                                                "dt = {} ms (or set allow_offgrid_times = 1)",
                                                model, number(times[k]), gid, number(h)));
            }
            stamp = std::ceil(x); // the end of the step it lies in (NEST's ms_stamp)
        }
        if (!std::isfinite(values[k])) {
            throw user_error(spikex::format("{} parameter amplitude_values = {} (cell {}): must be a finite number",
                                            model, number(values[k]), gid));
        }
        const auto step = static_cast<step_type>(stamp);
        if (step <= previous) {
            throw user_error(spikex::format("{} parameter amplitude_times = {} (cell {}): must be strictly "
                                            "increasing, on distinct steps",
                                            model, number(times[k]), gid));
        }
        previous = step;
        s.levels.emplace_back(step - 1, values[k]); // NEST changes the amplitude one step ahead
    }
    return s;
}

// ac_generator's and noise_generator's parameters (NEST's names; start, stop and origin
// as every device).
struct ac_parameters {
    double amplitude, offset, phase, frequency, start, stop, origin;
};
struct noise_parameters {
    double mean, std, dt, std_mod, frequency, phase, start, stop, origin;
};

parameter_spec frequency_spec(const char* what) { return {"frequency", "Hz", 0.0, "", ranges::any(), what}; }
parameter_spec phase_spec(const char* what) { return {"phase", "deg", 0.0, "", ranges::any(), what}; }

const std::vector<model_parameters::field<ac_parameters>>& ac_table() {
    static const std::vector<model_parameters::field<ac_parameters>> table = {
        {{"amplitude", "pA", 0.0, "", ranges::any(), "amplitude of the sine"}, &ac_parameters::amplitude},
        {{"offset", "pA", 0.0, "", ranges::any(), "constant current added to the sine"}, &ac_parameters::offset},
        {phase_spec("phase of the sine at t = 0"), &ac_parameters::phase},
        {frequency_spec("frequency of the sine"), &ac_parameters::frequency},
        {start_spec(), &ac_parameters::start},
        {stop_spec(), &ac_parameters::stop},
        {origin_spec(), &ac_parameters::origin}};
    return table;
}

// NEST's default dt: 10 times the resolution when its model was made (0.1 ms), kept when
// the resolution changes if it stays a multiple of it, else 10 times the new resolution.
constexpr double noise_default_dt = 1.0;

const std::vector<model_parameters::field<noise_parameters>>& noise_table() {
    static const std::vector<model_parameters::field<noise_parameters>> table = {
        {{"mean", "pA", 0.0, "", ranges::any(), "mean of the current"}, &noise_parameters::mean},
        {{"std", "pA", 0.0, "", ranges::non_negative(), "standard deviation of the current"}, &noise_parameters::std},
        {{"dt", "ms", noise_default_dt, "1 ms (10 steps when 1 ms is not a multiple of the resolution, as NEST)",
          ranges::positive(), "interval at which each target's amplitude is redrawn, a multiple of the resolution"},
         &noise_parameters::dt},
        {{"std_mod", "pA", 0.0, "", ranges::non_negative(),
          "sine modulation: the variance is std² + std_mod²·sin(ωt + φ) (must be <= std)"},
         &noise_parameters::std_mod},
        {frequency_spec("frequency of the modulation"), &noise_parameters::frequency},
        {phase_spec("phase of the modulation at the device's first active step"), &noise_parameters::phase},
        {start_spec(), &noise_parameters::start},
        {stop_spec(), &noise_parameters::stop},
        {origin_spec(), &noise_parameters::origin}};
    return table;
}

device_schedule ac_schedule(const population_spec& pop, gid_type gid, std::uint32_t seed, double h) {
    const auto p = model_parameters::parse(pop.model, ac_table(), cell_parameters(pop, gid, seed));
    require_stop_after_start(pop.model, p.start, p.stop);
    device_schedule s = current_window({0.0, p.start, p.stop, p.origin, 0.0}, h);
    s.has_sine = true;
    s.sine = oscillator::start(p.amplitude, p.frequency, p.phase, h);
    s.sine_from = 0; // NEST turns it in every step, active or not
    s.offset = p.offset;
    return s;
}

device_schedule noise_schedule(const population_spec& pop, gid_type gid, std::uint32_t seed, double h) {
    std::set<std::string> given;
    auto p = model_parameters::parse(pop.model, noise_table(), cell_parameters(pop, gid, seed), &given);
    require_stop_after_start(pop.model, p.start, p.stop);
    model_parameters::require(p.std_mod <= p.std, pop.model, "std_mod", p.std_mod,
                              spikex::format("must be <= std = {} pA", number(p.std)));
    const auto on_grid = [&](double ms) { return std::abs(ms / h - std::round(ms / h)) <= 1e-6; };
    if (!given.contains("dt") && !on_grid(p.dt)) p.dt = 10.0 * h;
    if (!on_grid(p.dt)) {
        throw user_error(
            spikex::format("{} parameter dt = {}: must be a multiple of the resolution {} ms", pop.model, p.dt, h));
    }
    device_schedule s = current_window({0.0, p.start, p.stop, p.origin, 0.0}, h);
    s.interval = steps_of(p.dt, h);
    s.mean = p.mean;
    s.std = p.std;
    s.std_mod = p.std_mod;
    if (p.std_mod != 0.0) {
        s.has_sine = true;
        s.sine = oscillator::start(1.0, p.frequency, p.phase, h);
        s.sine_from = s.first; // NEST turns it in active steps only
    }
    return s;
}

} // namespace

double device_schedule::level(step_type e) const {
    auto it = std::upper_bound(levels.begin(), levels.end(), e,
                               [](step_type x, const std::pair<step_type, double>& c) { return x < c.first; });
    return it == levels.begin() ? 0.0 : std::prev(it)->second;
}

oscillator oscillator::start(double amplitude, double frequency_hz, double phase_deg, double h) {
    constexpr double pi = 3.14159265358979323846;
    const double omega = 2.0 * pi * frequency_hz / 1000.0;
    const double phi = phase_deg * 2.0 * pi / 360.0;
    oscillator o;
    o.y0 = amplitude * std::cos(phi); // NEST: cos(omega t + phi) at the run's start t = 0
    o.y1 = amplitude * std::sin(phi);
    o.cos_h = std::cos(omega * h);
    o.sin_h = std::sin(omega * h);
    return o;
}

bool is_input_device(const std::string& model) { return find_model(model).kind == model_kind::input_device; }

device_schedule input_device_schedule(const population_spec& pop, gid_type gid, std::uint32_t seed, double h) {
    const model_entry& entry = find_model(pop.model);
    if (!entry.schedule) throw internal_error(pop.model + " is not an input device");
    return entry.schedule(pop, gid, seed, h);
}

model_entry poisson_generator_model() {
    return {.name = "poisson_generator",
            .kind = model_kind::input_device,
            .description = "NEST's poisson_generator: an independent Poisson train of the given rate to each target",
            .parameters = model_parameters::specs_of(poisson_table()),
            .output = device_output::spike_train,
            .integration = "none (a device)",
            .nest_model = "poisson_generator",
            .docs_page = "docs/models/devices.md",
            .make = make_idle,
            .schedule = poisson_schedule};
}

model_entry dc_generator_model() {
    return {.name = "dc_generator",
            .kind = model_kind::input_device,
            .description = "NEST's dc_generator: a constant current (amplitude times the connection weight) "
                           "between start and stop",
            .parameters = model_parameters::specs_of(dc_table()),
            .output = device_output::current,
            .integration = "none (a device)",
            .nest_model = "dc_generator",
            .pynn_types = {"DCSource"},
            .docs_page = "docs/models/devices.md",
            .make = make_idle,
            .schedule = dc_schedule};
}

model_entry step_current_generator_model() {
    std::vector<parameter_spec> specs = step_list_specs;
    for (const auto& p: model_parameters::specs_of(step_table())) specs.push_back(p);
    return {.name = "step_current_generator",
            .kind = model_kind::input_device,
            .description = "NEST's step_current_generator: a piecewise constant current (each amplitude times the "
                           "connection weight) changing at given times, between start and stop",
            .parameters = specs,
            .output = device_output::current,
            .integration = "none (a device)",
            .nest_model = "step_current_generator",
            .pynn_types = {"StepCurrentSource"},
            .docs_page = "docs/models/step_current_generator.md",
            .make = make_idle,
            .schedule = step_schedule};
}

model_entry ac_generator_model() {
    return {.name = "ac_generator",
            .kind = model_kind::input_device,
            .description = "NEST's ac_generator: a sine current offset + amplitude·sin(2π·frequency·t + phase) "
                           "(times the connection weight) between start and stop",
            .parameters = model_parameters::specs_of(ac_table()),
            .output = device_output::current,
            .integration = "NEST's rotation-matrix recurrence, one turn per step",
            .nest_model = "ac_generator",
            .pynn_types = {"ACSource"},
            .docs_page = "docs/models/ac_generator.md",
            .make = make_idle,
            .schedule = ac_schedule};
}

model_entry noise_generator_model() {
    return {.name = "noise_generator",
            .kind = model_kind::input_device,
            .description = "NEST's noise_generator: to each target its own Gaussian current (times the connection "
                           "weight), redrawn every dt, between start and stop",
            .parameters = model_parameters::specs_of(noise_table()),
            .output = device_output::noise_current,
            .integration = "none (a device): a normal draw per target every dt",
            .nest_model = "noise_generator",
            .pynn_types = {"NoisyCurrentSource"},
            .docs_page = "docs/models/noise_generator.md",
            .make = make_idle,
            .schedule = noise_schedule};
}

} // namespace spikex
