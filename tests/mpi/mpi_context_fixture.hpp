#pragma once
// The MPI context every multi-rank test uses (created once in main.cpp).
#include "spikex/comm/context.hpp"

extern spikex::context* test_context;
