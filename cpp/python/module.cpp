// spikex._core: the Python face of the C++ core (nanobind). The only boundary between the
// Python package and the engine; python/spikex/_core.pyi documents it.
#include <sys/resource.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "spikex/comm/context.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/dryrun/exchange_counts.hpp"
#include "spikex/dryrun/memory_model.hpp"
#include "spikex/engine/engine.hpp"
#include "spikex/engine/heartbeat.hpp"
#include "spikex/gups/gups.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/models/input_device.hpp"
#include "spikex/models/model_library.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/models/ode/lanes.hpp"
#include "spikex/network/connection_rule_registry.hpp"
#include "spikex/network/rule_check.hpp"
#include "spikex/route/router.hpp"
#include "spikex/synapses/synapse_registry.hpp"

namespace nb = nanobind;
using namespace spikex;

namespace {

std::unique_ptr<context> process_context;

context& comm() {
    if (!process_context) {
        process_context = launched_by_mpi() ? make_mpi_context() : make_serial_context();
    }
    return *process_context;
}

template <typename T>
using array1d = nb::ndarray<nb::numpy, T, nb::ndim<1>>;
template <typename T>
using input1d = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename T>
array1d<T> to_numpy(std::vector<T>&& values) {
    auto* owned = new std::vector<T>(std::move(values));
    nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return array1d<T>(owned->data(), {owned->size()}, owner);
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

template <typename T>
std::vector<T> to_vector(const input1d<T>& a) {
    return std::vector<T>(a.data(), a.data() + a.shape(0));
}

template <typename T>
array1d<T> allgather_array(const input1d<T>& values, bool in_run) {
    std::vector<T> local = to_vector(values), all;
    {
        // Without the GIL, so that the watchdog thread (spikex.launch.watchdog) runs while
        // this waits for the other ranks; in_run: a collective between the chunks of a run
        // (RunControl.agree, a streamed chunk's spikes) counts as running, so a rank or host
        // lost there ends the job as a stall instead of hanging it.
        nb::gil_scoped_release release;
        std::optional<heartbeat::running_scope> running;
        if (in_run) running.emplace();
        all = comm().allgather_vector(local);
    }
    return to_numpy(std::move(all));
}

// A grid shape from Python: "auto", "hypercube", "4x2", or a list of ints -> "[4, 2]".
std::string dims_spec(nb::handle value) {
    if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
    std::vector<int> dims;
    for (nb::handle d: value) dims.push_back(nb::cast<int>(d));
    return dims_text(dims);
}

// What the route library makes of (ranks, dims, budget, lanes), for validation before a
// launch: problems come back as text ("" when fine) so the caller can name its own option.
nb::dict route_plan(int ranks, nb::handle dims_value, std::int64_t budget, int lanes) {
    nb::dict out;
    std::string dims = dims_spec(dims_value);
    out["dims_error"] = "";
    out["budget_error"] = "";
    try {
        process_grid grid = make_process_grid(ranks, dims, "dims", std::max<std::int64_t>(budget, 1), lanes);
        out["dims"] = grid.dims();
        out["buckets"] = grid.buckets();
        out["channels"] = grid.channels();
        out["ragged"] = grid.ragged();
        out["max_hops"] = grid.max_hops();
        out["bucket_capacity"] = budget / grid.buckets();
        out["budget_error"] = budget_problem(grid, budget);
    } catch (const user_error& e) {
        std::string text = e.what();
        auto colon = text.find(": ");
        out["dims_error"] = colon == std::string::npos ? text : text.substr(colon + 2);
    }
    return out;
}

// spikex gups on the process context (collective); the result is the same on every rank.
nb::dict gups_run(const nb::dict& d) {
    gups_options o;
    for (auto [key, value]: d) {
        std::string k = nb::cast<std::string>(key);
        if (k == "log2_table")
            o.log2_table = nb::cast<int>(value);
        else if (k == "algorithm")
            o.algorithm = nb::cast<std::string>(value);
        else if (k == "dims")
            o.dims = dims_spec(value);
        else if (k == "budget")
            o.budget = nb::cast<std::int64_t>(value);
        else if (k == "corrupt_updates")
            o.corrupt_updates = nb::cast<std::int64_t>(value);
        else if (k == "verify")
            o.verify = nb::cast<bool>(value);
        else if (k == "poll_every")
            o.poll_every = nb::cast<int>(value);
        else if (k == "huge_pages")
            o.huge_pages = nb::cast<bool>(value);
        else if (k == "message_bytes")
            o.message_bytes = nb::cast<std::size_t>(value);
        else if (k == "lanes")
            o.lanes = nb::cast<int>(value);
        else if (k == "shared_memory")
            o.shared_memory = value.is_none() ? std::nullopt : std::optional<bool>(nb::cast<bool>(value));
        else
            throw user_error(spikex::format("gups option \"{}\" is unknown", k));
    }
    gups_result r = run_gups(comm(), o);
    nb::dict out;
    out["ranks"] = r.ranks;
    out["algorithm"] = r.algorithm;
    out["dims"] = r.dims;
    out["bucket_capacity"] = r.bucket_capacity;
    out["lanes"] = r.lanes;
    out["table_size"] = r.table_size;
    out["updates"] = r.updates;
    out["errors"] = r.errors;
    out["verified"] = r.verified;
    out["passed"] = r.passed;
    out["huge_pages"] = r.huge_pages;
    out["shared_memory"] = r.shared_memory;
    out["oversubscribed"] = r.oversubscribed;
    out["seconds"] = r.seconds;
    out["init_seconds"] = r.init_seconds;
    out["verify_seconds"] = r.verify_seconds;
    out["local_updates"] = r.counts.local_updates;
    out["messages_sent"] = r.counts.messages_sent;
    out["shared_memory_messages"] = r.counts.shared_memory_messages;
    out["bytes_sent"] = r.counts.bytes_sent;
    out["updates_sent"] = r.counts.updates_sent;
    out["forwarded"] = r.counts.forwarded;
    out["send_tests"] = r.counts.send_tests;
    out["send_tests_pending"] = r.counts.send_tests_pending;
    out["rounds"] = r.counts.rounds;
    out["buffered_high_water"] = r.counts.buffered_high_water;
    nb::dict split;
    for (std::size_t p = 0; p < gups_phase_count; ++p) split[gups_phase_names[p]] = r.counts.phase_seconds[p];
    out["phase_seconds"] = split;
    out["cpu_seconds"] = r.cpu_seconds;
    out["voluntary_switches"] = r.voluntary_switches;
    out["involuntary_switches"] = r.involuntary_switches;
    return out;
}

// [exchange] values from Python: bool, int, float, str, or a grid shape given as a list.
// The registry checks names and values (make_exchange, count_exchange).
option_values parse_exchange_options(const nb::dict& d) {
    option_values o;
    for (auto [key, value]: d) {
        std::string k = nb::cast<std::string>(key);
        if (nb::isinstance<nb::bool_>(value))
            o[k] = nb::cast<bool>(value);
        else if (nb::isinstance<nb::int_>(value))
            o[k] = nb::cast<std::int64_t>(value);
        else if (nb::isinstance<nb::float_>(value))
            o[k] = nb::cast<double>(value);
        else if (nb::isinstance<nb::str>(value))
            o[k] = nb::cast<std::string>(value);
        else
            o[k] = dims_spec(value);
    }
    return o;
}

// The registry as Python sees it (spikex.methods builds the method list, the
// [exchange] configuration keys, the CLI help and docs/user/config.md from it).
nb::object option_to_python(const option_value& v) {
    return std::visit([](const auto& x) -> nb::object { return nb::cast(x); }, v);
}

nb::dict option_to_dict(const option_spec& spec) {
    static const char* kinds[] = {"bool", "int", "float", "choice", "grid"};
    nb::dict d;
    d["name"] = spec.name;
    d["kind"] = kinds[static_cast<int>(spec.kind)];
    d["default"] = option_to_python(spec.default_value);
    d["doc"] = spec.doc;
    d["minimum"] = spec.minimum ? nb::cast(*spec.minimum) : nb::none();
    d["maximum"] = spec.maximum ? nb::cast(*spec.maximum) : nb::none();
    d["exclusive_minimum"] = spec.exclusive_minimum;
    nb::list choices;
    for (const auto& c: spec.choices) choices.append(option_to_python(c));
    d["choices"] = choices;
    d["variant"] = spec.variant;
    return d;
}

nb::list registry_to_python() {
    nb::list out;
    for (const auto& entry: exchange_registry()) {
        nb::dict m;
        m["name"] = entry.name;
        m["description"] = entry.description;
        const auto& c = entry.capabilities;
        nb::dict caps;
        caps["broadcast"] = c.broadcast;
        caps["target_addressed"] = c.target_addressed;
        caps["point_to_point"] = c.point_to_point;
        caps["presynaptic_targets"] = c.presynaptic_targets;
        caps["rma_windows"] = c.rma_windows;
        caps["persistent_requests"] = c.persistent_requests;
        caps["process_grid"] = c.process_grid;
        caps["subintervals"] = entry.has_option("subintervals");
        caps["phases"] = entry.has_option("phases");
        m["capabilities"] = caps;
        nb::list options;
        for (const auto& spec: entry.options) options.append(option_to_dict(spec));
        m["options"] = options;
        nb::list variants;
        for (const auto& variant: entry.variants) {
            nb::dict values;
            for (const auto& [name, value]: variant.values) values[name.c_str()] = option_to_python(value);
            variants.append(values);
        }
        m["variants"] = variants;
        m["cost_formula"] = entry.cost_formula;
        m["docs_page"] = entry.docs_page;
        nb::list problems;
        for (const auto& p: entry_problems(entry)) problems.append(p);
        m["problems"] = problems;
        out.append(m);
    }
    return out;
}

// The engine plus the network description it is built from (until build()).
// A distribution given from Python as {"distribution": name, parameter: value, ...}.
random_distribution distribution_from_python(const nb::dict& d, const std::string& key) {
    if (!d.contains("distribution")) {
        throw user_error(spikex::format("{}: a distribution needs its name under \"distribution\"", key));
    }
    random_distribution out;
    out.kind = parse_distribution_kind(nb::cast<std::string>(d["distribution"]), key);
    for (auto [name_handle, value]: d) {
        const auto name = nb::cast<std::string>(name_handle);
        if (name == "distribution") continue;
        const double x = nb::cast<double>(value);
        if (name == "value")
            out.value = x;
        else if (name == "mean")
            out.mean = x;
        else if (name == "std")
            out.std = x;
        else if (name == "low")
            out.low = x;
        else if (name == "high")
            out.high = x;
        else if (name == "beta")
            out.beta = x;
        else {
            throw user_error(spikex::format("{}: distribution parameter \"{}\" is unknown: allowed are value, mean, "
                                            "std, low, high, beta",
                                            key, name));
        }
    }
    check_distribution(out, key);
    return out;
}

// A number, a distribution (dict) or one value per cell (1-d float array of `cells`).
parameter_value parameter_from_python(nb::handle value, const std::string& key, std::size_t cells) {
    if (nb::isinstance<nb::dict>(value)) return {distribution_from_python(nb::borrow<nb::dict>(value), key), {}};
    if (nb::isinstance<nb::float_>(value) || nb::isinstance<nb::int_>(value)) {
        return parameter_value::constant(nb::cast<double>(value));
    }
    auto array = nb::cast<input1d<double>>(value);
    if (array.shape(0) != cells) {
        throw user_error(spikex::format("{}: an array of {} values for {} cells: give one value per cell", key,
                                        array.shape(0), cells));
    }
    return {random_distribution::constant(0.0), to_vector(array)};
}

// What connect may join: targets must be neurons (devices take no input); a dc_generator
// needs targets that take a current; a receptor port must be one the target model has
// (models with ports take spikes only through one of them, NEST's receptor_type >= 1).
void check_connection_kinds(const network_spec& spec, const std::string& where, const population_spec& source,
                            const population_spec& target, std::uint32_t receptor) {
    const model_entry& to = find_model(target.model);
    if (to.kind != model_kind::neuron) {
        throw user_error(spikex::format("{}: target population of model \"{}\" takes no input (only neuron models do)",
                                        where, target.model));
    }
    const model_entry& from = find_model(source.model);
    const device_output output = from.output;
    if ((output == device_output::current || output == device_output::noise_current) && !to.accepts_current) {
        throw user_error(spikex::format("{}: \"{}\" cannot drive \"{}\" (the model has no input current)", where,
                                        source.model, target.model));
    }
    const bool spikes = output == device_output::none || output == device_output::spike_train;
    if (!to.receptor_ports) {
        if (receptor != 0) {
            throw user_error(spikex::format("{}: receptor = {}: model \"{}\" has no receptor ports (only 0, the "
                                            "default, where the weight's sign chooses the input)",
                                            where, receptor, target.model));
        }
    } else if (spikes) {
        const std::uint32_t ports = to.receptor_ports(target);
        if (receptor < 1 || receptor > ports) {
            throw user_error(spikex::format("{}: receptor = {}: model \"{}\" takes spikes through its receptor ports "
                                            "1 .. {} (one per value of its port lists): give receptor = 1 .. {}",
                                            where, receptor, target.model, ports, ports));
        }
    } else if (receptor != 0) {
        throw user_error(spikex::format("{}: receptor = {}: a current input (\"{}\") takes no receptor port", where,
                                        receptor, source.model));
    }
    (void)spec;
}

nb::dict range_to_python(const value_range& r) {
    nb::dict d;
    d["low"] = r.low;
    d["high"] = r.high;
    d["low_open"] = r.low_open;
    d["high_open"] = r.high_open;
    d["choices"] = r.choices;
    d["finite_only"] = r.finite_only;
    d["integer"] = r.integer;
    return d;
}

nb::dict spec_to_python(const parameter_spec& p) {
    nb::dict d;
    d["name"] = p.name;
    d["unit"] = p.unit;
    d["default"] = p.default_value;
    d["default_rule"] = p.default_rule;
    d["range"] = range_to_python(p.range);
    d["allowed"] = p.range.text(p.unit);
    d["meaning"] = p.meaning;
    d["shape"] = p.shape == parameter_shape::per_cell ? "per_cell" : "per_cell_list";
    return d;
}

nb::list models_to_python() {
    nb::list out;
    for (const auto& entry: model_registry()) {
        nb::dict d;
        d["name"] = entry.name;
        d["kind"] = entry.kind == model_kind::neuron         ? "neuron"
                    : entry.kind == model_kind::spike_source ? "spike_source"
                                                             : "input_device";
        d["output"] = entry.output == device_output::none          ? "none"
                      : entry.output == device_output::spike_train ? "spike_train"
                      : entry.output == device_output::current     ? "current"
                                                                   : "noise_current";
        d["description"] = entry.description;
        d["parameters"] = entry.parameter_names();
        nb::list specs;
        for (const auto& p: entry.parameters) specs.append(spec_to_python(p));
        d["parameter_specs"] = specs;
        d["state_variables"] = entry.state_names();
        nb::list state;
        for (const auto& v: entry.state) {
            nb::dict s;
            s["name"] = v.name;
            s["unit"] = v.unit;
            s["meaning"] = v.meaning;
            s["settable"] = v.settable;
            s["per_port"] = v.per_port;
            state.append(s);
        }
        d["state_specs"] = state;
        d["accepts_current"] = entry.accepts_current;
        d["has_receptor_ports"] = bool(entry.receptor_ports);
        d["receptor_port_names"] = entry.receptor_port_names;
        d["checkpoint_state"] = entry.checkpoint_state;
        d["receptors"] = entry.receptors;
        d["integration"] = entry.integration;
        d["nest_model"] = entry.nest_model;
        d["pynn_types"] = entry.pynn_types;
        d["docs_page"] = entry.docs_page;
        out.append(d);
    }
    return out;
}

nb::list connection_rules_to_python() {
    nb::list out;
    for (const auto& entry: connection_rule_registry()) {
        nb::dict d;
        d["name"] = entry.name;
        d["description"] = entry.description;
        nb::list specs;
        for (const auto& p: entry.parameters) specs.append(spec_to_python(p));
        d["parameter_specs"] = specs;
        d["takes_indegree_spread"] = entry.takes_indegree_spread;
        d["takes_weight_spread"] = entry.takes_weight_spread;
        d["self_connection_flags"] = entry.self_connection_flags;
        d["allow_autapses"] = entry.allow_autapses;
        d["allow_multapses"] = entry.allow_multapses;
        d["origin"] = entry.origin;
        out.append(d);
    }
    return out;
}

nb::list synapses_to_python() {
    nb::list out;
    for (const auto& entry: synapse_registry()) {
        nb::dict d;
        d["name"] = entry.name;
        d["description"] = entry.description;
        d["defaults"] = entry.defaults;
        nb::list specs;
        for (const auto& p: entry.parameters) specs.append(spec_to_python(p));
        d["parameter_specs"] = specs;
        d["plastic"] = bool(entry.make_rule);
        d["docs_page"] = entry.docs_page;
        out.append(d);
    }
    return out;
}

class py_engine {
public:
    py_engine(double dt_ms, std::uint32_t seed, const std::string& method, const std::string& distribution,
              const nb::dict& exchange) {
        if (!(dt_ms > 0)) throw user_error(spikex::format("dt_ms = {:.6f}: must be > 0", dt_ms));
        network_spec spec;
        spec.dt_ms = dt_ms;
        spec.seed = seed;
        engine_options options;
        options.method = method;
        options.distribution = distribution;
        options.exchange = parse_exchange_options(exchange);
        engine_ = std::make_unique<engine>(comm(), std::move(spec), std::move(options));
    }

    std::uint32_t add_population(const std::string& model, std::uint32_t n, const nb::dict& params) {
        require_unbuilt("create");
        auto& spec = engine_->spec();
        const model_entry& entry = find_model(model);
        population_spec pop{model, spec.cells(), n, {}, {}};
        for (auto [name_handle, value]: params) {
            const auto name = nb::cast<std::string>(name_handle);
            const parameter_spec* spec_of_name = entry.parameter(name);
            if (!spec_of_name || spec_of_name->shape != parameter_shape::per_cell) {
                std::string allowed;
                for (const auto& p: entry.parameters)
                    if (p.shape == parameter_shape::per_cell) allowed += (allowed.empty() ? "" : ", ") + p.name;
                throw user_error(spikex::format("create(\"{}\"): parameter \"{}\" is unknown: allowed are {}", model,
                                                name, allowed.empty() ? "none" : allowed));
            }
            pop.params[name] = parameter_from_python(value, spikex::format("create(\"{}\") {}", model, name), n);
        }
        if (n == 0) throw user_error("create: a population needs at least one cell");
        if (static_cast<std::uint64_t>(pop.first) + n > 0xfffffffeull) throw user_error("create: too many cells");
        spec.populations.push_back(pop);
        return pop.first;
    }

    // options: indegree, indegree_spread, outdegree, total_number, probability,
    // allow_autapses, allow_multapses, weight (number or distribution), weight_spread,
    // delay_ms (number or distribution), synapse, synapse_params.
    void connect_rule(const std::string& rule, std::uint32_t source_first, std::uint32_t source_n,
                      std::uint32_t target_first, std::uint32_t target_n, const nb::dict& options) {
        require_unbuilt("connect");
        const connection_rule_entry& entry = find_connection_rule(rule);
        connection_set set;
        const auto& spec = engine_->spec();
        std::uint64_t cells = spec.cells();
        if (std::uint64_t(source_first) + source_n > cells || std::uint64_t(target_first) + target_n > cells ||
            source_n == 0 || target_n == 0) {
            throw user_error(spikex::format("connect: source or target range outside the network's {} cells", cells));
        }
        auto& r = set.rule;
        r.kind = entry.kind;
        r.source_first = source_first;
        r.source_size = source_n;
        r.target_first = target_first;
        r.target_size = target_n;
        r.allow_autapses = entry.allow_autapses;
        r.allow_multapses = entry.allow_multapses;
        std::string synapse = "static";
        std::map<std::string, double> synapse_params;
        const std::string where = spikex::format("connect(rule=\"{}\")", rule);
        for (auto [name_handle, value]: options) {
            const auto name = nb::cast<std::string>(name_handle);
            if (name == "indegree")
                r.indegree = nb::cast<std::uint32_t>(value);
            else if (name == "indegree_spread")
                r.indegree_spread = nb::cast<std::uint32_t>(value);
            else if (name == "outdegree")
                r.outdegree = nb::cast<std::uint32_t>(value);
            else if (name == "total_number")
                r.total_number = nb::cast<std::uint64_t>(value);
            else if (name == "probability")
                r.probability = nb::cast<double>(value);
            else if (name == "allow_autapses")
                r.allow_autapses = nb::cast<bool>(value);
            else if (name == "allow_multapses")
                r.allow_multapses = nb::cast<bool>(value);
            else if (name == "weight")
                r.weight = parameter_from_python(value, where + " weight", 1).distribution;
            else if (name == "weight_spread")
                r.weight_spread = nb::cast<double>(value);
            else if (name == "delay_ms")
                r.delay_ms = parameter_from_python(value, where + " delay_ms", 1).distribution;
            else if (name == "synapse")
                synapse = nb::cast<std::string>(value);
            else if (name == "synapse_params")
                synapse_params = nb::cast<std::map<std::string, double>>(value);
            else if (name == "receptor")
                set.receptor = nb::cast<std::uint16_t>(value);
            else
                throw user_error(spikex::format("{}: option \"{}\" is unknown", where, name));
        }
        // A number must be >= dt; a distribution's draws are rounded to the nearest step, so
        // its values must round to at least one: >= dt/2 (NEST's microcircuit example
        // redraws below dt/2 and relies on that rounding).
        const double lowest_allowed = r.delay_ms.is_constant() ? spec.dt_ms : 0.5 * spec.dt_ms;
        if (lowest_value(r.delay_ms) < lowest_allowed * (1 - 1e-9)) {
            throw user_error(spikex::format(
                "{} delay_ms = {}: its smallest possible value is {} ms: must be >= {} ms ({}; e.g. normal_clipped "
                "with low >= that)",
                where, distribution_name(r.delay_ms.kind), lowest_value(r.delay_ms), lowest_allowed,
                r.delay_ms.is_constant() ? "dt" : "dt/2, which rounds to one step"));
        }
        check_rule_kinds(where, r, set.receptor);
        check_rule(r, spec.dt_ms, where); // impossible counts, probabilities, delays
        set.synapse = synapse_index(synapse, synapse_params, lowest_value(r.weight) - r.weight_spread / 2,
                                    highest_value(r.weight) + r.weight_spread / 2);
        engine_->spec().connection_sets.push_back(std::move(set));
    }

    void connect_arrays(const input1d<std::int64_t>& sources, const input1d<std::int64_t>& targets,
                        const input1d<double>& weights, const input1d<double>& delays, const std::string& synapse,
                        const std::map<std::string, double>& synapse_params, bool local, std::uint16_t receptor) {
        require_unbuilt("connect");
        std::size_t n = sources.shape(0);
        if (targets.shape(0) != n || weights.shape(0) != n || delays.shape(0) != n) {
            throw user_error("connect: sources, targets, weights and delays must have the same length");
        }
        connection_set set;
        set.is_rule = false;
        set.receptor = receptor;
        double lowest = INFINITY, highest = -INFINITY;
        for (std::size_t k = 0; k < n; ++k) {
            lowest = std::min(lowest, weights.data()[k]);
            highest = std::max(highest, weights.data()[k]);
        }
        if (n == 0) lowest = highest = NAN; // nothing to check
        set.synapse = synapse_index(synapse, synapse_params, lowest, highest);
        auto& a = set.arrays;
        std::int64_t cells = engine_->spec().cells();
        for (std::size_t k = 0; k < n; ++k) {
            if (sources.data()[k] < 0 || sources.data()[k] >= cells || targets.data()[k] < 0 ||
                targets.data()[k] >= cells) {
                throw user_error(spikex::format("connect: gid out of range [0, {}) at index {}", cells, k));
            }
        }
        const auto& spec = engine_->spec();
        // Each pair of populations met is checked once (looked up only where one changes).
        const population_spec *from = nullptr, *to = nullptr;
        for (std::size_t k = 0; k < n; ++k) {
            const auto s = static_cast<gid_type>(sources.data()[k]), t = static_cast<gid_type>(targets.data()[k]);
            if (from && to && from->contains(s) && to->contains(t)) continue;
            const population_spec* now_from = &spec.population_of(s);
            const population_spec* now_to = &spec.population_of(t);
            if (now_from != from || now_to != to) {
                check_connection_kinds(spec, "connect", *now_from, *now_to, receptor);
                a.target_populations.push_back(now_to->first);
            }
            from = now_from, to = now_to;
        }
        std::sort(a.target_populations.begin(), a.target_populations.end());
        a.target_populations.erase(std::unique(a.target_populations.begin(), a.target_populations.end()),
                                   a.target_populations.end());
        a.local = local;
        a.source.assign(sources.data(), sources.data() + n);
        a.target.assign(targets.data(), targets.data() + n);
        // One weight or delay when all are equal (bit for bit: the same value built).
        const double* w = weights.data();
        const bool one_weight = std::all_of(w, w + n, [&](double x) { return same_bits(x, w[0]); });
        a.weight.assign(w, w + (one_weight ? std::min<std::size_t>(n, 1) : n));
        const double* d = delays.data();
        std::size_t first_other = 1;
        const std::uint32_t d0 = n ? connection_delay_steps(d[0], spec.dt_ms) : 0;
        while (first_other < n && connection_delay_steps(d[first_other], spec.dt_ms) == d0) ++first_other;
        a.delay.assign(std::min<std::size_t>(n, 1), d0);
        if (first_other < n) {
            a.delay.resize(n, d0);
            for (std::size_t k = first_other; k < n; ++k) a.delay[k] = connection_delay_steps(d[k], spec.dt_ms);
        }
        engine_->spec().connection_sets.push_back(std::move(set));
    }

    void set_threads(unsigned threads) {
        require_unbuilt("threads");
        if (threads < 1 || threads > 1024) {
            throw user_error(spikex::format("threads = {}: must be between 1 and 1024", threads));
        }
        engine_->options().threads = threads;
    }

    void set_connection_options(bool sort_by_source, bool keep_sources) {
        require_unbuilt("connection options");
        engine_->options().sort_by_source = sort_by_source;
        engine_->options().keep_sources = keep_sources;
    }

    void record(std::uint32_t first, std::uint32_t n) {
        require_unbuilt("record_spikes");
        engine_->spec().recorded.emplace_back(first, n);
    }

    // A list parameter (parameter_shape::per_cell_list) of the population starting at
    // `first`: cell i's list is values[offsets[i] .. offsets[i + 1]).
    void set_list_parameter(std::uint32_t first, const std::string& name, const input1d<double>& values,
                            const input1d<std::uint64_t>& offsets) {
        require_unbuilt(name.c_str());
        auto& spec = engine_->spec();
        for (auto& pop: spec.populations) {
            if (pop.first != first) continue;
            const parameter_spec* p = find_model(pop.model).parameter(name);
            if (!p || p->shape != parameter_shape::per_cell_list || offsets.shape(0) != pop.size + 1 ||
                offsets.data()[pop.size] != values.shape(0)) {
                throw internal_error("set_list_parameter: not a list parameter of the model, or bad offsets");
            }
            pop.lists[name] = {to_vector(values), to_vector(offsets)};
            return;
        }
        throw internal_error("set_list_parameter: no population starts at this gid");
    }

    // A change of cells [first, first + count) of one population (engine::change_values),
    // before or between runs: values per cell, from the engine's current step on.
    void change_values(std::uint32_t first, std::uint32_t count, const std::string& name, const input1d<double>& values,
                       std::int64_t from_step) {
        engine_->change_values(first, count, name, to_vector(values), from_step < 0 ? engine_->step() : from_step);
    }
    void change_lists(std::uint32_t first, std::uint32_t count, const std::vector<std::string>& names,
                      const std::vector<std::vector<double>>& values,
                      const std::vector<std::vector<std::uint64_t>>& offsets, std::int64_t from_step) {
        engine_->change_lists(first, count, names, values, offsets, from_step < 0 ? engine_->step() : from_step);
    }

    // One recording of `variable` of the cells in the (first, count) runs, every
    // interval_steps steps from start_step; returns its index.
    std::size_t record_state(const std::string& variable,
                             const std::vector<std::pair<std::uint32_t, std::uint32_t>>& runs,
                             std::uint32_t interval_steps, std::int64_t start_step) {
        require_unbuilt("record_state");
        auto& spec = engine_->spec();
        for (auto [first, count]: runs) {
            for (gid_type g = first; g < first + count;) {
                const auto& pop = spec.population_of(g);
                const auto& model = find_model(pop.model);
                const auto vars = model.state_names(pop);
                if (!model.state_of(variable, pop)) {
                    std::string allowed;
                    for (const auto& v: vars) allowed += (allowed.empty() ? "" : ", ") + v;
                    throw user_error(spikex::format("record_state: variable \"{}\" of model \"{}\": allowed are {}",
                                                    variable, pop.model, allowed.empty() ? "none" : allowed));
                }
                g = pop.first + pop.size;
            }
        }
        if (interval_steps < 1) throw user_error("record_state: interval must be at least one step");
        state_recording rec{variable, {}, interval_steps, start_step};
        for (auto [first, count]: runs) rec.cells.emplace_back(first, count);
        spec.state_recordings.push_back(std::move(rec));
        return spec.state_recordings.size() - 1;
    }

    void set_record_from(std::int64_t step) { engine_->spec().record_from_step = step; }

    engine& get() { return *engine_; }

private:
    // Sources and targets of a rule: every population they overlap must fit.
    void check_rule_kinds(const std::string& where, const connection_rule& r, std::uint32_t receptor) const {
        const auto& spec = engine_->spec();
        for (const auto& from: spec.populations) {
            if (from.first >= r.source_first + r.source_size || r.source_first >= from.first + from.size) continue;
            for (const auto& to: spec.populations) {
                if (to.first >= r.target_first + r.target_size || r.target_first >= to.first + to.size) continue;
                check_connection_kinds(spec, where, from, to, receptor);
            }
        }
    }

    // The index of a synapse type with these parameters in the network's list, adding it
    // when new. The weights must lie in the range the type allows (stdp_synapse: between 0
    // and Wmax); NaN bounds: no weights to check.
    std::uint16_t synapse_index(const std::string& name, const std::map<std::string, double>& params,
                                double lowest_weight, double highest_weight) {
        synapse_spec wanted{name, params};
        const synapse_entry& entry = find_synapse(name);
        entry.check(params);
        const auto [low, high] = entry.weight_range(params);
        if (lowest_weight < low || highest_weight > high) {
            throw user_error(
                spikex::format("connect: synapse \"{}\" needs weights in [{}, {}], got weights in [{}, {}]", name,
                               model_parameters::number(low), model_parameters::number(high),
                               model_parameters::number(lowest_weight), model_parameters::number(highest_weight)));
        }
        auto& list = engine_->spec().synapses;
        for (std::size_t k = 0; k < list.size(); ++k) {
            if (list[k].name == wanted.name && list[k].params == wanted.params) return static_cast<std::uint16_t>(k);
        }
        if (list.size() >= 0xffff) throw user_error("connect: too many distinct synapse parameter sets");
        list.push_back(std::move(wanted));
        return static_cast<std::uint16_t>(list.size() - 1);
    }

public:
    std::tuple<array1d<std::int64_t>, array1d<std::int64_t>> local_spikes() const {
        return spike_arrays(engine_->recorded_spikes());
    }
    std::tuple<array1d<std::int64_t>, array1d<std::int64_t>> take_local_spikes() {
        return spike_arrays(engine_->take_recorded_spikes());
    }
    // Checkpoint columns (engine_state.hpp) as numpy arrays: int64 or float64 by name.
    nb::dict export_state() const {
        auto state = engine_->export_state();
        nb::dict d;
        for (auto& [name, values]: state.ints) d[nb::str(name.c_str())] = to_numpy(std::move(values));
        for (auto& [name, values]: state.reals) d[nb::str(name.c_str())] = to_numpy(std::move(values));
        return d;
    }
    void import_state(const nb::dict& columns) { engine_->import_state(state_of(columns)); }
    // The same in pieces (engine.hpp): the arrays are read in place, not copied.
    void import_begin(std::int64_t step) { engine_->import_begin(step); }
    void import_cells(const std::string& model, const input1d<std::int64_t>& gids, const input1d<double>& values) {
        engine_->import_cells(model, view(gids), view(values));
    }
    void import_weights(const input1d<std::int64_t>& targets, const input1d<std::int64_t>& counts,
                        const input1d<std::int64_t>& digests, const input1d<double>& values,
                        const input1d<std::int64_t>& sites) {
        engine_->import_weights(view(targets), view(counts), view(digests), view(values), view(sites));
    }
    void import_finish(const nb::dict& columns, const std::string& error) {
        engine_->import_finish(state_of(columns), error);
    }
    template <class T>
    static std::span<const T> view(const input1d<T>& a) {
        return {a.data(), a.shape(0)};
    }
    static engine_state state_of(const nb::dict& columns) {
        engine_state state;
        for (auto [key, value]: columns) {
            const auto name = nb::cast<std::string>(key);
            if (nb::isinstance<input1d<std::int64_t>>(value)) {
                state.ints[name] = to_vector(nb::cast<input1d<std::int64_t>>(value));
            } else if (nb::isinstance<input1d<double>>(value)) {
                state.reals[name] = to_vector(nb::cast<input1d<double>>(value));
            } else {
                throw user_error("import_state: column " + name + " is neither int64 nor float64 (1-d, contiguous)");
            }
        }
        return state;
    }
    array1d<std::uint8_t> owns(const input1d<std::int64_t>& gids) const {
        std::vector<std::uint8_t> out(gids.shape(0));
        const auto cells = engine_->cells_total();
        for (std::size_t i = 0; i < out.size(); ++i) {
            const auto g = gids.data()[i];
            out[i] = g >= 0 && g < cells && engine_->owns(static_cast<gid_type>(g));
        }
        return to_numpy(std::move(out));
    }

    static std::tuple<array1d<std::int64_t>, array1d<std::int64_t>> spike_arrays(const std::vector<spike>& spikes) {
        std::vector<std::int64_t> steps(spikes.size()), gids(spikes.size());
        for (std::size_t i = 0; i < spikes.size(); ++i) {
            steps[i] = spikes[i].step;
            gids[i] = spikes[i].gid;
        }
        return {to_numpy(std::move(steps)), to_numpy(std::move(gids))};
    }

    nb::dict connections() const {
        auto c = engine_->connections();
        nb::dict d;
        d["source"] = to_numpy(std::move(c.source));
        d["target"] = to_numpy(std::move(c.target));
        d["weight"] = to_numpy(std::move(c.weight));
        d["delay_ms"] = to_numpy(std::move(c.delay_ms));
        d["synapse"] = to_numpy(std::move(c.synapse));
        d["receptor"] = to_numpy(std::move(c.receptor));
        return d;
    }

    // The network's synapse types in index order (connections()["synapse"]): name, params.
    nb::list synapse_types() const {
        nb::list out;
        for (const auto& s: engine_->spec().synapses) {
            nb::dict d;
            d["name"] = s.name;
            d["params"] = s.params;
            out.append(d);
        }
        return out;
    }

private:
    void require_unbuilt(const char* what) const {
        if (engine_->built())
            throw user_error(spikex::format("{}: the network is already built (simulate was called)", what));
    }
    std::unique_ptr<engine> engine_;
};

// A dry run (issue 8): the engine's network partitioned for a virtual rank count, and
// what each exchange method would do there (cpp/spikex/dryrun/).
class py_partition {
public:
    py_partition(py_engine& e, int ranks, std::vector<int> sampled):
        spec_(e.get().spec()),
        options_(e.get().options()),
        part_(spec_, parse_distribution_scheme(options_.distribution), ranks, std::move(sampled),
              options_.sort_by_source) {}

    nb::dict count(const std::string& method, const nb::dict& exchange, const input1d<std::int64_t>& gids,
                   const input1d<std::int64_t>& steps, const input1d<std::int64_t>& stops) const {
        option_values o = options_.exchange;
        for (auto& [key, value]: parse_exchange_options(exchange)) o[key] = value;
        std::vector<gid_type> g(gids.data(), gids.data() + gids.shape(0));
        std::vector<step_type> s(steps.data(), steps.data() + steps.shape(0));
        exchange_counts c = count_exchange(part_, method, o, spec_.seed, g, s, to_vector(stops));
        nb::dict out;
        out["method"] = c.method;
        std::vector<std::int64_t> row_step, row_due;
        for (const auto& r: c.rows) {
            row_step.push_back(r.step);
            row_due.push_back(r.due);
        }
        out["row_step"] = to_numpy(std::move(row_step));
        out["row_due"] = to_numpy(std::move(row_due));
        out["row_max"] = arrays(std::move(c.row_max));
        out["row_sum"] = arrays(std::move(c.row_sum));
        out["per_cell"] = arrays(std::move(c.per_cell));
        out["memory"] = arrays(memory_model(part_, c, o));
        out["properties"] = c.properties;
        out["per_rank"] = arrays(std::move(c.per_rank));
        return out;
    }

    // NEST Figure 1 measured on the real connectivity: over (cell of a sampled rank, rank)
    // pairs, how many have exactly one target and how many more than one; and the pairs.
    std::tuple<std::uint64_t, std::uint64_t, std::uint64_t> target_pairs() const {
        std::uint64_t one = 0, more = 0, cells = 0;
        for (int r: part_.sampled()) {
            for (gid_type g: part_.cells().gids_of(r)) {
                ++cells;
                for (auto c: part_.target_connections(g)) (c == 1 ? one : more) += 1;
            }
        }
        return {one, more, cells * static_cast<std::uint64_t>(part_.ranks())};
    }

    std::vector<int> sampled() const { return part_.sampled(); }
    std::int64_t steps_per_interval() const { return part_.min_delay(); }
    std::uint64_t connections() const { return part_.connections_drawn(); }

private:
    static nb::dict arrays(std::map<std::string, std::vector<double>>&& values) {
        nb::dict d;
        for (auto& [name, column]: values) d[name.c_str()] = to_numpy(std::move(column));
        return d;
    }

    network_spec spec_;
    engine_options options_;
    virtual_partition part_;
};

} // namespace

NB_MODULE(_core, m) {
    m.doc() = "spikex C++ core";
    nb::exception<user_error>(m, "UserError", PyExc_ValueError);
    nb::exception<simulation_error>(m, "SimulationError", PyExc_RuntimeError);

    m.def("comm_init", [] { comm(); });
    m.def("comm_backend", [] { return comm().backend(); });
    m.def("comm_rank", [] { return comm().rank(); });
    m.def("comm_size", [] { return comm().size(); });
    m.def("comm_thread_level", [] { return thread_level_name(comm().threads_provided()); });
    m.def("comm_barrier", [] { comm().barrier(); });
    m.def("comm_abort", [](int code) {
        if (process_context) process_context->abort(code);
        std::_Exit(code);
    });
    m.def("comm_finalize", [] { finalize_mpi_if_initialized(); });
    m.def("heartbeat", [] {
        return std::make_pair(heartbeat::exchanges.load(std::memory_order_relaxed),
                              heartbeat::running.load(std::memory_order_relaxed) > 0);
    });
    m.def("spikes_emitted", [] { return heartbeat::spikes.load(std::memory_order_relaxed); });
    // Collective, for progress reports between chunks of a run: counts as running (a rank
    // lost here is a stall too) and leaves the GIL to the watchdog thread.
    m.def(
        "spikes_emitted_total",
        [] {
            const heartbeat::running_scope running;
            return comm().allreduce_sum(heartbeat::spikes.load(std::memory_order_relaxed));
        },
        nb::call_guard<nb::gil_scoped_release>());
    m.def("allgather_int64", &allgather_array<std::int64_t>, nb::arg("values"), nb::arg("in_run") = false);
    m.def("allgather_float64", &allgather_array<double>, nb::arg("values"), nb::arg("in_run") = false);
    m.def("peak_rss_mb", [] {
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        return usage.ru_maxrss / 1024.0; // ru_maxrss is in KiB on Linux
    });
    m.def("exchange_registry", &registry_to_python);
    m.def("common_exchange_options", [] {
        nb::list out;
        for (const auto& spec: common_exchange_options()) out.append(option_to_dict(spec));
        return out;
    });
    m.def("counter_names", [] {
        // instrument/counter_names.hpp: the names exchanges and the dry run report.
        nb::dict out;
        auto list = [](const auto& names) {
            nb::list l;
            for (const char* n: names) l.append(n);
            return l;
        };
        out["counters"] = list(counter::all_counters);
        out["properties"] = list(counter::all_properties);
        out["dry_run"] = list(counter::all_dry_run);
        out["route_dim_prefix"] = counter::route_dim_prefix;
        return out;
    });
    // The delays a network simulates (whole steps, network/delay_steps.cpp), for reporting.
    m.def(
        "simulated_delays_ms",
        [](const input1d<double>& delays_ms, double dt_ms) {
            std::vector<double> out = to_vector(delays_ms);
            for (double& d: out) d = static_cast<double>(delay_steps(d, dt_ms)) * dt_ms;
            return to_numpy(std::move(out));
        },
        nb::arg("delays_ms"), nb::arg("dt_ms"));
    m.def("model_parameter_names", &spikex::model_parameter_names, nb::arg("model"));
    m.def("model_registry", &models_to_python);
    m.def("load_model_library", &spikex::load_model_library, nb::arg("path"));
    m.def("model_library_abi", &spikex::model_library_abi);
    // Which clone the conductance-based models' lanes kernels run (ode/lanes.hpp).
    m.def("vector_isa", [] { return spikex::ode::wide_vectors() ? "avx512" : "baseline"; });
    m.def("connection_rule_registry", &connection_rules_to_python);
    m.def("synapse_registry", &synapses_to_python);
    m.def("local_gids", [](const std::string& scheme, std::uint32_t cells, std::uint32_t seed) {
        distribution d(parse_distribution_scheme(scheme), cells, comm().size(), seed);
        auto gids = d.gids_of(comm().rank());
        return to_numpy(std::vector<std::int64_t>(gids.begin(), gids.end()));
    });
    m.def("route_plan", &route_plan, nb::arg("ranks"), nb::arg("dims"), nb::arg("budget"), nb::arg("lanes") = 1);
    m.def("gups_run", &gups_run, nb::arg("options"));

    nb::class_<py_engine>(m, "Engine")
        .def(nb::init<double, std::uint32_t, const std::string&, const std::string&, const nb::dict&>(),
             nb::arg("dt_ms"), nb::arg("seed"), nb::arg("method"), nb::arg("distribution"), nb::arg("exchange_options"))
        .def("add_population", &py_engine::add_population)
        .def("connect_rule", &py_engine::connect_rule)
        .def("connect_arrays", &py_engine::connect_arrays)
        .def("record", &py_engine::record)
        .def("set_list_parameter", &py_engine::set_list_parameter)
        .def("change_values", &py_engine::change_values)
        .def("read_state",
             [](py_engine& e, const std::string& variable, const std::vector<std::uint32_t>& gids) {
                 return e.get().read_state(variable, std::vector<gid_type>(gids.begin(), gids.end()));
             })
        .def("change_lists", &py_engine::change_lists)
        .def("record_state", &py_engine::record_state)
        .def("set_record_from", &py_engine::set_record_from)
        .def("state",
             [](py_engine& e, std::size_t k) {
                 const auto& s = e.get().recorded_state(k);
                 std::vector<std::int64_t> gids(s.gids.begin(), s.gids.end());
                 std::vector<std::int64_t> steps(s.steps.begin(), s.steps.end());
                 std::vector<double> values(s.values);
                 return std::make_tuple(to_numpy(std::move(gids)), to_numpy(std::move(steps)),
                                        to_numpy(std::move(values)));
             })
        .def("local_synapse_count", [](py_engine& e) { return e.get().local_synapses(); })
        .def("set_threads", &py_engine::set_threads)
        .def("set_connection_options", &py_engine::set_connection_options, nb::arg("sort_by_source"),
             nb::arg("keep_sources"))
        .def("build", [](py_engine& e) { e.get().build(); })
        .def("init", [](py_engine& e) { e.get().init(); })
        // Without the GIL: a watchdog thread (spikex.launch.watchdog) reads the heartbeat.
        .def(
            "run_until", [](py_engine& e, std::int64_t step) { e.get().run_until(step); },
            nb::call_guard<nb::gil_scoped_release>())
        .def_prop_ro("step", [](py_engine& e) { return e.get().step(); })
        .def_prop_ro("steps_per_interval", [](py_engine& e) { return e.get().steps_per_interval(); })
        .def_prop_ro("cells_total", [](py_engine& e) { return e.get().cells_total(); })
        .def_prop_ro("local_cells", [](py_engine& e) { return e.get().local_cells(); })
        .def_prop_ro("threads", [](py_engine& e) { return e.get().options().threads; })
        .def("local_spikes", &py_engine::local_spikes)
        .def("take_local_spikes", &py_engine::take_local_spikes)
        .def("export_state", &py_engine::export_state)
        .def("import_state", &py_engine::import_state)
        .def("import_begin", &py_engine::import_begin, nb::arg("step"))
        .def("import_cells", &py_engine::import_cells, nb::arg("model"), nb::arg("gids"), nb::arg("values"))
        .def("import_weights", &py_engine::import_weights, nb::arg("targets"), nb::arg("counts"), nb::arg("digests"),
             nb::arg("values"), nb::arg("sites"))
        .def("import_finish", &py_engine::import_finish, nb::arg("columns"), nb::arg("error") = "")
        .def("owns", &py_engine::owns)
        .def_prop_ro("max_delay_steps", [](py_engine& e) { return e.get().max_delay_global(); })
        .def("connections", &py_engine::connections)
        .def("synapse_types", &py_engine::synapse_types)
        .def("local_connection_count", [](py_engine& e) { return e.get().local_connections(); })
        .def("counters", [](py_engine& e) { return e.get().counters(); })
        .def("properties", [](py_engine& e) { return e.get().properties(); })
        .def("timers", [](py_engine& e) { return e.get().timers(); })
        .def("memory_bytes", [](py_engine& e) { return e.get().memory_bytes(); })
        .def("record_timeline", [](py_engine& e, bool on) { e.get().timeline().enable(on); })
        .def("timeline",
             [](py_engine& e) {
                 nb::dict d;
                 for (auto& [name, column]: e.get().timeline().integer_columns())
                     d[name.c_str()] = to_numpy(std::move(column));
                 for (auto& [name, column]: e.get().timeline().float_columns())
                     d[name.c_str()] = to_numpy(std::move(column));
                 return d;
             })
        .def("target_entries",
             [](py_engine& e) {
                 auto t = e.get().target_entries();
                 return std::make_tuple(to_numpy(std::move(t.source)), to_numpy(std::move(t.rank)),
                                        to_numpy(std::move(t.location)));
             })
        .def("location_sources", [](py_engine& e) { return to_numpy(e.get().location_sources()); })
        .def("out_degrees", [](py_engine& e) { return to_numpy(e.get().out_degrees()); });

    nb::class_<py_partition>(m, "DryRunPartition")
        .def(nb::init<py_engine&, int, std::vector<int>>(), nb::arg("engine"), nb::arg("ranks"), nb::arg("sampled"))
        .def("count", &py_partition::count, nb::arg("method"), nb::arg("exchange_options"), nb::arg("gids"),
             nb::arg("steps"), nb::arg("stops"))
        .def("target_pairs", &py_partition::target_pairs)
        .def_prop_ro("sampled", &py_partition::sampled)
        .def_prop_ro("steps_per_interval", &py_partition::steps_per_interval)
        .def_prop_ro("connections", &py_partition::connections);
    m.def("dryrun_sample", &dryrun_sample, nb::arg("ranks"), nb::arg("limit"));
}
