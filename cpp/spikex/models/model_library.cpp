// Loading model libraries at run time (model_library.hpp).
#include "spikex/models/model_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {

namespace {
std::mutex library_mutex;
std::map<std::string, std::vector<std::string>>& loaded() { // real path -> its models
    static std::map<std::string, std::vector<std::string>> libraries;
    return libraries;
}
} // namespace

std::string model_library_abi() { return model_library_abi_of_this_build(); }

std::vector<std::string> load_model_library(const std::string& path) {
    std::lock_guard lock(library_mutex);
    std::unique_ptr<char, decltype(&std::free)> real(realpath(path.c_str(), nullptr), &std::free);
    if (!real) throw user_error(spikex::format("model library {}: no such file", path));
    const std::string key = real.get();
    if (auto it = loaded().find(key); it != loaded().end()) return it->second;
    void* handle = dlopen(key.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw user_error(spikex::format("model library {}: cannot be loaded: {}", path, dlerror()));
    using abi_function = const char* (*)();
    using register_function = void (*)();
    auto abi = reinterpret_cast<abi_function>(dlsym(handle, "spikex_model_library_abi"));
    auto register_models = reinterpret_cast<register_function>(dlsym(handle, "spikex_register_models"));
    if (!abi || !register_models) {
        dlclose(handle);
        throw user_error(
            spikex::format("model library {}: not a spikex model library (no spikex_register_models)", path));
    }
    if (abi() != model_library_abi()) {
        const std::string theirs = abi();
        dlclose(handle);
        throw user_error(spikex::format("model library {}: built for \"{}\", this spikex is \"{}\": rebuild it", path,
                                        theirs, model_library_abi()));
    }
    const std::size_t before = model_registry().size();
    register_models(); // throws user_error for a name taken; the library stays loaded
    std::vector<std::string> names;
    for (std::size_t i = before; i < model_registry().size(); ++i) names.push_back(model_registry()[i].name);
    if (names.empty()) { // it registered into another copy of the core: built against another spikex
        throw user_error(spikex::format("model library {}: registered no model in this spikex (built against the "
                                        "spikex core of another installation? rebuild it)",
                                        path));
    }
    loaded()[key] = names;
    return names; // the handle is never closed: the entries' functions live in it
}

} // namespace spikex
