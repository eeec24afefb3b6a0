#include <algorithm>
#include <cmath>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/network/connection_rule_registry.hpp"
#include "spikex/network/rule_check.hpp"
#include "spikex/network/total_number_plan.hpp"

namespace spikex {
namespace {

// Shortest form that reads back as x ("0.1", not "0.10000000000000001").
std::string number(double x) { return spikex::format("{}", x); }

// Whether the two gid ranges share a cell.
bool overlap(gid_type a_first, std::uint32_t a_size, gid_type b_first, std::uint32_t b_size) {
    const std::uint64_t first = std::max(a_first, b_first);
    const std::uint64_t end = std::min(std::uint64_t(a_first) + a_size, std::uint64_t(b_first) + b_size);
    return end > first;
}

std::string distribution_text(const random_distribution& d) {
    if (d.is_constant()) return number(d.value);
    return distribution_name(d.kind);
}

} // namespace

std::string rule_name(connection_rule_kind kind) { return find_connection_rule(kind).name; }

void check_rule(const connection_rule& r, double dt_ms, const std::string& where) {
    auto fail = [&](const std::string& key, const std::string& value, const std::string& allowed) {
        throw user_error(spikex::format("{}: {} = {}: {}", where, key, value, allowed));
    };
    if (r.source_size == 0) fail("sources", "0 cells", "must hold at least one cell");
    if (r.target_size == 0) fail("targets", "0 cells", "must hold at least one cell");
    const bool self_pairs = overlap(r.source_first, r.source_size, r.target_first, r.target_size);
    // Fewest sources a target can choose from (and targets a source, for fixed_outdegree).
    const std::uint32_t sources = r.source_size - (self_pairs && !r.allow_autapses ? 1 : 0);
    const std::uint32_t targets = r.target_size - (self_pairs && !r.allow_autapses ? 1 : 0);
    const char* self_note = self_pairs && !r.allow_autapses ? ", autapses not allowed" : "";
    // `available` = the sources a target (targets a source, pairs) can choose from.
    auto too_many = [&](const std::string& what, std::uint64_t available) {
        if (available == 0) return spikex::format("impossible: there are no {} can choose from{}", what, self_note);
        return spikex::format("must be <= {} without multapses (the {} can choose from{})", available, what, self_note);
    };

    check_distribution(r.weight, where + ": weight");
    check_distribution(r.delay_ms, where + ": delay_ms");
    if (!std::isfinite(r.weight_spread)) fail("weight_spread", number(r.weight_spread), "must be a finite number");
    if (r.weight_spread != 0 && !r.weight.is_constant()) {
        fail("weight_spread", number(r.weight_spread),
             spikex::format("must be 0 when the weight is drawn from a distribution ({})",
                            distribution_name(r.weight.kind)));
    }
    const double lowest = lowest_value(r.delay_ms);
    if (!(lowest >= 0) || delay_steps(lowest, dt_ms) < 1) {
        fail("delay_ms", distribution_text(r.delay_ms),
             spikex::format("every delay must be at least dt_ms = {} (one step), but values down to {} can be "
                            "drawn{}",
                            number(dt_ms), number(lowest),
                            r.delay_ms.is_constant() ? "" : " (use normal_clipped / uniform with low >= dt_ms)"));
    }

    switch (r.kind) {
    case connection_rule_kind::random: {
        // Legacy: distinct sources, never the target itself, whatever the flags.
        const std::uint32_t own = r.source_size - (self_pairs ? 1 : 0);
        const std::uint64_t most = std::uint64_t(r.indegree) + r.indegree_spread / 2;
        if (most > own) {
            fail("indegree", std::to_string(r.indegree),
                 spikex::format("with indegree_spread = {} a target needs up to {} distinct sources but only {} "
                                "exist",
                                r.indegree_spread, most, own));
        }
        break;
    }
    case connection_rule_kind::adjacent:
        if (r.target_first < r.source_first ||
            std::uint64_t(r.target_first) + r.target_size > std::uint64_t(r.source_first) + r.source_size) {
            fail("targets", spikex::format("gids {}..{}", r.target_first, r.target_first + r.target_size - 1),
                 spikex::format("adjacent needs every target inside the sources (gids {}..{})", r.source_first,
                                r.source_first + r.source_size - 1));
        }
        if (r.indegree > r.source_size - 1) {
            fail("indegree", std::to_string(r.indegree),
                 spikex::format("adjacent allows at most sources - 1 = {}", r.source_size - 1));
        }
        break;
    case connection_rule_kind::fixed_indegree:
        if (r.allow_multapses ? (r.indegree > 0 && sources == 0) : r.indegree > sources) {
            fail("indegree", std::to_string(r.indegree), too_many("sources a target", sources));
        }
        break;
    case connection_rule_kind::fixed_outdegree:
        if (r.allow_multapses ? (r.outdegree > 0 && targets == 0) : r.outdegree > targets) {
            fail("outdegree", std::to_string(r.outdegree), too_many("targets a source", targets));
        }
        break;
    case connection_rule_kind::fixed_total_number: {
        const std::uint64_t pairs = allowed_pairs(r, 0, r.target_size);
        if (r.allow_multapses ? (r.total_number > 0 && pairs == 0) : r.total_number > pairs) {
            fail("total_number", std::to_string(r.total_number), too_many("(source, target) pairs", pairs));
        }
        break;
    }
    case connection_rule_kind::pairwise_bernoulli:
        if (!(r.probability >= 0 && r.probability <= 1)) {
            fail("probability", number(r.probability), "must lie in [0, 1]");
        }
        break;
    case connection_rule_kind::one_to_one:
        if (r.source_size != r.target_size) {
            fail("targets", spikex::format("{} cells", r.target_size),
                 spikex::format("one_to_one needs as many targets as sources ({})", r.source_size));
        }
        break;
    case connection_rule_kind::all_to_all:
        break;
    }
}

} // namespace spikex
