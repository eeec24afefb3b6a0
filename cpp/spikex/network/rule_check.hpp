#pragma once
// What a connection rule must satisfy before anything is drawn (the bindings call this at
// connect time; the rule drawer again when the network is built). Every problem is one
// user_error line: "<where>: <key> = <value>: <what is allowed>".
#include <string>

#include "spikex/network/network_spec.hpp"

namespace spikex {

// The rule's name as users write it ("fixed_indegree", ...).
std::string rule_name(connection_rule_kind kind);

// Impossible counts (fixed_indegree / fixed_outdegree without multapses and more than the
// available cells, or any count with none available; fixed_total_number without
// multapses and more than the allowed pairs; random / adjacent beyond the other cells),
// one_to_one with unequal sizes, a probability outside [0, 1], an impossible weight or
// delay distribution, weight_spread with a weight distribution, a delay that can round
// to less than one step of dt_ms.
void check_rule(const connection_rule& rule, double dt_ms, const std::string& where);

} // namespace spikex
