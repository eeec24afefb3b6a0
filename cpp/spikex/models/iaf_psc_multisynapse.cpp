// iaf_psc_exp_multisynapse: NEST 3.10's leaky integrate-and-fire neuron with one
// exponentially decaying current per receptor port (docs/models/iaf_psc_exp_multisynapse.md).
//
//  State per cell: V (relative to E_L), I_k per port k [pA], I_stim, the refractory
//  counter r. Ports come from the per-cell list tau_syn (one port per value, NEST's
//  receptor_type 1, 2, ...); a spike of weight w (any sign) through port k adds w to I_k.
//  end_step(n), per cell, NEST's expressions in NEST's order:
//   1. r == 0: V = V*P22 + (I_e + I_stim)*P20, then V += P21_k*I_k for k = 1, 2, ...;
//      else --r
//   2. I_k = I_k*P11_k + (the port's input of step n)
//   3. V >= V_th - E_L: r = t_ref in steps, V = V_reset - E_L, spike at step n
//   4. I_stim = the current inputs of step n
//  P21_k is NEST's IAFPropagatorExp; NEST refuses a given tau_syn == tau_m for this model
//  (its default [2.0] with tau_m = 2 runs on the propagator's limit), so do we.
#include <algorithm>
#include <limits>
#include <map>
#include <numbers>
#include <numeric>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/models/neuron_parameters.hpp"

namespace spikex {
namespace {

namespace np = neuron_parameters;

constexpr std::uint32_t max_ports = 16; // fixes the checkpoint's width
constexpr double nest_default_tau_syn = 2.0;

struct parameters {
    double E_L, C_m, tau_m, t_ref, V_th, V_reset, I_e, V_m, tau_minus;
    double V_min = -std::numeric_limits<double>::infinity(); // alpha only
};

template <bool Alpha>
const char* name_of() {
    return Alpha ? "iaf_psc_alpha_multisynapse" : "iaf_psc_exp_multisynapse";
}

template <bool Alpha>
const std::vector<model_parameters::field<parameters>>& table() {
    static const auto fields = [] {
        std::vector<model_parameters::field<parameters>> f = {
            {np::E_L(), &parameters::E_L},
            {np::C_m(), &parameters::C_m},
            {np::tau_m(), &parameters::tau_m},
            {np::t_ref(), &parameters::t_ref},
            {np::V_th(), &parameters::V_th},
            {np::V_reset(), &parameters::V_reset},
            {np::I_e(), &parameters::I_e},
            {np::V_m(), &parameters::V_m},
            {np::tau_minus(), &parameters::tau_minus},
        };
        if (Alpha) {
            f.push_back({{"V_min", "mV", -std::numeric_limits<double>::infinity(), "", ranges::any_or_inf(),
                          "lower bound of the membrane potential (NEST's; -inf: none)"},
                         &parameters::V_min});
        }
        return f;
    }();
    return fields;
}

template <bool Alpha>
const parameter_spec& tau_syn_spec() {
    static const parameter_spec spec{
        "tau_syn",
        "ms",
        nest_default_tau_syn,
        spikex::format("[{}]", model_parameters::number(nest_default_tau_syn)),
        ranges::positive(),
        spikex::format("{} of each receptor port's current, one port per value (1 to {} ports, NEST's "
                       "receptor_type 1, 2, ...; every cell of a population has as many{})",
                       Alpha ? "rise time (the alpha function's peak)" : "decay time", max_ports,
                       Alpha ? "" : "; each != tau_m when given, as NEST"),
        parameter_shape::per_cell_list};
    return spec;
}

template <bool Alpha>
std::vector<parameter_spec> all_specs() {
    auto specs = model_parameters::specs_of(table<Alpha>());
    specs.insert(specs.begin() + 6, tau_syn_spec<Alpha>()); // after V_reset, where iaf_psc_* have their tau_syn
    return specs;
}

const std::vector<state_spec> state_table = {
    {"V_m", "mV", "membrane potential"},
    {"I_syn", "pA", "the sum of the ports' synaptic currents (NEST's I_syn)", false},
    {"I_syn", "pA", "synaptic current of each receptor port: I_syn_1, I_syn_2, ... (NEST's names)", false, true},
};

template <bool Alpha>
std::vector<std::string> checkpoint_names() {
    std::vector<std::string> names = {"V"};
    for (std::uint32_t k = 1; k <= max_ports; ++k) names.push_back(spikex::format("I_syn_{}", k));
    if (Alpha)
        for (std::uint32_t k = 1; k <= max_ports; ++k) names.push_back(spikex::format("dI_syn_{}", k));
    names.insert(names.end(), {"I_stim", "r", "stim_active"});
    return names;
}

// A cell's tau_syn list (NEST's default, one port, when not given), checked as NEST does.
template <bool Alpha>
std::vector<double> tau_syn_of(const population_spec& pop, gid_type gid, double tau_m) {
    const char* model_name = name_of<Alpha>();
    const auto it = pop.lists.find("tau_syn");
    const bool given = it != pop.lists.end() && !it->second.offsets.empty();
    std::vector<double> taus = given ? pop.list_of("tau_syn", gid) : std::vector<double>{nest_default_tau_syn};
    if (taus.empty() || taus.size() > max_ports) {
        throw user_error(spikex::format("{} parameter tau_syn (cell {}): {} values: must have 1 to {}, one per "
                                        "receptor port",
                                        model_name, gid, taus.size(), max_ports));
    }
    for (double tau: taus) {
        try {
            model_parameters::check(model_name, tau_syn_spec<Alpha>(), tau);
        } catch (const user_error& e) {
            throw user_error(spikex::format("{} (cell {})", e.what(), gid));
        }
        // NEST checks this when tau_syn is set: its default [2.0] with tau_m = 2 is
        // allowed (the propagator takes its limit), a given tau_syn equal to tau_m is not.
        if (Alpha || !given) continue;
        model_parameters::require(tau != tau_m, model_name, "tau_syn", tau,
                                  spikex::format("must differ from tau_m = {} ms (cell {}; NEST's rule for this model)",
                                                 model_parameters::number(tau_m), gid));
    }
    return taus;
}

template <bool Alpha>
std::uint32_t ports_of(const population_spec& pop) {
    const auto values = cell_parameters(pop, pop.first, 0);
    const auto p = model_parameters::parse(name_of<Alpha>(), table<Alpha>(), values);
    return static_cast<std::uint32_t>(tau_syn_of<Alpha>(pop, pop.first, p.tau_m).size());
}

// Everything end_step needs of one parameter set (the numbers and the tau_syn list). exp:
// P_VV = P22 = exp(-h/tau_m), P_IV = P20; per port P11 (decay), P21 (I -> V). alpha (NEST's
// names): P_VV = P33, P_IV = P30; per port P11 = P22 (decay), P21 = h P11, P31, P32, and
// the jump e/tau_syn of dI per unit weight.
struct parameter_set {
    double P_VV, P_IV, I_e, E_L, theta, V_reset, V_min;
    std::int32_t refractory_steps;
    std::vector<double> P11, P21, P31, P32, jump; // per port
};

template <bool Alpha>
class multisynapse_group final: public cell_group {
    static constexpr const char* model_name = Alpha ? "iaf_psc_alpha_multisynapse" : "iaf_psc_exp_multisynapse";

public:
    multisynapse_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        first_(first_local), n_(gids.size()) {
        const double h = spec.dt_ms;
        std::map<std::vector<double>, std::uint32_t> known;
        set_of_.resize(n_);
        V_.resize(n_);
        const population_spec* last = nullptr;
        std::uint32_t ports = 0; // of the population of the cell before
        for (std::size_t i = 0; i < n_; ++i) {
            const population_spec& pop = spec.population_of(gids[i]);
            const parameters p = parse(cell_parameters(pop, gids[i], spec.seed));
            const auto taus = tau_syn_of<Alpha>(pop, gids[i], p.tau_m);
            if (&pop != last) ports = ports_of<Alpha>(pop);
            last = &pop;
            if (taus.size() != ports) {
                throw user_error(spikex::format("{} parameter tau_syn (cell {}): {} values where the population's "
                                                "first cell has {}: every cell of a population has as many ports",
                                                model_name, gids[i], taus.size(), ports));
            }
            std::vector<double> key = {p.E_L, p.C_m, p.tau_m, p.t_ref, p.V_th, p.V_reset, p.I_e, p.V_min};
            key.insert(key.end(), taus.begin(), taus.end());
            auto [it, inserted] = known.emplace(key, static_cast<std::uint32_t>(sets_.size()));
            if (inserted) sets_.push_back(make_set(p, taus, h));
            set_of_[i] = it->second;
            V_[i] = p.V_m - p.E_L;
        }
        I_.assign(n_ * max_ports, 0.0);
        if (Alpha) dI_.assign(n_ * max_ports, 0.0);
        input_.assign(n_ * max_ports, 0.0);
        refractory_.assign(n_, 0);
    }

    void begin_step(step_type, spike_output&) override {}

    void deliver(step_type, const local_index*, const double*, std::uint32_t, std::uint32_t, spike_output&) override {
        throw internal_error(spikex::format("{} takes spikes through receptor ports only", model_name));
    }

    void deliver_port(std::uint32_t port, step_type, const local_index* targets, const double* weights,
                      std::uint32_t begin, std::uint32_t end, spike_output&) override {
        for (std::uint32_t c = begin; c < end; ++c)
            input_[std::size_t(at(targets[c])) * max_ports + port - 1] += weights[c];
    }

    void deliver_current(step_type, local_index cell, double current) override { stim_.add(n_, at(cell), current); }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        for (std::size_t i = 0; i < n_; ++i) {
            const parameter_set& s = sets_[set_of_[i]];
            double* I = &I_[i * max_ports];
            double* input = &input_[i * max_ports];
            const std::size_t ports = s.P11.size();
            const double I_stim = stim ? stim[i] : 0.0;
            if (refractory_[i] == 0) {
                if constexpr (Alpha) {
                    const double* dI = &dI_[i * max_ports];
                    double v = s.P_IV * (I_stim + s.I_e) + s.P_VV * V_[i];
                    for (std::size_t k = 0; k < ports; ++k) v += s.P31[k] * dI[k] + s.P32[k] * I[k];
                    V_[i] = v < s.V_min ? s.V_min : v;
                } else {
                    double v = V_[i] * s.P_VV + (s.I_e + I_stim) * s.P_IV;
                    for (std::size_t k = 0; k < ports; ++k) v += s.P21[k] * I[k];
                    V_[i] = v;
                }
            } else {
                --refractory_[i];
            }
            for (std::size_t k = 0; k < ports; ++k) {
                if constexpr (Alpha) {
                    double* dI = &dI_[i * max_ports];
                    I[k] = s.P21[k] * dI[k] + s.P11[k] * I[k];
                    dI[k] *= s.P11[k];
                    dI[k] += s.jump[k] * input[k];
                } else {
                    I[k] = I[k] * s.P11[k] + input[k];
                }
                input[k] = 0.0;
            }
            if (V_[i] >= s.theta) {
                refractory_[i] = s.refractory_steps;
                V_[i] = s.V_reset;
                out.emit(first_ + static_cast<local_index>(i), n);
            }
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = at(cell);
        const parameter_set& s = sets_[set_of_[i]];
        if (variable == "V_m") return V_[i] + s.E_L;
        const double* I = &I_[i * max_ports];
        if (variable == "I_syn") return std::accumulate(I, I + s.P11.size(), 0.0); // NEST's sum, in port order
        const std::size_t port = port_named(variable, s.P11.size());
        if (port == 0) model_parameters::unknown_state(model_name, state_table, variable);
        return I[port - 1];
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = at(cell);
        if (variable == "V_m") {
            V_[i] = value - sets_[set_of_[i]].E_L;
        } else if (variable == "I_syn" || port_named(variable, sets_[set_of_[i]].P11.size()) != 0) {
            throw user_error(spikex::format("{}: state variable \"{}\" cannot be set: NEST sets V_m of this model, "
                                            "its currents follow the inputs",
                                            model_name, variable));
        } else {
            cell_group::set_state(cell, variable, value);
        }
    }

    std::size_t bytes() const override {
        std::size_t sets = 0;
        for (const auto& s: sets_)
            sets += sizeof(s) +
                    (s.P11.capacity() + s.P21.capacity() + s.P31.capacity() + s.P32.capacity() + s.jump.capacity()) *
                        sizeof(double);
        return (V_.capacity() + I_.capacity() + dI_.capacity() + input_.capacity()) * sizeof(double) +
               (refractory_.capacity() + set_of_.capacity()) * sizeof(std::int32_t) + sets + stim_.bytes();
    }

    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = at(cell);
        v[0] = V_[i];
        std::copy_n(&I_[i * max_ports], max_ports, v + 1);
        if (Alpha) std::copy_n(&dI_[i * max_ports], max_ports, v + 1 + max_ports);
        double* rest = v + 1 + (Alpha ? 2 : 1) * max_ports;
        rest[0] = stim_.stim(i);
        rest[1] = refractory_[i];
        rest[2] = stim_.active() ? 1.0 : 0.0;
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = at(cell);
        V_[i] = v[0];
        // a port the cell no longer has (its list shortened between runs) keeps nothing
        const std::size_t ports = sets_[set_of_[i]].P11.size();
        for (std::size_t k = 0; k < max_ports; ++k) {
            I_[i * max_ports + k] = k < ports ? v[1 + k] : 0.0;
            if (Alpha) dI_[i * max_ports + k] = k < ports ? v[1 + max_ports + k] : 0.0;
        }
        const double* rest = v + 1 + (Alpha ? 2 : 1) * max_ports;
        refractory_[i] = static_cast<std::int32_t>(rest[1]);
        if (rest[2] != 0) stim_.restore(n_, i, rest[0]);
    }

private:
    static parameters parse(const std::map<std::string, double>& values) {
        const parameters p = model_parameters::parse(model_name, table<Alpha>(), values);
        model_parameters::require(p.V_reset < p.V_th, model_name, "V_reset", p.V_reset,
                                  spikex::format("must be < V_th = {} mV", model_parameters::number(p.V_th)));
        return p;
    }

    static parameter_set make_set(const parameters& p, const std::vector<double>& taus, double h) {
        parameter_set s;
        s.P_VV = std::exp(-h / p.tau_m);
        // NEST's expressions: exp P20 = tau_m/C*(1 - P22), alpha P30 = 1/C*(1 - P33)*tau_m
        s.P_IV = Alpha ? 1 / p.C_m * (1 - s.P_VV) * p.tau_m : p.tau_m / p.C_m * (1.0 - s.P_VV);
        s.I_e = p.I_e;
        s.E_L = p.E_L;
        s.theta = p.V_th - p.E_L;
        s.V_reset = p.V_reset - p.E_L;
        s.V_min = p.V_min - p.E_L;
        s.refractory_steps = iaf_integration::checked_refractory_steps(model_name, p.t_ref, h);
        for (double tau: taus) {
            s.P11.push_back(std::exp(-h / tau));
            if (Alpha) {
                s.P21.push_back(h * s.P11.back());
                const auto [P31, P32] = iaf_integration::alpha_current_propagators(tau, p.tau_m, p.C_m, h);
                s.P31.push_back(P31);
                s.P32.push_back(P32);
                s.jump.push_back(1.0 * std::numbers::e / tau);
            } else {
                s.P21.push_back(iaf_integration::exp_current_propagator(tau, p.tau_m, p.C_m, h));
            }
        }
        return s;
    }

    // "I_syn_<k>" -> k when the cell has port k, else 0.
    static std::size_t port_named(const std::string& variable, std::size_t ports) {
        const std::string prefix = "I_syn_";
        if (variable.size() <= prefix.size() || variable.compare(0, prefix.size(), prefix) != 0) return 0;
        const std::string digits = variable.substr(prefix.size());
        if (digits.size() > 3 ||
            !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return 0;
        const std::size_t k = std::stoul(digits);
        return k >= 1 && k <= ports ? k : 0;
    }

    std::size_t at(local_index cell) const { return cell - first_; }

    local_index first_;
    std::size_t n_;
    std::vector<parameter_set> sets_;
    std::vector<std::uint32_t> set_of_;
    std::vector<double> V_;                // relative to E_L
    std::vector<double> I_, dI_, input_;   // max_ports per cell: currents (alpha: and dI), this step's input
    std::vector<std::int32_t> refractory_; // r: refractory steps left
    iaf_step::current_buffer stim_;        // current inputs (I_stim) [pA]
};

template <bool Alpha>
model_entry entry() {
    const char* model_name = name_of<Alpha>();
    model_entry e;
    e.name = model_name;
    e.kind = model_kind::neuron;
    e.description = Alpha ? "NEST's leaky integrate-and-fire neuron with one alpha-shaped current per receptor port "
                            "(exact integration), weights in pA"
                          : "NEST's leaky integrate-and-fire neuron with one exponentially decaying current per "
                            "receptor port (exact integration), weights in pA";
    e.parameters = all_specs<Alpha>();
    e.state = state_table;
    e.receptors = Alpha ? "spikes through receptor ports 1, 2, ... (one per tau_syn value), a weight of either sign "
                          "the peak of that port's alpha current (pA); currents (pA)"
                        : "spikes through receptor ports 1, 2, ... (one per tau_syn value), a weight of either sign "
                          "adding to that port's current (pA); currents (pA)";
    e.integration = "exact (NEST's propagators)";
    e.nest_model = model_name;
    e.pynn_types = {}; // PyNN reaches it through PointNeuron(LIF, CurrExpPostSynapticResponse...)
    e.accepts_current = true;
    e.checkpoint_state = checkpoint_names<Alpha>();
    e.docs_page = spikex::format("docs/models/{}.md", model_name);
    e.receptor_ports = ports_of<Alpha>;
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids,
                local_index first_local) -> std::unique_ptr<cell_group> {
        model_parameters::require_positive_dt(name_of<Alpha>(), spec.dt_ms);
        return std::make_unique<multisynapse_group<Alpha>>(spec, local_gids, first_local);
    };
    return e;
}

} // namespace

model_entry iaf_psc_exp_multisynapse_model() { return entry<false>(); }
model_entry iaf_psc_alpha_multisynapse_model() { return entry<true>(); }

} // namespace spikex
