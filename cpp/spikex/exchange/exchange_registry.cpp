// Exchange methods by name. Adding a method: its file (which builds its entry), its docs
// page, and one line in SPIKEX_EXCHANGE_METHODS below (docs/dev/adding_a_method.md).
#include <algorithm>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/exchange/method_registry.hpp"

namespace spikex {

// The registered methods, one line each, in the order of the method list and the docs.
// METHOD(name) stands for `method_entry name_method()`, defined in exchange/name.cpp.
#define SPIKEX_EXCHANGE_METHODS(METHOD) \
    METHOD(allgather)                   \
    METHOD(alltoall)                    \
    METHOD(alltoallv)                   \
    METHOD(multisend)                   \
    METHOD(persistent)                  \
    METHOD(rma)                         \
    METHOD(routed)

#define SPIKEX_DECLARE_ENTRY(name) method_entry name##_method();
SPIKEX_EXCHANGE_METHODS(SPIKEX_DECLARE_ENTRY)
#undef SPIKEX_DECLARE_ENTRY

namespace {

std::vector<method_entry>& registry() {
#define SPIKEX_ENTRY(name) name##_method(),
    static std::vector<method_entry> methods = {SPIKEX_EXCHANGE_METHODS(SPIKEX_ENTRY)};
#undef SPIKEX_ENTRY
    return methods;
}

const option_spec* find_option(const std::vector<option_spec>& specs, const std::string& name) {
    for (const auto& spec: specs) {
        if (spec.name == name) return &spec;
    }
    return nullptr;
}

} // namespace

bool method_entry::has_option(const std::string& option) const { return find_option(options, option) != nullptr; }

const std::vector<option_spec>& common_exchange_options() {
    static const std::vector<option_spec> options = {
        {.name = "measure_wait",
         .kind = option_kind::boolean,
         .default_value = true,
         .doc = "Call MPI_Barrier before each collective (or conservation loop) so that waiting for the slowest "
                "rank and the exchange itself are timed separately."},
    };
    return options;
}

const std::vector<method_entry>& exchange_registry() { return registry(); }

std::vector<std::string> exchange_methods() {
    std::vector<std::string> names;
    for (const auto& entry: registry()) names.push_back(entry.name);
    return names;
}

const method_entry& find_exchange_method(const std::string& method) {
    std::string known;
    for (const auto& entry: registry()) {
        if (entry.name == method) return entry;
        known += (known.empty() ? "\"" : ", \"") + entry.name + "\"";
    }
    throw user_error(spikex::format("exchange.method = \"{}\": must be one of {}", method, known));
}

std::string foreign_option_problem(const std::string& method, const option_values& given) {
    const method_entry& own = find_exchange_method(method);
    for (const auto& [name, value]: given) {
        if (find_option(own.options, name) || find_option(common_exchange_options(), name)) continue;
        std::string owners;
        const option_spec* spec = nullptr;
        for (const auto& entry: registry()) {
            if (const option_spec* s = find_option(entry.options, name)) {
                spec = s;
                owners += (owners.empty() ? "" : ", ") + entry.name;
            }
        }
        if (!spec) {
            return spikex::format("{} is not an exchange option (see docs/user/config.md, section [exchange])",
                                  option_path(name));
        }
        if (spec->variant && check_option(*spec, value) != spec->default_value) {
            return spikex::format("{} = {}: a variant of {}; exchange.method = \"{}\" does not have it (use {})",
                                  option_path(name), option_text(value), owners, method,
                                  option_text(spec->default_value));
        }
    }
    return "";
}

std::unique_ptr<spike_exchange> make_exchange(const std::string& method, const option_values& given) {
    const method_entry& entry = find_exchange_method(method);
    if (std::string problem = foreign_option_problem(method, given); !problem.empty()) throw user_error(problem);
    std::vector<option_spec> specs = entry.options;
    specs.insert(specs.end(), common_exchange_options().begin(), common_exchange_options().end());
    return entry.make(option_reader(specs, given));
}

void register_exchange_method_for_test(method_entry entry) {
    for (const auto& e: registry()) {
        if (e.name == entry.name)
            throw user_error(spikex::format("exchange method \"{}\" is already registered", entry.name));
    }
    registry().push_back(std::move(entry));
}

void unregister_exchange_method_for_test(const std::string& name) {
    auto& r = registry();
    r.erase(std::remove_if(r.begin(), r.end(), [&](const method_entry& e) { return e.name == name; }), r.end());
}

std::vector<std::string> entry_problems(const method_entry& entry) {
    std::vector<std::string> problems;
    if (entry.name.empty()) problems.push_back("no name");
    if (entry.description.empty()) problems.push_back("no description");
    for (const auto& spec: entry.options) {
        if (spec.doc.empty()) problems.push_back("option " + spec.name + " has no doc sentence");
        try {
            check_option(spec, spec.default_value);
        } catch (const user_error& e) {
            problems.push_back(std::string("option default: ") + e.what());
        }
    }
    for (const auto& variant: entry.variants) {
        for (const auto& [name, value]: variant.values) {
            const option_spec* spec = find_option(entry.options, name);
            if (!spec)
                problems.push_back("variant sets " + name + ", which is not an option of the method");
            else {
                try {
                    check_option(*spec, value);
                } catch (const user_error& e) {
                    problems.push_back(std::string("variant: ") + e.what());
                }
            }
        }
    }
    if (!entry.make) problems.push_back("no factory");
    if (!entry.count) problems.push_back("no dry-run counting rule");
    if (entry.cost_formula.empty()) problems.push_back("no cost formula");
    if (entry.docs_page.empty()) problems.push_back("no docs page");
    return problems;
}

} // namespace spikex
