// Exchange methods by name. Adding a method: one file, one line here.
#include <functional>
#include <utility>

#include "spikex/core/errors.hpp"
#include "spikex/exchange/spike_exchange.hpp"

namespace spikex {

std::unique_ptr<spike_exchange> make_allgather_exchange();
std::unique_ptr<spike_exchange> make_multisend_exchange();
std::unique_ptr<spike_exchange> make_persistent_exchange();
std::unique_ptr<spike_exchange> make_rma_exchange();
std::unique_ptr<spike_exchange> make_alltoall_exchange();
std::unique_ptr<spike_exchange> make_alltoallv_exchange();
std::unique_ptr<spike_exchange> make_routed_exchange();

namespace {

const std::vector<std::pair<std::string, std::function<std::unique_ptr<spike_exchange>()>>>& registry() {
    static const std::vector<std::pair<std::string, std::function<std::unique_ptr<spike_exchange>()>>> methods = {
        {"allgather", make_allgather_exchange},
        {"multisend", make_multisend_exchange},
        {"persistent", make_persistent_exchange},
        {"rma", make_rma_exchange},
        {"alltoall", make_alltoall_exchange},
        {"alltoallv", make_alltoallv_exchange},
        {"routed", make_routed_exchange},
    };
    return methods;
}

} // namespace

std::vector<std::string> exchange_methods() {
    std::vector<std::string> names;
    for (const auto& [name, make]: registry()) names.push_back(name);
    return names;
}

std::unique_ptr<spike_exchange> make_exchange(const std::string& method) {
    std::string known;
    for (const auto& [name, make]: registry()) {
        if (name == method) return make();
        known += (known.empty() ? "\"" : ", \"") + name + "\"";
    }
    throw user_error("exchange.method = \"" + method + "\": must be one of " + known);
}

} // namespace spikex
