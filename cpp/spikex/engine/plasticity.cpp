#include "spikex/engine/plasticity.hpp"

#include <cmath>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/for_each_thread.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace {

// The weights of the plastic connections [from, to) of one group that a spike reaches, their
// targets base + targets[c] ascending. Everything the loop reads comes as a plain value or
// pointer: reached through the caller's captures, each was loaded again after every weight
// store (a double the compiler could not tell apart from them). The histories' storage is
// not fetched ahead: the test whether a history was empty, a branch per connection that no
// predictor learns, cost more than the fetch saved (the STDP hpc_benchmark's presim took
// 1.13 s on one core with it, 0.89 s without).
template <typename Target, typename Facilitate, typename Depress>
void update_piece(const Target* targets, local_index base, std::uint32_t from, std::uint32_t to, double* weight,
                  post_history* post, const double* tau_minus, step_type after, Facilitate&& facilitate,
                  Depress&& depress) {
    for (std::uint32_t c = from; c < to; ++c) {
        const local_index i = base + targets[c];
        double w = weight[c];
        if (post[i].spiked_after(after)) w = facilitate(w, post[i]);
        weight[c] = depress(w, post[i], tau_minus[i]);
    }
}

} // namespace

std::vector<char> plasticity::indexed_synapse_types(const network_spec& spec) {
    std::vector<char> indexed(spec.synapses.size(), 0);
    bool any = false;
    for (std::size_t s = 1; s < spec.synapses.size(); ++s) {
        const synapse_entry& entry = find_synapse(spec.synapses[s].name);
        if (!entry.make_rule) continue;
        indexed[s] = std::visit([](const auto& rule) { return is_stochastic_rule<std::decay_t<decltype(rule)>>; },
                                entry.make_rule(spec.synapses[s].params, spec.dt_ms));
        any = any || indexed[s];
    }
    return any ? indexed : std::vector<char>{};
}

plasticity::plasticity(const network_spec& spec, const std::vector<gid_type>& local_gids, const connection_table& table,
                       std::vector<std::uint32_t> input_index, const std::vector<double>& starting_weight):
    dt_ms_(spec.dt_ms), seed_(spec.seed), max_delay_(table.max_delay()) {
    if (!table.has_plastic()) return;
    rule_.resize(spec.synapses.size());
    kind_.assign(spec.synapses.size(), kind::none);
    for (std::size_t s = 1; s < spec.synapses.size(); ++s) {
        const synapse_entry& entry = find_synapse(spec.synapses[s].name);
        if (!entry.make_rule) continue;
        rule_[s] = entry.make_rule(spec.synapses[s].params, spec.dt_ms);
        kind_[s] = std::visit(
            [](const auto& rule) {
                using rule_type = std::decay_t<decltype(rule)>;
                if constexpr (is_short_term_rule<rule_type>) return kind::short_term;
                if constexpr (std::is_same_v<rule_type, bernoulli_rule>) return kind::bernoulli;
                if constexpr (std::is_same_v<rule_type, quantal_stp_rule>) return kind::quantal;
                return kind::stdp;
            },
            rule_[s]);
    }
    pre_.assign(table.group_count(), {});
    post_.resize(local_gids.size());
    incoming_.assign(local_gids.size(), 0);
    // tau_minus is a parameter of the postsynaptic neuron (NEST's ArchivingNode): its
    // model's default unless given; NaN for a model without one (no STDP onto it).
    tau_minus_.assign(local_gids.size(), std::numeric_limits<double>::quiet_NaN());
    for (local_index i = 0; i < local_gids.size(); ++i) {
        const population_spec& pop = spec.population_of(local_gids[i]);
        const parameter_spec* tau_minus = find_model(pop.model).parameter("tau_minus");
        if (!tau_minus) continue;
        tau_minus_[i] = pop.params.count("tau_minus") ? cell_parameters(pop, local_gids[i], spec.seed).at("tau_minus")
                                                      : tau_minus->default_value;
    }
    std::uint32_t stochastic_connections = 0;
    for (std::uint32_t g = 0; g < table.group_count(); ++g) {
        const std::uint16_t s = table.group(g).synapse;
        if (s == 0) continue;
        const kind k = kind_[s];
        if (k == kind::short_term || k == kind::quantal) {
            // Every group of the type starts from the parameters' initial state.
            if (short_term_.empty()) short_term_.assign(table.group_count(), {});
            short_term_[g] = std::visit(
                [](const auto& rule) {
                    using rule_type = std::decay_t<decltype(rule)>;
                    if constexpr (is_short_term_rule<rule_type> || std::is_same_v<rule_type, quantal_stp_rule>)
                        return rule.initial();
                    return short_term_state{};
                },
                rule_[s]);
        }
        if (k == kind::bernoulli || k == kind::quantal) {
            // Per connection, in table order: its index among its target's inputs (the table's, taken in the same
            // order) and its available sites, which start at a.
            if (stochastic_begin_.empty()) {
                stochastic_begin_.assign(table.group_count(), 0);
                gid_ = local_gids;
            }
            const std::uint32_t size = table.group_end_connection(g) - table.group(g).begin;
            stochastic_begin_[g] = stochastic_connections;
            available_.insert(available_.end(), size,
                              k == kind::quantal ? std::get<quantal_stp_rule>(rule_[s]).available : 0u);
            stochastic_connections += size;
        }
    }
    check_and_count_inputs(spec, local_gids, table, starting_weight);
    if (input_index.size() != stochastic_connections) {
        throw internal_error(spikex::format("plasticity: {} connection indices for {} stochastic connections",
                                            input_index.size(), stochastic_connections));
    }
    input_index_ = std::move(input_index);
}

void plasticity::check_and_count_inputs(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                        const connection_table& table, const std::vector<double>& starting_weight) {
    std::vector<std::pair<double, double>> range(spec.synapses.size()); // each type's allowed weights
    for (std::size_t s = 1; s < spec.synapses.size(); ++s)
        range[s] = find_synapse(spec.synapses[s].name).weight_range(spec.synapses[s].params);
    const auto weight_in_range = [&](std::uint16_t s, double w) { return w >= range[s].first && w <= range[s].second; };
    // The plastic connections in one pass on the table's threads, each over the groups that begin in its share of them
    // (the STDP hpc_benchmark reads 81 M targets here; its weights all start from one value per source,
    // checked once per group instead of reading its 648 MB of weights back). A thread counts its inputs apart and
    // notes the first group it finds at fault; the message is then that of the first such group in table order.
    const unsigned T = table.threads();
    const auto groups = static_cast<std::uint32_t>(table.group_count());
    std::vector<std::vector<std::uint32_t>> counted(T > 1 ? T - 1 : 0);
    std::vector<std::uint32_t> first_fault(T, groups);
    for_each_thread(T, [&](unsigned t) {
        std::vector<std::uint32_t>& incoming = t == 0 ? incoming_ : counted[t - 1];
        if (t > 0) incoming.assign(local_gids.size(), 0);
        for (std::uint32_t g = table.plastic_share_first_group(t, T), last = table.plastic_share_first_group(t + 1, T);
             g < last; ++g) {
            const std::uint16_t s = table.group(g).synapse;
            if (s == 0) continue;
            const std::uint32_t begin = table.group(g).begin, end = table.group_end_connection(g);
            bool fault = false;
            if (table.shares_weight(g)) {
                fault = !weight_in_range(s, table.group_weight(g));
            } else if (g < starting_weight.size() && !std::isnan(starting_weight[g])) {
                fault = !weight_in_range(s, starting_weight[g]); // every weight of the group is this one
            } else {
                const double* weight = table.weights_of_group(g);
                for (std::uint32_t j = 0; j < end - begin; ++j) fault |= !weight_in_range(s, weight[j]);
            }
            if (kind_[s] == kind::stdp) { // the rule reads its targets' traces
                table.for_target_pieces(begin, end, [&](const auto* targets, local_index base, auto from, auto to) {
                    for (auto c = from; c < to; ++c) {
                        const local_index target = base + targets[c];
                        fault |= std::isnan(tau_minus_[target]);
                        ++incoming[target];
                    }
                });
            }
            if (fault) {
                first_fault[t] = g;
                return;
            }
        }
    });
    for (const auto& more: counted)
        for (std::size_t i = 0; i < more.size(); ++i) incoming_[i] += more[i];
    const std::uint32_t g = *std::min_element(first_fault.begin(), first_fault.end());
    if (g == groups) return;
    // The message, as a check group by group would have given it: the weight first, then the targets.
    const std::uint16_t s = table.group(g).synapse;
    const std::uint32_t begin = table.group(g).begin, end = table.group_end_connection(g);
    for (auto c = begin; c < end; ++c) {
        const double w = table.weight_of(g, c);
        if (!weight_in_range(s, w)) {
            throw user_error(spikex::format("{}: weight = {}: must be in [{}, {}]", spec.synapses[s].name,
                                            model_parameters::number(w), model_parameters::number(range[s].first),
                                            model_parameters::number(range[s].second)));
        }
    }
    target_reader target_of(table);
    for (auto c = begin; c < end; ++c) {
        const local_index target = target_of(c);
        if (std::isnan(tau_minus_[target])) {
            throw user_error(spikex::format("{}: cell {} is of model \"{}\", which has no tau_minus (a plastic synapse "
                                            "needs the postsynaptic trace of a neuron)",
                                            spec.synapses[s].name, local_gids[target],
                                            spec.population_of(local_gids[target]).model));
        }
    }
    throw internal_error(spikex::format("plasticity: group {} was found at fault, but no weight or target is", g));
}

void plasticity::update_weights(connection_table& table, std::uint32_t g, std::uint32_t begin, std::uint32_t end,
                                step_type n) {
    const delay_group& group = table.group(g);
    const step_type delay = group.delay;
    const step_type stamp = n - delay + 1;               // emitted at n - delay
    double* weights = table.mutable_weights_of_group(g); // connection c's: weights[c - first]
    const std::uint32_t first = group.begin;
    // One dispatch per group: the loop is compiled for each rule and target width. The
    // facilitation (a window of the target's spikes, a power) is out of line: inlined, it
    // left the common path of a connection, its depression, short of registers.
    const stdp_pre_state pre = pre_[g];
    const step_type after = pre.last_stamp - delay; // facilitating spikes come after this
    auto update = [&](const auto& rule, auto& power, auto facilitate, auto depress) {
        const auto facilitate_one = [&](double w, post_history& post) __attribute__((noinline)) {
            return facilitate(w, pre, stamp, delay, post, rule, power);
        };
        table.for_target_pieces(begin, end, [&](const auto* targets, local_index base, auto from, auto to) {
            update_piece(targets, base, from, to, weights - first, post_.data(), tau_minus_.data(), after,
                         facilitate_one, depress);
        });
    };
    const plastic_rule& rule = rule_[group.synapse];
    if (const auto* pl = std::get_if<stdp_pl_rule>(&rule)) {
        repeated_power power(pl->parameters.mu);
        update(
            *pl, power, [](auto&&... a) { return stdp_pl_facilitate(a...); }, stdp_pl_depression(*pl, stamp - delay));
    } else if (const auto* stdp = std::get_if<stdp_rule>(&rule)) {
        stdp_powers power(stdp->parameters);
        update(
            *stdp, power, [](auto&&... a) { return stdp_facilitate(a...); },
            [&](double w, post_history& post, double tau_minus) {
                return stdp_depress(w, stamp, delay, post, *stdp, tau_minus, power);
            });
    } // short-term and stochastic types keep their weights
}

void plasticity::advance(const connection_table& table, std::uint32_t g, step_type n) {
    const delay_group& group = table.group(g);
    std::visit(
        [&](const auto& rule) {
            if constexpr (is_stdp_rule<std::decay_t<decltype(rule)>>) {
                stdp_pre_advance(pre_[g], n - step_type(group.delay) + 1, dt_ms_, rule.tau_plus());
            }
        },
        rule_[group.synapse]);
}

void plasticity::arrive(const connection_table& table, std::uint32_t g, step_type n) {
    const delay_group& group = table.group(g);
    if (!group_state(group)) return;
    const step_type stamp = n - step_type(group.delay) + 1; // emitted at n - delay
    short_term_state& state = short_term_[g];
    // A source fires at most once a step and a group has one delay: its spikes arrive in
    // the order of their stamps, once each.
    if (stamp <= state.last_stamp) {
        throw internal_error(
            spikex::format("short-term plasticity: group {} got stamp {} after {}", g, stamp, state.last_stamp));
    }
    std::visit(
        [&](const auto& rule) {
            using rule_type = std::decay_t<decltype(rule)>;
            if constexpr (std::is_same_v<rule_type, tsodyks_rule>) tsodyks_spike(state, stamp, rule);
            if constexpr (std::is_same_v<rule_type, tsodyks2_rule>) tsodyks2_spike(state, stamp, rule);
            if constexpr (std::is_same_v<rule_type, quantal_stp_rule>) quantal_stp_arrive(state, stamp, rule);
        },
        rule_[group.synapse]);
}

void plasticity::transmit(const connection_table& table, std::uint32_t g, std::uint32_t begin, std::uint32_t end,
                          step_type n, std::vector<local_index>& targets, std::vector<double>& weights) {
    const delay_group& group = table.group(g);
    const step_type emitted = n - step_type(group.delay);
    const double* weight = table.weights_of_group(g);               // connection c's: weight[c - group.begin]
    const std::uint32_t first = stochastic_begin_[g] - group.begin; // connection c's state: first + c
    const plastic_rule& rule = rule_[group.synapse];
    if (const auto* bernoulli = std::get_if<bernoulli_rule>(&rule)) {
        if (!connection_draws_fit(emitted, 1)) {
            throw simulation_error(
                spikex::format("bernoulli_synapse: step {}: the draws' keys have room for 2^40 steps", emitted));
        }
        target_reader target_of(table);
        for (auto c = begin; c < end; ++c) {
            const local_index target = target_of(c);
            if (bernoulli_transmits(*bernoulli, seed_, gid_[target], input_index_[first + c], emitted)) {
                targets.push_back(target);
                weights.push_back(weight[c - group.begin]);
            }
        }
    } else if (const auto* quantal = std::get_if<quantal_stp_rule>(&rule)) {
        if (!connection_draws_fit(emitted, quantal->sites)) {
            throw simulation_error(
                spikex::format("quantal_stp_synapse: step {}: the draws' keys have room for 2^40 steps", emitted));
        }
        const short_term_state& state = short_term_[g];
        target_reader target_of(table);
        for (auto c = begin; c < end; ++c) {
            const local_index target = target_of(c);
            const std::uint32_t released = quantal_stp_release(available_[first + c], state, *quantal, seed_,
                                                               gid_[target], input_index_[first + c], emitted);
            if (released > 0) {
                targets.push_back(target);
                weights.push_back(double(released) * weight[c - group.begin]); // NEST: n_release * weight
            }
        }
    }
}

void plasticity::post_spike(local_index cell, step_type n) {
    if (!active() || incoming_[cell] == 0) return;
    post_[cell].record(n + 1, dt_ms_, tau_minus_[cell], incoming_[cell], max_delay_);
}

std::size_t plasticity::bytes() const {
    std::size_t total =
        pre_.capacity() * sizeof(stdp_pre_state) + post_.capacity() * sizeof(post_history) +
        tau_minus_.capacity() * sizeof(double) + incoming_.capacity() * sizeof(std::uint32_t) +
        rule_.capacity() * sizeof(plastic_rule) + short_term_.capacity() * sizeof(short_term_state) +
        kind_.capacity() * sizeof(kind) +
        (stochastic_begin_.capacity() + input_index_.capacity() + available_.capacity()) * sizeof(std::uint32_t) +
        gid_.capacity() * sizeof(gid_type);
    for (const auto& r: rule_) {
        total += std::visit(
            [](const auto& rule) -> std::size_t {
                if constexpr (is_stdp_rule<std::decay_t<decltype(rule)>>)
                    return rule.plus_decay.bytes();
                else
                    return 0;
            },
            r);
    }
    for (const auto& h: post_) total += h.bytes();
    return total;
}

} // namespace spikex
