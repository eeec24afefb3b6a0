// spikex._core: the Python face of the C++ core (nanobind). The only boundary between the
// Python package and the engine; python/spikex/_core.pyi documents it.
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "spikex/comm/context.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/dryrun/exchange_counts.hpp"
#include "spikex/dryrun/memory_model.hpp"
#include "spikex/engine/engine.hpp"
#include "spikex/gups/gups.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/route/router.hpp"

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

template <typename T>
std::vector<T> to_vector(const input1d<T>& a) {
    return std::vector<T>(a.data(), a.data() + a.shape(0));
}

template <typename T>
array1d<T> allgather_array(const input1d<T>& values) {
    return to_numpy(comm().allgather_vector(to_vector(values)));
}

// A grid shape from Python: "auto", "hypercube", "4x2", or a list of ints -> "[4, 2]".
std::string dims_spec(nb::handle value) {
    if (nb::isinstance<nb::str>(value)) return nb::cast<std::string>(value);
    std::vector<int> dims;
    for (nb::handle d: value) dims.push_back(nb::cast<int>(d));
    return dims_text(dims);
}

// What the route library makes of (ranks, dims, budget), for validation before a launch:
// problems come back as text ("" when fine) so the caller can name its own option.
nb::dict route_plan(int ranks, nb::handle dims_value, std::int64_t budget) {
    nb::dict out;
    std::string dims = dims_spec(dims_value);
    out["dims_error"] = "";
    out["budget_error"] = "";
    try {
        process_grid grid = make_process_grid(ranks, dims, "dims", std::max<std::int64_t>(budget, 1));
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
        else
            throw user_error(spikex::format("gups option \"{}\" is unknown", k));
    }
    gups_result r = run_gups(comm(), o);
    nb::dict out;
    out["ranks"] = r.ranks;
    out["algorithm"] = r.algorithm;
    out["dims"] = r.dims;
    out["bucket_capacity"] = r.bucket_capacity;
    out["table_size"] = r.table_size;
    out["updates"] = r.updates;
    out["errors"] = r.errors;
    out["verified"] = r.verified;
    out["passed"] = r.passed;
    out["seconds"] = r.seconds;
    out["init_seconds"] = r.init_seconds;
    out["verify_seconds"] = r.verify_seconds;
    out["local_updates"] = r.counts.local_updates;
    out["messages_sent"] = r.counts.messages_sent;
    out["bytes_sent"] = r.counts.bytes_sent;
    out["updates_sent"] = r.counts.updates_sent;
    out["forwarded"] = r.counts.forwarded;
    out["send_tests"] = r.counts.send_tests;
    out["send_tests_pending"] = r.counts.send_tests_pending;
    out["rounds"] = r.counts.rounds;
    out["buffered_high_water"] = r.counts.buffered_high_water;
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

    std::uint32_t add_population(const std::string& model, std::uint32_t n,
                                 const std::map<std::string, double>& params) {
        require_unbuilt("create");
        auto& spec = engine_->spec();
        population_spec pop{model, spec.cells(), n, {}, {}, {}};
        for (const auto& [name, value]: params) pop.params[name] = parameter_value::constant(value);
        if (n == 0) throw user_error("create: a population needs at least one cell");
        if (static_cast<std::uint64_t>(pop.first) + n > 0xfffffffeull) throw user_error("create: too many cells");
        spec.populations.push_back(pop);
        return pop.first;
    }

    void connect_rule(const std::string& rule, std::uint32_t source_first, std::uint32_t source_n,
                      std::uint32_t target_first, std::uint32_t target_n, std::uint32_t indegree,
                      std::uint32_t indegree_spread, double weight, double weight_spread, double delay_ms,
                      const std::string& synapse, const std::map<std::string, double>& synapse_params) {
        require_unbuilt("connect");
        connection_set set;
        if (rule == "random")
            set.rule.kind = connection_rule_kind::random;
        else if (rule == "adjacent")
            set.rule.kind = connection_rule_kind::adjacent;
        else if (rule == "fixed_indegree")
            set.rule.kind = connection_rule_kind::fixed_indegree;
        else {
            throw user_error(spikex::format(
                "network.connectivity = \"{}\": must be \"random\", \"adjacent\" or \"fixed_indegree\"", rule));
        }
        set.synapse = synapse_index(synapse, synapse_params, weight - weight_spread / 2);
        std::uint64_t cells = engine_->spec().cells();
        if (std::uint64_t(source_first) + source_n > cells || std::uint64_t(target_first) + target_n > cells) {
            throw user_error(spikex::format("connect: source or target range outside the network's {} cells", cells));
        }
        set.rule.source_first = source_first;
        set.rule.source_size = source_n;
        set.rule.target_first = target_first;
        set.rule.target_size = target_n;
        set.rule.indegree = indegree;
        set.rule.indegree_spread = indegree_spread;
        set.rule.weight = random_distribution::constant(weight);
        set.rule.weight_spread = weight_spread;
        set.rule.delay_ms = random_distribution::constant(delay_ms);
        // Hines et al.'s and hpc_benchmark's rules never connect a cell to itself.
        set.rule.allow_autapses = false;
        set.rule.allow_multapses = set.rule.kind == connection_rule_kind::fixed_indegree;
        engine_->spec().connection_sets.push_back(std::move(set));
    }

    void connect_arrays(const input1d<std::int64_t>& sources, const input1d<std::int64_t>& targets,
                        const input1d<double>& weights, const input1d<double>& delays, const std::string& synapse,
                        const std::map<std::string, double>& synapse_params) {
        require_unbuilt("connect");
        std::size_t n = sources.shape(0);
        if (targets.shape(0) != n || weights.shape(0) != n || delays.shape(0) != n) {
            throw user_error("connect: sources, targets, weights and delays must have the same length");
        }
        connection_set set;
        set.is_rule = false;
        double lowest = 0;
        for (std::size_t k = 0; k < n; ++k) lowest = std::min(lowest, weights.data()[k]);
        set.synapse = synapse_index(synapse, synapse_params, lowest);
        auto& a = set.arrays;
        std::int64_t cells = engine_->spec().cells();
        for (std::size_t k = 0; k < n; ++k) {
            if (sources.data()[k] < 0 || sources.data()[k] >= cells || targets.data()[k] < 0 ||
                targets.data()[k] >= cells) {
                throw user_error(spikex::format("connect: gid out of range [0, {}) at index {}", cells, k));
            }
        }
        a.source.assign(sources.data(), sources.data() + n);
        a.target.assign(targets.data(), targets.data() + n);
        a.weight = to_vector(weights);
        a.delay_ms = to_vector(delays);
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

    engine& get() { return *engine_; }

private:
    // The index of a synapse type with these parameters in the network's list, adding it
    // when new. Plastic weights must not be negative.
    std::uint16_t synapse_index(const std::string& name, const std::map<std::string, double>& params,
                                double lowest_weight) {
        synapse_spec wanted{name, params};
        validate_synapse(wanted);
        if (name != "static" && lowest_weight < 0) {
            throw user_error(
                spikex::format("connect: synapse \"{}\" needs weights >= 0, got {:.6f}", name, lowest_weight));
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
        const auto& spikes = engine_->recorded_spikes();
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
        return d;
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
    m.def("allgather_int64", &allgather_array<std::int64_t>);
    m.def("allgather_float64", &allgather_array<double>);
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
    m.def("model_parameter_names", &spikex::model_parameter_names, nb::arg("model"));
    m.def("route_plan", &route_plan, nb::arg("ranks"), nb::arg("dims"), nb::arg("budget"));
    m.def("gups_run", &gups_run, nb::arg("options"));

    nb::class_<py_engine>(m, "Engine")
        .def(nb::init<double, std::uint32_t, const std::string&, const std::string&, const nb::dict&>(),
             nb::arg("dt_ms"), nb::arg("seed"), nb::arg("method"), nb::arg("distribution"), nb::arg("exchange_options"))
        .def("add_population", &py_engine::add_population)
        .def("connect_rule", &py_engine::connect_rule)
        .def("connect_arrays", &py_engine::connect_arrays)
        .def("record", &py_engine::record)
        .def("set_threads", &py_engine::set_threads)
        .def("set_connection_options", &py_engine::set_connection_options, nb::arg("sort_by_source"),
             nb::arg("keep_sources"))
        .def("build", [](py_engine& e) { e.get().build(); })
        .def("init", [](py_engine& e) { e.get().init(); })
        .def("run_until", [](py_engine& e, std::int64_t step) { e.get().run_until(step); })
        .def_prop_ro("step", [](py_engine& e) { return e.get().step(); })
        .def_prop_ro("steps_per_interval", [](py_engine& e) { return e.get().steps_per_interval(); })
        .def_prop_ro("cells_total", [](py_engine& e) { return e.get().cells_total(); })
        .def_prop_ro("local_cells", [](py_engine& e) { return e.get().local_cells(); })
        .def_prop_ro("threads", [](py_engine& e) { return e.get().options().threads; })
        .def("local_spikes", &py_engine::local_spikes)
        .def("connections", &py_engine::connections)
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
