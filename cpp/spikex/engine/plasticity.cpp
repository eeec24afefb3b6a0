#include "spikex/engine/plasticity.hpp"

#include <cmath>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {

plasticity::plasticity(const network_spec& spec, const std::vector<gid_type>& local_gids,
                       const connection_table& table):
    dt_ms_(spec.dt_ms), max_delay_(table.max_delay()) {
    if (!table.has_plastic()) return;
    rule_.resize(spec.synapses.size());
    for (std::size_t s = 1; s < spec.synapses.size(); ++s) {
        const synapse_entry& entry = find_synapse(spec.synapses[s].name);
        if (entry.make_rule) rule_[s] = entry.make_rule(spec.synapses[s].params, spec.dt_ms);
    }
    short_term_type_.assign(spec.synapses.size(), false);
    for (std::size_t s = 1; s < spec.synapses.size(); ++s) {
        short_term_type_[s] =
            std::visit([](const auto& rule) { return is_short_term_rule<std::decay_t<decltype(rule)>>; }, rule_[s]);
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
    for (std::uint32_t g = 0; g < table.group_count(); ++g) {
        const std::uint16_t s = table.group(g).synapse;
        if (s == 0) continue;
        if (short_term_type_[s]) {
            // Every group of the type starts from the parameters' initial state.
            if (short_term_.empty()) short_term_.assign(table.group_count(), {});
            short_term_[g] = std::visit(
                [](const auto& rule) {
                    if constexpr (is_short_term_rule<std::decay_t<decltype(rule)>>) return rule.initial();
                    return short_term_state{};
                },
                rule_[s]);
        }
        const auto [low, high] = find_synapse(spec.synapses[s].name).weight_range(spec.synapses[s].params);
        for (auto c = table.group(g).begin; c < table.group_end_connection(g); ++c) {
            const double w = table.weights()[c];
            if (!(w >= low && w <= high)) {
                throw user_error(spikex::format("{}: weight = {}: must be in [{}, {}]", spec.synapses[s].name,
                                                model_parameters::number(w), model_parameters::number(low),
                                                model_parameters::number(high)));
            }
            if (short_term_type_[s]) continue; // reads no postsynaptic trace
            const local_index target = table.targets()[c];
            if (std::isnan(tau_minus_[target])) {
                throw user_error(spikex::format("{}: cell {} is of model \"{}\", which has no tau_minus (a plastic "
                                                "synapse needs the postsynaptic trace of a neuron)",
                                                spec.synapses[s].name, local_gids[target],
                                                spec.population_of(local_gids[target]).model));
            }
            ++incoming_[target];
        }
    }
}

void plasticity::update_weights(connection_table& table, std::uint32_t g, std::uint32_t begin, std::uint32_t end,
                                step_type n) {
    const delay_group& group = table.group(g);
    const step_type delay = group.delay;
    const step_type stamp = n - delay + 1; // emitted at n - delay
    const local_index* targets = table.targets();
    double* weights = table.mutable_weights();
    // One dispatch per group: the loop is compiled for each rule.
    auto update = [&](const auto& rule, auto weight_of) {
        // Targets ascend within a group, so post_ is walked in order; the histories'
        // storage is not, and is fetched a few connections ahead.
        constexpr std::uint32_t ahead = 8;
        for (auto c = begin; c < end; ++c) {
            if (c + ahead < end) post_[targets[c + ahead]].prefetch();
            const local_index i = targets[c];
            weights[c] = weight_of(weights[c], pre_[g], stamp, delay, post_[i], rule, tau_minus_[i]);
        }
    };
    const plastic_rule& rule = rule_[group.synapse];
    if (const auto* pl = std::get_if<stdp_pl_rule>(&rule)) {
        update(*pl, [](auto&&... a) { return stdp_pl_weight(a...); });
    } else if (const auto* stdp = std::get_if<stdp_rule>(&rule)) {
        update(*stdp, [](auto&&... a) { return stdp_weight(a...); });
    } // short-term types keep their weights
}

void plasticity::advance(const connection_table& table, std::uint32_t g, step_type n) {
    const delay_group& group = table.group(g);
    std::visit(
        [&](const auto& rule) {
            if constexpr (!is_short_term_rule<std::decay_t<decltype(rule)>>) {
                stdp_pre_advance(pre_[g], n - step_type(group.delay) + 1, dt_ms_, rule.tau_plus());
            }
        },
        rule_[group.synapse]);
}

void plasticity::arrive(const connection_table& table, std::uint32_t g, step_type n) {
    const delay_group& group = table.group(g);
    if (!short_term(group)) return;
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
        },
        rule_[group.synapse]);
}

void plasticity::post_spike(local_index cell, step_type n) {
    if (!active() || incoming_[cell] == 0) return;
    post_[cell].record(n + 1, dt_ms_, tau_minus_[cell], incoming_[cell], max_delay_);
}

std::size_t plasticity::bytes() const {
    std::size_t total = pre_.capacity() * sizeof(stdp_pre_state) + post_.capacity() * sizeof(post_history) +
                        tau_minus_.capacity() * sizeof(double) + incoming_.capacity() * sizeof(std::uint32_t) +
                        rule_.capacity() * sizeof(plastic_rule) + short_term_.capacity() * sizeof(short_term_state) +
                        short_term_type_.capacity() / 8;
    for (const auto& r: rule_) {
        total += std::visit(
            [](const auto& rule) -> std::size_t {
                if constexpr (is_short_term_rule<std::decay_t<decltype(rule)>>)
                    return 0;
                else
                    return rule.plus_decay.bytes();
            },
            r);
    }
    for (const auto& h: post_) total += h.bytes();
    return total;
}

} // namespace spikex
