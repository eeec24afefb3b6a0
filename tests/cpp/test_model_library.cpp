// Models registered at run time (model_registry.hpp: register_model) and model libraries
// (model_library.hpp: load_model_library): a new entry is found like a built-in one, an
// entry found before stays where it is when more are registered, a taken name and a
// file that is not a model library are refused naming them. The libraries themselves
// (users' NESTML models) are tested from Python (tests/python/nestml/).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "spikex/core/errors.hpp"
#include "spikex/models/model_library.hpp"
#include "spikex/models/model_registry.hpp"

using namespace spikex;

namespace spikex {
model_entry iaf_psc_exp_model();
}

TEST(ModelRegistry, a_model_registered_at_run_time_is_found_and_earlier_entries_stay_put) {
    const model_entry& before = find_model("iaf_psc_exp");
    const std::size_t count = model_registry().size();
    for (int k = 0; k < 40; ++k) { // enough to make a vector reallocate
        model_entry e = iaf_psc_exp_model();
        e.name = "test_run_time_model_" + std::to_string(k);
        register_model(e);
    }
    EXPECT_EQ(model_registry().size(), count + 40);
    EXPECT_EQ(&find_model("iaf_psc_exp"), &before);
    EXPECT_EQ(before.name, "iaf_psc_exp");
    EXPECT_EQ(find_model("test_run_time_model_7").parameter_names(), before.parameter_names());
}

TEST(ModelRegistry, a_taken_name_is_refused) {
    model_entry e = iaf_psc_exp_model();
    try {
        register_model(e);
        FAIL() << "registered iaf_psc_exp twice";
    } catch (const user_error& error) {
        EXPECT_EQ(std::string(error.what()), "model \"iaf_psc_exp\" is already registered");
    }
}

TEST(ModelLibrary, a_missing_file_or_one_that_is_no_library_is_refused_naming_it) {
    EXPECT_THROW(load_model_library("/no/such/library.so"), user_error);
    const std::string path = testing::TempDir() + "not_a_library.so";
    std::ofstream(path) << "not an ELF file";
    try {
        load_model_library(path);
        FAIL() << "loaded a text file";
    } catch (const user_error& error) {
        EXPECT_NE(std::string(error.what()).find("cannot be loaded"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
    }
    std::remove(path.c_str());
}

TEST(ModelLibrary, the_abi_string_names_the_compiler) {
    EXPECT_EQ(model_library_abi(), model_library_abi_of_this_build());
    EXPECT_NE(model_library_abi().find("gcc "), std::string::npos);
}
