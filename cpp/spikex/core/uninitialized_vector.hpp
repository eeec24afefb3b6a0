#pragma once
// uninitialized_vector<T>: a std::vector whose resize(n) leaves new elements of a trivial
// type unwritten (value-initialisation would zero them). For arrays that a parallel pass
// then fills in full, such as the connection table's targets and weights: no thread
// zeroes hundreds of megabytes first (serially, before the pass), and each page is first
// touched by the thread that fills it.
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace spikex {

template <class T>
class default_init_allocator: public std::allocator<T> {
public:
    template <class U>
    struct rebind {
        using other = default_init_allocator<U>;
    };
    default_init_allocator() noexcept = default;
    template <class U>
    default_init_allocator(const default_init_allocator<U>&) noexcept {}

    // construct() without arguments (resize's new elements): default-initialise.
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

template <class T>
using uninitialized_vector = std::vector<T, default_init_allocator<T>>;

} // namespace spikex
