#include "spikex/engine/plasticity.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

const std::vector<std::string>& synapse_names() {
    static const std::vector<std::string> names = {"static", "stdp_pl_synapse_hom"};
    return names;
}

void validate_synapse(const synapse_spec& synapse) {
    if (synapse.name == "static") {
        if (!synapse.params.empty()) {
            throw user_error(
                spikex::format("synapse \"static\" takes no parameters, got \"{}\"", synapse.params.begin()->first));
        }
    } else if (synapse.name == "stdp_pl_synapse_hom") {
        parse_stdp_pl_parameters(synapse.params);
    } else {
        throw user_error(
            spikex::format("synapse = \"{}\": must be \"static\" or \"stdp_pl_synapse_hom\"", synapse.name));
    }
}

plasticity::plasticity(const network_spec& spec, const std::vector<gid_type>& local_gids,
                       const connection_table& table):
    dt_ms_(spec.dt_ms), max_delay_(table.max_delay()) {
    if (!table.has_plastic()) return;
    rule_.resize(spec.synapses.size());
    for (std::size_t s = 1; s < spec.synapses.size(); ++s) {
        rule_[s] = stdp_pl_rule(parse_stdp_pl_parameters(spec.synapses[s].params), spec.dt_ms);
    }
    pre_.assign(table.group_count(), {});
    post_.resize(local_gids.size());
    incoming_.assign(local_gids.size(), 0);
    tau_minus_.assign(local_gids.size(), 20.0);
    for (local_index i = 0; i < local_gids.size(); ++i) {
        for (const auto& pop: spec.populations) {
            if (local_gids[i] < pop.first || local_gids[i] - pop.first >= pop.size) continue;
            auto it = pop.params.find("tau_minus");
            if (it != pop.params.end()) tau_minus_[i] = cell_parameters(pop, local_gids[i], spec.seed).at("tau_minus");
        }
    }
    for (std::uint32_t g = 0; g < table.group_count(); ++g) {
        if (table.group(g).synapse == 0) continue;
        for (auto c = table.group(g).begin; c < table.group_end_connection(g); ++c) {
            if (table.weights()[c] < 0) {
                throw user_error(spikex::format("stdp_pl_synapse_hom: weight = {:.6f}: plastic weights must be >= 0",
                                                table.weights()[c]));
            }
            ++incoming_[table.targets()[c]];
        }
    }
}

void plasticity::update_weights(connection_table& table, std::uint32_t g, std::uint32_t begin, std::uint32_t end,
                                step_type n) {
    const delay_group& group = table.group(g);
    const step_type delay = group.delay;
    const step_type stamp = n - delay + 1; // emitted at n - delay
    const stdp_pl_rule& rule = rule_[group.synapse];
    const local_index* targets = table.targets();
    double* weights = table.mutable_weights();
    // Targets ascend within a group, so post_ is walked in order; the histories' storage
    // is not, and is fetched a few connections ahead.
    constexpr std::uint32_t ahead = 8;
    for (auto c = begin; c < end; ++c) {
        if (c + ahead < end) post_[targets[c + ahead]].prefetch();
        const local_index i = targets[c];
        weights[c] = stdp_pl_weight(weights[c], pre_[g], stamp, delay, post_[i], rule, tau_minus_[i]);
    }
}

void plasticity::advance(const connection_table& table, std::uint32_t g, step_type n) {
    const delay_group& group = table.group(g);
    stdp_pl_advance(pre_[g], n - step_type(group.delay) + 1, rule_[group.synapse]);
}

void plasticity::post_spike(local_index cell, step_type n) {
    if (!active() || incoming_[cell] == 0) return;
    post_[cell].record(n + 1, dt_ms_, tau_minus_[cell], incoming_[cell], max_delay_);
}

std::size_t plasticity::bytes() const {
    std::size_t total = pre_.capacity() * sizeof(stdp_pre_state) + post_.capacity() * sizeof(post_history) +
                        tau_minus_.capacity() * sizeof(double) + incoming_.capacity() * sizeof(std::uint32_t) +
                        rule_.capacity() * sizeof(stdp_pl_rule);
    for (const auto& r: rule_) total += r.plus_decay.bytes();
    for (const auto& h: post_) total += h.bytes();
    return total;
}

} // namespace spikex
