#pragma once
// Models compiled apart from spikex and loaded at run time (users' NESTML models,
// docs/user/nestml.md): a shared library built against spikex's headers with the compiler
// and flags of this build, linked against the loaded spikex._core, that defines
//
//   extern "C" const char* spikex_model_library_abi();  // must equal model_library_abi()
//   extern "C" void spikex_register_models();           // calls register_model(...) per model
//
// load_model_library dlopens it, checks the ABI string and calls the registration
// function once per library file; the models are then in model_registry() like the
// built-in ones, for this process. Each rank of a job loads the same file.
#include <string>
#include <vector>

#include "spikex/core/format.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {

// The compiler and the layout of the types a model library shares with the core, as the
// translation unit that includes this header sees them (internal linkage: the core's and
// a library's own copy are compared, never one resolved to the other). The Python side's
// cache key also holds spikex's version and a hash of its headers.
static inline std::string model_library_abi_of_this_build() {
    return spikex::format("gcc {} entry {} spec {} population {} cell_group {}", __VERSION__, sizeof(model_entry),
                          sizeof(parameter_spec), sizeof(population_spec), sizeof(cell_group));
}

// The core's: what a model library must report (compared as a string: a library built by
// another compiler or against other headers is refused).
std::string model_library_abi();

// Loads the library at `path` (once per file: a second call returns the same names) and
// returns the names of the models it registered. user_error naming the path when it cannot
// be loaded, has no registration function, was built for another ABI, or registers a model
// whose name is taken.
std::vector<std::string> load_model_library(const std::string& path);

} // namespace spikex
