#pragma once
// What NEST 3.10's GLIF models (Teeter et al. 2018; glif_psc.hpp, glif_cond.hpp) share:
// the parameter table, the list parameters read per cell and checked as NEST checks them,
// the per-set constants (decay rates of the threshold components and after-spike
// currents) and the threshold-and-reset step.
//
// The five GLIF levels are chosen by three flags (NEST's names):
//   level   spike_dependent_threshold  after_spike_currents  adapting_threshold
//   GLIF1   0                          0                     0
//   GLIF2   1                          0                     0
//   GLIF3   0                          1                     0
//   GLIF4   1                          1                     0
//   GLIF5   1                          1                     1
// (the other three combinations are refused, as NEST refuses them). Potentials are kept
// relative to E_L as NEST keeps them (U = V_m - E_L, th_inf = V_th - E_L, V_reset - E_L),
// computed from the given values in NEST's way so that they are NEST's bit for bit.
//
// One step of a cell that is not refractory, given U before (v_old) and after the
// membrane's update (the model's own: exact for glif_psc, RKF45 for glif_cond), NEST's
// order:
//   threshold_spike *= exp(-th_spike_decay h)                      (spike_dependent_threshold)
//   ASCurrents_sum = sum_j c_j I_j, c_j = (1 - exp(-k_j h)) / (k_j h); I_j *= exp(-k_j h)
//   [glif_psc: U from v_old, (I + ASCurrents_sum) and the synaptic currents]
//   threshold_voltage: the exact solution of d th_v/dt = a_v U - b_v th_v over the step
//                      with U linear, beta = (I + ASCurrents_sum) / g  (adapting_threshold)
//   threshold = threshold_spike + threshold_voltage + th_inf
//   U > threshold: r = t_ref in steps; I_j = asc_amps_j + I_j asc_r_j exp(-k_j t_ref);
//     without spike_dependent_threshold U = V_reset, with it U = voltage_reset_fraction
//     v_old + voltage_reset_add and threshold_spike = threshold_spike exp(-th_spike_decay
//     t_ref) + th_spike_add; spike at the step
// A refractory cell: --r, U = v_old (held), threshold recomputed; nothing else decays.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex::glif {

inline constexpr std::uint32_t max_ports = 16;    // receptor ports per cell (fixes the checkpoint's width)
inline constexpr std::uint32_t max_asc_terms = 4; // after-spike currents per cell (likewise)

// NEST 3.10's defaults (GLIF5 parameters of the Allen cell 490626718, glif_psc.h).
inline constexpr double default_E_L = -78.85, default_V_th = -51.68;

struct parameters {
    double V_th, g, E_L, C_m, t_ref, V_reset;
    double th_spike_add, th_spike_decay, voltage_reset_fraction, voltage_reset_add;
    double th_voltage_index, th_voltage_decay;
    double spike_dependent_threshold, after_spike_currents, adapting_threshold;
    double V_m;       // initial membrane potential
    double tau_minus; // STDP depression time constant (read by the synapses)
    // NEST's values relative to E_L, computed as NEST computes them (parse())
    double th_inf, V_reset_rel, U_initial;
};

// The table; `conductance` is the membrane conductance's name (glif_psc: g, glif_cond: g_m,
// where g names the synaptic conductances).
inline std::vector<model_parameters::field<parameters>> table(const char* conductance) {
    namespace np = neuron_parameters;
    using P = parameters;
    return {
        {{"V_th", "mV", default_V_th, "", ranges::any(),
          "instantaneous threshold th_inf, the threshold without its spike and voltage components (> V_reset)"},
         &P::V_th},
        {{conductance, "nS", 9.43, "", ranges::positive(), "membrane (leak) conductance"}, &P::g},
        {np::E_L("resting membrane potential", default_E_L), &P::E_L},
        {np::C_m(58.72), &P::C_m},
        {{"t_ref", "ms", 3.75, "", ranges::positive(),
          "refractory period (rounded up to whole steps; V_m is held at its reset value)"},
         &P::t_ref},
        {{"V_reset", "mV", default_E_L, "", ranges::any(),
          "membrane potential after a spike without spike_dependent_threshold (GLIF1, GLIF3; < V_th)"},
         &P::V_reset},
        {{"th_spike_add", "mV", 0.37, "", ranges::any(),
          "jump of the threshold's spike component at a spike (Teeter et al.'s delta theta_s)"},
         &P::th_spike_add},
        {{"th_spike_decay", "1/ms", 0.009, "", ranges::any(),
          "decay rate of the threshold's spike component (b_s; > 0 with spike_dependent_threshold)"},
         &P::th_spike_decay},
        {{"voltage_reset_fraction", "1", 0.2, "", ranges::any(),
          "fraction of the potential before the spike kept at the reset (f_v; in [0, 1] with "
          "spike_dependent_threshold)"},
         &P::voltage_reset_fraction},
        {{"voltage_reset_add", "mV", 18.51, "", ranges::any(),
          "potential added at the reset, relative to E_L (-delta V; with spike_dependent_threshold)"},
         &P::voltage_reset_add},
        {{"th_voltage_index", "1/ms", 0.005, "", ranges::any(),
          "coupling of the threshold's voltage component to the membrane potential (a_v)"},
         &P::th_voltage_index},
        {{"th_voltage_decay", "1/ms", 0.09, "", ranges::any(),
          "decay rate of the threshold's voltage component (b_v; > 0 with adapting_threshold)"},
         &P::th_voltage_decay},
        {{"spike_dependent_threshold", "1", 0.0, "", ranges::flag(),
          "1: the reset rules of GLIF2, 4, 5 (a spike component of the threshold, V_m reset from its value)"},
         &P::spike_dependent_threshold},
        {{"after_spike_currents", "1", 0.0, "", ranges::flag(), "1: after-spike currents (GLIF3, 4, 5)"},
         &P::after_spike_currents},
        {{"adapting_threshold", "1", 0.0, "", ranges::flag(),
          "1: the threshold's voltage component (GLIF5; needs the other two flags)"},
         &P::adapting_threshold},
        {{"V_m", "mV", default_E_L, "", ranges::any(),
          "initial membrane potential (the default unless given, whatever E_L is: NEST's rule)"},
         &P::V_m},
        {np::tau_minus(), &P::tau_minus},
    };
}

// A list parameter: its spec and NEST's default list (a cell takes it when none is given).
struct list_parameter {
    parameter_spec spec;
    std::vector<double> nest_default;
};

inline std::string shown(const std::vector<double>& values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size() && i < 6; ++i) s += (i ? ", " : "") + model_parameters::number(values[i]);
    if (values.size() > 6) s += spikex::format(", ... ({} values)", values.size());
    return s + "]";
}

inline list_parameter list(const char* name, const char* unit, std::vector<double> nest_default, value_range range,
                           std::string meaning) {
    return {{name, unit, nest_default.empty() ? 0.0 : nest_default[0], shown(nest_default), range, std::move(meaning),
             parameter_shape::per_cell_list},
            std::move(nest_default)};
}

enum list_index : std::size_t { asc_init, asc_decay, asc_amps, asc_r, tau_syn, E_rev };

// The lists (glif_cond adds E_rev and has other tau_syn defaults).
inline std::vector<list_parameter> list_parameters(bool conductances) {
    const std::string asc = "; one value per after-spike current, as asc_init";
    std::vector<list_parameter> l = {
        list("asc_init", "pA", {0.0, 0.0}, ranges::any(),
             spikex::format("initial after-spike currents: checked, not used (NEST 3.10 starts them at 0 whatever it "
                            "says); one value per current, 1 to {}, the four asc_ lists as long (with "
                            "after_spike_currents)",
                            max_asc_terms)),
        list("asc_decay", "1/ms", {0.003, 0.1}, ranges::any(),
             "decay rate k_j of each after-spike current (> 0 with after_spike_currents)" + asc),
        list("asc_amps", "pA", {-9.18, -198.94}, ranges::any(),
             "what each after-spike current takes at a spike, added to its decayed value times asc_r" + asc),
        list("asc_r", "1", {1.0, 1.0}, ranges::any(),
             "fraction of each after-spike current kept at a spike (in [0, 1] with after_spike_currents)" + asc),
    };
    const std::string ports = spikex::format(
        "; one port per value (1 to {}, NEST's receptor_type 1, 2, ...; every cell of a population has as many)",
        max_ports);
    if (conductances) {
        l.push_back(list("tau_syn", "ms", {0.2, 2.0}, ranges::positive(),
                         "time constant of each port's alpha conductance (a weight w nS peaks at w nS tau_syn after "
                         "the spike)" +
                             ports));
        l.push_back(list("E_rev", "mV", {0.0, -85.0}, ranges::any(),
                         "reversal potential of each port's conductance; as many as tau_syn"));
    } else {
        l.push_back(list("tau_syn", "ms", {2.0}, ranges::positive(),
                         "time constant of each port's alpha current (a weight w pA peaks at w pA tau_syn after the "
                         "spike)" +
                             ports));
    }
    return l;
}

// The entry's parameters: the numbers with the lists after th_voltage_decay (NEST's order).
inline std::vector<parameter_spec> all_specs(const char* conductance, bool conductances) {
    std::vector<parameter_spec> specs;
    for (const auto& f: table(conductance)) {
        specs.push_back(f.spec);
        if (f.spec.name == "th_voltage_decay")
            for (const auto& l: list_parameters(conductances)) specs.push_back(l.spec);
    }
    return specs;
}

// Parameters from a cell's numbers, checked as NEST checks them; the relative values as
// NEST computes them: a value given is taken relative to E_L, one not given keeps its
// default's relative value moved by E_L's change (NEST's set_status).
inline parameters parse(const char* model, const std::vector<model_parameters::field<parameters>>& fields,
                        const std::map<std::string, double>& values) {
    std::set<std::string> given;
    parameters p = model_parameters::parse(model, fields, values, &given);
    const double delta_E_L = p.E_L - default_E_L;
    p.th_inf = given.count("V_th") ? p.V_th - p.E_L : (default_V_th - default_E_L) - delta_E_L;
    p.V_reset_rel = given.count("V_reset") ? p.V_reset - p.E_L : 0.0 - delta_E_L;
    p.U_initial = given.count("V_m") ? p.V_m - p.E_L : 0.0 - delta_E_L;
    using model_parameters::number, model_parameters::require;
    require(p.V_reset_rel < p.th_inf, model, "V_reset", p.V_reset,
            spikex::format("must be < V_th = {} mV", number(p.V_th)));
    const bool spike = p.spike_dependent_threshold != 0, asc = p.after_spike_currents != 0;
    if (p.adapting_threshold != 0) {
        require(spike && asc, model, "adapting_threshold", 1.0,
                "must be 0 unless spike_dependent_threshold and after_spike_currents are 1 (the GLIF levels 1-5 "
                "allow no other combination)");
        require(p.th_voltage_decay > 0, model, "th_voltage_decay", p.th_voltage_decay,
                "must be > 0 1/ms with adapting_threshold");
    }
    if (spike) {
        require(p.th_spike_decay > 0, model, "th_spike_decay", p.th_spike_decay,
                "must be > 0 1/ms with spike_dependent_threshold");
        require(p.voltage_reset_fraction >= 0 && p.voltage_reset_fraction <= 1, model, "voltage_reset_fraction",
                p.voltage_reset_fraction, "must be in [0, 1] with spike_dependent_threshold");
    }
    return p;
}

inline bool list_given(const population_spec& pop, const std::string& name) {
    const auto it = pop.lists.find(name);
    return it != pop.lists.end() && !it->second.offsets.empty();
}

// Cell gid's lists (NEST's default for a list not given), in list_index order, checked as
// NEST checks them (the after-spike currents' only with after_spike_currents).
inline std::vector<std::vector<double>> read_lists(const char* model, bool conductances, const parameters& p,
                                                   const population_spec& pop, gid_type gid) {
    const auto specs = list_parameters(conductances);
    std::vector<std::vector<double>> lists;
    for (const auto& l: specs)
        lists.push_back(list_given(pop, l.spec.name) ? pop.list_of(l.spec.name, gid) : l.nest_default);
    auto refuse = [&](const std::string& name, const std::vector<double>& values, const std::string& allowed) {
        throw user_error(
            spikex::format("{} parameter {} = {} (cell {}): {}", model, name, shown(values), gid, allowed));
    };
    for (double tau: lists[tau_syn]) {
        if (!(tau > 0)) refuse("tau_syn", lists[tau_syn], "every value must be > 0 ms");
    }
    if (lists[tau_syn].empty() || lists[tau_syn].size() > max_ports) {
        refuse("tau_syn", lists[tau_syn], spikex::format("must have 1 to {} values, one per receptor port", max_ports));
    }
    if (conductances && lists[E_rev].size() != lists[tau_syn].size()) {
        refuse("E_rev", lists[E_rev],
               spikex::format("must have as many values as tau_syn ({}; a list not given is NEST's default, {})",
                              lists[tau_syn].size(), shown(specs[E_rev].nest_default)));
    }
    for (std::size_t k = 0; k < lists.size(); ++k) {
        for (double x: lists[k]) {
            if (!std::isfinite(x)) refuse(specs[k].spec.name, lists[k], "every value must be a finite number");
        }
    }
    if (p.after_spike_currents != 0) {
        const std::size_t n = lists[asc_decay].size();
        for (std::size_t k: {asc_init, asc_amps, asc_r}) {
            if (lists[k].size() != n) {
                refuse(specs[k].spec.name, lists[k],
                       spikex::format("must have as many values as asc_decay ({}): the after-spike currents' four "
                                      "lists have one value per current",
                                      n));
            }
        }
        if (n == 0 || n > max_asc_terms) {
            refuse("asc_decay", lists[asc_decay],
                   spikex::format("must have 1 to {} values with after_spike_currents", max_asc_terms));
        }
        for (double k: lists[asc_decay]) {
            if (!(k > 0)) refuse("asc_decay", lists[asc_decay], "every value must be > 0 1/ms");
        }
        for (double r: lists[asc_r]) {
            if (!(r >= 0 && r <= 1)) refuse("asc_r", lists[asc_r], "every value must be in [0, 1]");
        }
    }
    return lists;
}

// The number of receptor ports of a population's cells (its first cell's tau_syn).
inline std::uint32_t receptor_ports(const char* model, bool conductances, const population_spec& pop,
                                    const std::vector<model_parameters::field<parameters>>& fields) {
    const parameters p = parse(model, fields, cell_parameters(pop, pop.first, 0));
    return static_cast<std::uint32_t>(read_lists(model, conductances, p, pop, pop.first)[tau_syn].size());
}

// One cell's parameters and lists as a group reads them, and the key of its parameter set
// (cells with equal keys share one): V_m and tau_minus are not part of it.
struct cell_reading {
    parameters p;
    std::vector<std::vector<double>> lists;
    std::vector<double> key;
};

// Cell gid of pop; errors name the cell. Cells are read in order: `last` and `ports` keep
// the population of the cell before and its first cell's receptor ports (every cell of a
// population must have as many).
inline cell_reading read_cell(const char* model, bool conductances,
                              const std::vector<model_parameters::field<parameters>>& fields,
                              const population_spec& pop, gid_type gid, std::uint32_t seed,
                              const population_spec*& last, std::uint32_t& ports) {
    cell_reading r;
    try {
        r.p = parse(model, fields, cell_parameters(pop, gid, seed));
    } catch (const user_error& e) {
        throw user_error(spikex::format("{} (cell {})", e.what(), gid));
    }
    r.lists = read_lists(model, conductances, r.p, pop, gid);
    if (&pop != last) ports = receptor_ports(model, conductances, pop, fields);
    last = &pop;
    if (r.lists[tau_syn].size() != ports) {
        throw user_error(spikex::format("{} parameter tau_syn = {} (cell {}): {} values where the population's first "
                                        "cell has {}: every cell of a population has as many ports",
                                        model, shown(r.lists[tau_syn]), gid, r.lists[tau_syn].size(), ports));
    }
    for (const auto& f: fields)
        if (f.spec.name != "V_m" && f.spec.name != "tau_minus") r.key.push_back(r.p.*(f.member));
    r.key.insert(r.key.end(), {r.p.th_inf, r.p.V_reset_rel});
    for (const auto& l: r.lists) {
        r.key.push_back(double(l.size()));
        r.key.insert(r.key.end(), l.begin(), l.end());
    }
    return r;
}

// The constants of a parameter set that the threshold components and the after-spike
// currents use (NEST's pre_run_hook, its expressions in its order).
struct mechanisms {
    bool spike = false, asc = false, voltage = false;
    double th_inf = 0, V_reset = 0, g = 0; // th_inf and V_reset relative to E_L
    double voltage_reset_fraction = 0, voltage_reset_add = 0, th_spike_add = 0;
    std::int32_t refractory_steps = 0;
    double theta_spike_decay_rate = 0, theta_spike_refractory_decay_rate = 0;
    std::vector<double> asc_decay_rates, asc_stable_coeff, asc_refractory_decay_rates, asc_amps;
    double potential_decay_rate = 0, theta_voltage_decay_rate_inverse = 0, phi = 0, abpara_ratio_voltage = 0;

    mechanisms() = default;
    mechanisms(const char* model, const parameters& p, const std::vector<std::vector<double>>& lists, double h):
        spike(p.spike_dependent_threshold != 0),
        asc(p.after_spike_currents != 0),
        voltage(p.adapting_threshold != 0),
        th_inf(p.th_inf),
        V_reset(p.V_reset_rel),
        g(p.g),
        voltage_reset_fraction(p.voltage_reset_fraction),
        voltage_reset_add(p.voltage_reset_add),
        th_spike_add(p.th_spike_add),
        refractory_steps(iaf_integration::checked_refractory_steps(model, p.t_ref, h)) {
        if (spike) {
            theta_spike_decay_rate = std::exp(-p.th_spike_decay * h);
            theta_spike_refractory_decay_rate = std::exp(-p.th_spike_decay * p.t_ref);
        }
        if (asc) {
            for (std::size_t a = 0; a < lists[asc_decay].size(); ++a) {
                const double k = lists[asc_decay][a];
                asc_decay_rates.push_back(std::exp(-k * h));
                asc_stable_coeff.push_back(((1.0 / k) / h) * (1.0 - asc_decay_rates.back()));
                asc_refractory_decay_rates.push_back(lists[asc_r][a] * std::exp(-k * p.t_ref));
            }
            asc_amps = lists[list_index::asc_amps];
        }
        if (voltage) {
            potential_decay_rate = std::exp(-p.g * h / p.C_m);
            theta_voltage_decay_rate_inverse = 1 / (std::exp(p.th_voltage_decay * h));
            phi = p.th_voltage_index / (p.th_voltage_decay - p.g / p.C_m);
            abpara_ratio_voltage = p.th_voltage_index / p.th_voltage_decay;
        }
    }
    std::size_t asc_terms() const { return asc_decay_rates.size(); }
};

// A cell's threshold and after-spike state (the part of NEST's State_ both models share).
struct threshold_state {
    double threshold, threshold_spike, threshold_voltage, asc_sum;
};

// Before the membrane's update of a cell that is not refractory: the spike component's
// decay and the after-spike currents' mean over the step (sum) and decay.
inline void decay(const mechanisms& m, threshold_state& s, double* I_asc) {
    if (m.spike) s.threshold_spike = s.threshold_spike * m.theta_spike_decay_rate;
    s.asc_sum = 0.0;
    if (m.asc) {
        for (std::size_t a = 0; a < m.asc_terms(); ++a) {
            s.asc_sum += (m.asc_stable_coeff[a] * I_asc[a]);
            I_asc[a] = I_asc[a] * m.asc_decay_rates[a];
        }
    }
}

// After the membrane's update (U at the step's end, v_old at its start, I the current
// input of the step before): the voltage component, the threshold and the spike test with
// its reset. True when the cell spikes.
inline bool threshold_and_reset(const mechanisms& m, threshold_state& s, double* I_asc, double v_old, double I,
                                double& U, std::int32_t& refractory) {
    if (m.voltage) {
        const double beta = (I + s.asc_sum) / m.g;
        s.threshold_voltage = m.phi * (v_old - beta) * m.potential_decay_rate +
                              m.theta_voltage_decay_rate_inverse *
                                  (s.threshold_voltage - m.phi * (v_old - beta) - m.abpara_ratio_voltage * beta) +
                              m.abpara_ratio_voltage * beta;
    }
    s.threshold = s.threshold_spike + s.threshold_voltage + m.th_inf;
    if (!(U > s.threshold)) return false;
    refractory = m.refractory_steps;
    if (m.asc) {
        for (std::size_t a = 0; a < m.asc_terms(); ++a)
            I_asc[a] = m.asc_amps[a] + I_asc[a] * m.asc_refractory_decay_rates[a];
    }
    if (!m.spike) {
        U = m.V_reset;
    } else {
        U = m.voltage_reset_fraction * v_old + m.voltage_reset_add;
        s.threshold_spike = s.threshold_spike * m.theta_spike_refractory_decay_rate + m.th_spike_add;
        s.threshold = s.threshold_spike + s.threshold_voltage + m.th_inf;
    }
    return true;
}

// A refractory cell's step: the count down, U held, the threshold recomputed.
inline void refractory_step(const mechanisms& m, threshold_state& s, double v_old, double& U,
                            std::int32_t& refractory) {
    --refractory;
    U = v_old;
    s.threshold = s.threshold_spike + s.threshold_voltage + m.th_inf;
}

// The recordables both models have, and which of them Network.set may set (NEST's
// SetStatus: V_m; threshold_spike and threshold_voltage only with their mechanism).
inline state_spec state_V_m() { return {"V_m", "mV", "membrane potential"}; }
inline std::vector<state_spec> threshold_states() {
    return {
        {"threshold", "mV", "the threshold: th_inf + threshold_spike + threshold_voltage (absolute)", false},
        {"threshold_spike", "mV",
         "the threshold's spike component (settable with spike_dependent_threshold, as in NEST)"},
        {"threshold_voltage", "mV", "the threshold's voltage component (settable with adapting_threshold, as in NEST)"},
        {"ASCurrents_sum", "pA", "the after-spike currents' sum as the last step used it (their mean over the step)",
         false},
        {"I", "pA", "the current input (pA) of the last step, which acts on V_m in the next", false},
    };
}

// user_error for a state Network.set cannot set (NEST refuses it in SetStatus).
[[noreturn]] inline void refuse_state(const char* model, const std::string& variable, const std::string& why) {
    throw user_error(spikex::format("{}: state variable \"{}\" cannot be set: {}", model, variable, why));
}

} // namespace spikex::glif
