#pragma once
// spikex::format(fmt, args...): std::format where the standard library has it, else the
// {fmt} library (the same format-string syntax, checked at compile time in both).
//
// Why the fallback: GCC 12's libstdc++ (Debian 12, the reference machine) has no <format>;
// GCC 13 has. When every supported compiler has std::format, delete the {fmt} branch, the
// fmt lines in cpp/CMakeLists.txt and libfmt-dev in scripts/setup.sh.
//
// The test below is repeated as SPIKEX_HAVE_STD_FORMAT in cpp/CMakeLists.txt, which links
// libfmt (fmt::fmt) only when std::format is missing: change both together.
//
// Numbers: "{}" prints an integer as std::to_string does, but a double in its shortest
// form ("0.5"); std::to_string(double) printed "0.500000", which "{:.6f}" keeps.
#include <string>
#include <utility>

#if __has_include(<format>)
#include <format>
#endif

#if defined(__cpp_lib_format) && __cpp_lib_format >= 201907L
#define SPIKEX_STD_FORMAT 1
#else
#define SPIKEX_STD_FORMAT 0
#include <fmt/format.h>
#endif

namespace spikex {

#if SPIKEX_STD_FORMAT
template <class... Args>
using format_string = std::format_string<Args...>;

template <class... Args>
std::string format(format_string<Args...> text, Args&&... args) {
    return std::format(text, std::forward<Args>(args)...);
}
#else
template <class... Args>
using format_string = fmt::format_string<Args...>;

template <class... Args>
std::string format(format_string<Args...> text, Args&&... args) {
    return ::fmt::format(text, std::forward<Args>(args)...);
}
#endif

} // namespace spikex
