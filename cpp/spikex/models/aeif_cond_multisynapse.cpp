// aeif_cond_alpha_multisynapse and aeif_cond_beta_multisynapse: the family's group
// (aeif_family.hpp) with one conductance per receptor port. The group's state has room for
// as many ports as its cells have at most (2, 4, 8 or 16: one instantiation each); a cell
// with fewer keeps the rest at 0, which changes nothing in its integration (their
// derivatives and error estimates are 0), so a cell's trajectory is the same in any group.
#include "spikex/models/aeif_cond_multisynapse.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/aeif_family.hpp"
#include "spikex/models/model_parameters.hpp"

namespace spikex {
namespace aeif_cond_multisynapse {

double beta_peak_factor(double tau_rise, double tau_decay) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    const double difference = tau_decay - tau_rise;
    double peak = 0.0; // exp(-t*/tau_decay) - exp(-t*/tau_rise)
    if (std::abs(difference) > eps) {
        const double t_peak = tau_decay * tau_rise * std::log(tau_decay / tau_rise) / difference;
        peak = std::exp(-t_peak / tau_decay) - std::exp(-t_peak / tau_rise);
    }
    if (std::abs(peak) < eps) return std::numbers::e / tau_decay; // the alpha function
    return (1.0 / tau_rise - 1.0 / tau_decay) / peak;
}

namespace {

const char* name_of(synapse_shape shape) {
    return shape == synapse_shape::alpha ? "aeif_cond_alpha_multisynapse" : "aeif_cond_beta_multisynapse";
}

using parameters = aeif::membrane_parameters;

const std::vector<model_parameters::field<parameters>>& table() {
    static const auto fields = [] {
        auto f = aeif::fields_before_synapses<parameters>();
        const auto after = aeif::fields_after_synapses<parameters>();
        f.insert(f.end(), after.begin(), after.end());
        return f;
    }();
    return fields;
}

// The list parameters (one value per receptor port) with NEST's default lists (one port),
// which a list not given takes.
struct list_parameter {
    parameter_spec spec;
    std::vector<double> nest_default;
};

list_parameter list(const char* name, const char* unit, double nest_default, value_range range, std::string meaning) {
    return {{name, unit, nest_default, spikex::format("[{}]", model_parameters::number(nest_default)), range,
             std::move(meaning), parameter_shape::per_cell_list},
            {nest_default}};
}

const std::vector<list_parameter>& list_parameters(synapse_shape shape) {
    static const std::string ports = spikex::format(
        "one per receptor port (1 to {} ports, NEST's receptor_type 1, 2, ...; every cell of a population has as "
        "many)",
        max_receptor_ports);
    static const std::vector<list_parameter> alpha = {
        list("E_rev", "mV", 0.0, ranges::any(),
             "reversal potential of each port's conductance, " + ports +
                 "; it makes the port excitatory or "
                 "inhibitory"),
        list("tau_syn", "ms", 2.0, ranges::positive(),
             "time constant of each port's alpha conductance (its peak, weight nS, comes tau_syn after the spike); "
             "as many as E_rev"),
    };
    static const std::vector<list_parameter> beta = {
        alpha[0],
        list("tau_rise", "ms", 2.0, ranges::positive(), "rise time of each port's beta conductance; as many as E_rev"),
        list("tau_decay", "ms", 20.0, ranges::positive(),
             "decay time of each port's beta conductance (>= its tau_rise; equal: the alpha function); as many as "
             "E_rev. A weight w nS peaks at w nS"),
    };
    return shape == synapse_shape::alpha ? alpha : beta;
}

// The entry's parameters: the numbers, with the lists after tau_w (where aeif_cond_*'s
// synaptic parameters are).
std::vector<parameter_spec> all_specs(synapse_shape shape) {
    std::vector<parameter_spec> specs;
    for (const auto& f: table()) {
        specs.push_back(f.spec);
        if (f.spec.name == "tau_w")
            for (const auto& l: list_parameters(shape)) specs.push_back(l.spec);
    }
    return specs;
}

const std::vector<state_spec> state_table = {
    {"V_m", "mV", "membrane potential"},
    {"w", "pA", "adaptation current"},
    {"g", "nS", "conductance of each receptor port: g_1, g_2, ... (NEST's names)", false, true},
};

std::vector<std::string> checkpoint_state() {
    std::vector<std::string> names = {"V_m", "w"};
    for (std::uint32_t k = 1; k <= max_receptor_ports; ++k) {
        names.push_back(spikex::format("dg_{}", k));
        names.push_back(spikex::format("g_{}", k));
    }
    names.insert(names.end(), {"I_stim", "r", "stim_active", "substep"});
    return names;
}

// A list as users wrote it, shortened past 6 values.
std::string shown(const std::vector<double>& values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size() && i < 6; ++i) s += (i ? ", " : "") + model_parameters::number(values[i]);
    if (values.size() > 6) s += spikex::format(", ... ({} values)", values.size());
    return s + "]";
}

bool given(const population_spec& pop, const std::string& name) {
    const auto it = pop.lists.find(name);
    return it != pop.lists.end() && !it->second.offsets.empty();
}

// Cell gid's lists (NEST's default for a list not given), checked as NEST checks them:
// equal lengths, each time constant > 0, tau_decay >= tau_rise; and 1 to
// max_receptor_ports ports (NEST also allows none).
aeif::lists read_lists(synapse_shape shape, const population_spec& pop, gid_type gid) {
    const char* model = name_of(shape);
    const auto& specs = list_parameters(shape);
    aeif::lists lists;
    for (const auto& l: specs) {
        lists.push_back(given(pop, l.spec.name) ? pop.list_of(l.spec.name, gid) : l.nest_default);
        for (double x: lists.back()) {
            try {
                model_parameters::check(model, l.spec, x);
            } catch (const user_error& e) {
                throw user_error(spikex::format("{} (cell {})", e.what(), gid));
            }
        }
    }
    bool same = true;
    for (const auto& l: lists) same = same && l.size() == lists[0].size();
    if (!same) {
        std::string names, counts;
        for (std::size_t k = 0; k < lists.size(); ++k) {
            const char* joint = k == 0 ? "" : k + 1 == lists.size() ? " and " : ", ";
            names += joint + specs[k].spec.name;
            counts += joint + std::to_string(lists[k].size());
        }
        throw user_error(spikex::format("{} parameters {} (cell {}): {} values: must be lists of the same length, one "
                                        "value per receptor port (a list not given is NEST's default, one port)",
                                        model, names, gid, counts));
    }
    if (lists[0].empty() || lists[0].size() > max_receptor_ports) {
        throw user_error(spikex::format("{} parameter E_rev = {} (cell {}): must have 1 to {} values, one per "
                                        "receptor port",
                                        model, shown(lists[0]), gid, max_receptor_ports));
    }
    if (shape == synapse_shape::beta) {
        for (std::size_t k = 0; k < lists[1].size(); ++k) {
            model_parameters::require(lists[2][k] >= lists[1][k], model, "tau_decay", lists[2][k],
                                      spikex::format("must be >= tau_rise = {} ms (cell {}, port {})",
                                                     model_parameters::number(lists[1][k]), gid, k + 1));
        }
    }
    return lists;
}

// The family's Model (aeif_family.hpp) for `Ports` ports at most: y = (V_m, w, dg_1,
// g_1, ...), inputs through receptor ports.
template <synapse_shape Shape, std::size_t Ports>
struct model {
    using parameters = aeif_cond_multisynapse::parameters;
    static constexpr const char* name =
        Shape == synapse_shape::alpha ? "aeif_cond_alpha_multisynapse" : "aeif_cond_beta_multisynapse";
    static constexpr bool rise = true, ports = true, conductances_settable = false;
    static constexpr std::size_t inputs = Ports, size = 2 + 2 * Ports, saved_size = 2 + 2 * max_receptor_ports;
    static constexpr std::size_t dg(std::size_t k) { return 2 + 2 * k; }
    static constexpr std::size_t g(std::size_t k) { return 3 + 2 * k; }
    static constexpr std::size_t used(std::uint32_t count) { return 2 + 2 * std::size_t(count); }

    static parameters parse(const std::map<std::string, double>& values) {
        const parameters p = model_parameters::parse(name, table(), values);
        aeif::check_relations(name, p);
        return p;
    }
    static std::array<double, 13> key(const parameters& p) { return aeif::membrane_key(p); }
    static aeif::lists lists_of(const population_spec& pop, gid_type gid) {
        auto lists = read_lists(Shape, pop, gid);
        const std::uint32_t first = receptor_ports(Shape, pop);
        if (lists[0].size() != first) {
            throw user_error(spikex::format("{} parameter E_rev = {} (cell {}): {} receptor ports: every cell of a "
                                            "population must have as many as its first cell ({})",
                                            name, shown(lists[0]), gid, lists[0].size(), first));
        }
        return lists;
    }
    static aeif::conductances<Ports> conductances_of(const parameters&, const aeif::lists& lists) {
        aeif::conductances<Ports> c;
        c.count = static_cast<std::uint32_t>(lists[0].size());
        for (std::size_t k = 0; k < c.count; ++k) {
            c.E_rev[k] = lists[0][k];
            if constexpr (Shape == synapse_shape::alpha) {
                c.tau_rise[k] = c.tau_decay[k] = lists[1][k];
                c.g0[k] = std::numbers::e / lists[1][k];
            } else {
                c.tau_rise[k] = lists[1][k];
                c.tau_decay[k] = lists[2][k];
                c.g0[k] = beta_peak_factor(lists[1][k], lists[2][k]);
            }
        }
        return c;
    }
    // C_m dV/dt as NEST's right-hand side computes it, in its order of operations.
    template <class State, class T>
    SPIKEX_LANES_INLINE static T membrane_current(const parameters& p, const aeif::conductances<Ports>& c,
                                                  const State& y, const T& V, const T& I_spike, const T& I_stim) {
        T I_syn = ode::splat<T>(0.0); // sum_k g_k (E_k - V)
        for (std::uint32_t k = 0; k < c.count; ++k) I_syn += y[g(k)] * (c.E_rev[k] - V);
        return -p.g_L * (V - p.E_L) + I_spike + I_syn - y[1] + p.I_e + I_stim;
    }
    // g_1 .. g_<count> (NEST's names, as written: no leading zeros).
    static int conductance_named(const std::string& variable, std::uint32_t count) {
        if (variable.size() < 3 || variable.compare(0, 2, "g_") != 0) return -1;
        for (std::uint32_t k = 1; k <= count; ++k)
            if (variable == spikex::format("g_{}", k)) return int(k - 1);
        return -1;
    }
    static const std::vector<state_spec>& state_table() { return aeif_cond_multisynapse::state_table; }
};

template <synapse_shape Shape>
std::unique_ptr<cell_group> make_sized(const network_spec& spec, const std::vector<gid_type>& gids,
                                       local_index first_local) {
    // Room for the most ports of the group's cells.
    std::uint32_t most = 1;
    const population_spec* last = nullptr;
    for (gid_type gid: gids) {
        const population_spec* pop = &spec.population_of(gid);
        if (pop != last) most = std::max(most, receptor_ports(Shape, *pop));
        last = pop;
    }
    if (most <= 2) return aeif::make_group<model<Shape, 2>>(spec, gids, first_local);
    if (most <= 4) return aeif::make_group<model<Shape, 4>>(spec, gids, first_local);
    if (most <= 8) return aeif::make_group<model<Shape, 8>>(spec, gids, first_local);
    static_assert(max_receptor_ports == 16);
    return aeif::make_group<model<Shape, 16>>(spec, gids, first_local);
}

model_entry entry(synapse_shape shape) {
    const bool alpha = shape == synapse_shape::alpha;
    model_entry e;
    e.name = name_of(shape);
    e.kind = model_kind::neuron;
    e.description = spikex::format("NEST's adaptive exponential integrate-and-fire neuron (Brette & Gerstner 2005) "
                                   "with one {} synaptic conductance per receptor port, weights in nS",
                                   alpha ? "alpha-shaped" : "beta-shaped (rise and decay)");
    e.parameters = all_specs(shape);
    e.state = state_table;
    e.accepts_current = true;
    e.checkpoint_state = checkpoint_state();
    e.receptors = spikex::format("spikes through receptor ports 1 .. n (one per E_rev entry, NEST's receptor_type; "
                                 "port 0 refused), weights >= 0 nS: the port's {} conductance peaks at the weight; "
                                 "currents (pA)",
                                 alpha ? "alpha" : "beta");
    e.receptor_ports = [shape](const population_spec& pop) { return receptor_ports(shape, pop); };
    e.integration = "NEST's Runge-Kutta-Fehlberg 4(5) with GSL's step control (error bound gsl_error_tol per sub-step, "
                    "absolute and relative to dt·|dy/dt|), spikes detected between sub-steps";
    e.nest_model = e.name;
    e.docs_page = "docs/models/aeif_cond_multisynapse.md";
    e.make = [shape](const network_spec& spec, const std::vector<gid_type>& local_gids, local_index first_local) {
        return make_group(shape, spec, local_gids, first_local);
    };
    return e;
}

} // namespace

std::uint32_t receptor_ports(synapse_shape shape, const population_spec& pop) {
    return static_cast<std::uint32_t>(read_lists(shape, pop, pop.first)[0].size());
}

std::unique_ptr<cell_group> make_group(synapse_shape shape, const network_spec& spec,
                                       const std::vector<gid_type>& local_gids, local_index first_local) {
    if (shape == synapse_shape::alpha) return make_sized<synapse_shape::alpha>(spec, local_gids, first_local);
    return make_sized<synapse_shape::beta>(spec, local_gids, first_local);
}

} // namespace aeif_cond_multisynapse

model_entry aeif_cond_alpha_multisynapse_model() {
    return aeif_cond_multisynapse::entry(aeif_cond_multisynapse::synapse_shape::alpha);
}
model_entry aeif_cond_beta_multisynapse_model() {
    return aeif_cond_multisynapse::entry(aeif_cond_multisynapse::synapse_shape::beta);
}

} // namespace spikex
