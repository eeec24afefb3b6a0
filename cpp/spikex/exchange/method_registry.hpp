#pragma once
// The exchange-method registry: the one place that knows every method. Each method file
// builds its own entry (name, sentence, capabilities, options, declared variants, factory,
// dry-run counting rule, cost formula, docs page); exchange_registry.cpp lists the entries,
// one line each. Everything else asks the registry: the engine (factory, capabilities),
// the dry run (counting rule), the Python package (method list, [exchange] keys and their
// validation, CLI help, docs/user/config.md, the time model's formula by name) and the
// conformance suite (tests/mpi/test_conformance.cpp, tests/python/exchange/), which runs
// every method and every declared variant.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spikex/exchange/method_options.hpp"
#include "spikex/exchange/spike_exchange.hpp"

namespace spikex {

struct count_view; // dryrun/exchange_counts.hpp

// What a method does, as the rest of the code needs to know it (instead of testing names).
// Sub-intervals and phases are options (a method that has them declares them).
struct method_capabilities {
    bool broadcast = false;           // every rank receives every spike (source-addressed collective)
    bool target_addressed = false;    // can use the creation-order connection layout
    bool point_to_point = false;      // sends at emission, conservation loop (times `send`)
    bool presynaptic_targets = false; // builds presynaptic target tables with one Alltoall
    bool rma_windows = false;         // one-sided MPI windows
    bool persistent_requests = false; // a persistent request per (cell, target rank)
    bool process_grid = false;        // routes through a logical process grid
};

// A set of option values the conformance suite runs besides the defaults, e.g.
// multisend "subintervals=2,phases=2".
struct method_variant {
    option_values values;
};

struct method_entry {
    std::string name;
    std::string description; // one sentence with the paper section
    method_capabilities capabilities;
    std::vector<option_spec> options; // the method's own [exchange] keys
    std::vector<method_variant> variants;
    // Builds the method for validated options (option_reader over `options`).
    std::function<std::unique_ptr<spike_exchange>(const option_reader&)> make;
    // Dry run: counts what the method would send on a virtual partition (dryrun/).
    std::function<void(count_view&)> count;
    std::string cost_formula; // name of its formula in python/spikex/scaling/time_model.py
    std::string docs_page;    // docs/methods/<page>.md

    bool has_option(const std::string& option) const;
};

// Options every method has (measure_wait).
const std::vector<option_spec>& common_exchange_options();

// Every registered method, in registration order.
const std::vector<method_entry>& exchange_registry();
// Throws user_error naming the known methods for an unknown name.
const method_entry& find_exchange_method(const std::string& method);
std::vector<std::string> exchange_methods();

// A variant option (option_spec::variant) that `method` does not own but `given` sets to a
// non-default value is an error: "exchange.phases = 2: ...". Empty when fine.
std::string foreign_option_problem(const std::string& method, const option_values& given);

// Checks `given` for `method` (unknown keys, variant options of other methods, values)
// and builds it. Throws user_error naming the key.
std::unique_ptr<spike_exchange> make_exchange(const std::string& method, const option_values& given);

// Registers one more method (tests only: the conformance suite must reject an incomplete
// method). Throws user_error when the name is taken.
void register_exchange_method_for_test(method_entry entry);
void unregister_exchange_method_for_test(const std::string& name);

// What an entry lacks to pass the conformance suite's static checks (empty: nothing):
// description, options documented, variants naming declared options, factory, counting
// rule, cost formula, docs page.
std::vector<std::string> entry_problems(const method_entry& entry);

} // namespace spikex
