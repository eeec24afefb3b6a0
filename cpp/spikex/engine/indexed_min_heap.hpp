#pragma once
// Binary min-heap of (step, cell) with one entry per cell and O(log n) re-keying: the
// self-event queue of event-driven cells. A lazy heap would pile up stale entries, since
// every synaptic input moves the cell's next firing time.
#include <cstdint>
#include <utility>
#include <vector>

#include "spikex/core/types.hpp"

namespace spikex {

class indexed_min_heap {
public:
    static constexpr std::uint32_t absent = 0xffffffffu;

    explicit indexed_min_heap(std::size_t cells = 0): position_(cells, absent), key_(cells, 0) {}

    bool empty() const { return heap_.empty(); }
    local_index top() const { return heap_.front(); }
    step_type top_key() const { return key_[heap_.front()]; }
    step_type key(local_index cell) const { return key_[cell]; }

    // Inserts `cell` or moves it to `step`.
    void set(local_index cell, step_type step) {
        if (position_[cell] == absent) {
            key_[cell] = step;
            position_[cell] = static_cast<std::uint32_t>(heap_.size());
            heap_.push_back(cell);
            sift_up(position_[cell]);
            return;
        }
        step_type old = key_[cell];
        key_[cell] = step;
        if (step < old)
            sift_up(position_[cell]);
        else if (step > old)
            sift_down(position_[cell]);
    }

    void pop() {
        local_index cell = heap_.front();
        position_[cell] = absent;
        local_index last = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) {
            heap_[0] = last;
            position_[last] = 0;
            sift_down(0);
        }
    }

    std::size_t bytes() const {
        return position_.capacity() * sizeof(std::uint32_t) + key_.capacity() * sizeof(step_type) +
               heap_.capacity() * sizeof(local_index);
    }

private:
    bool less(local_index a, local_index b) const { return key_[a] != key_[b] ? key_[a] < key_[b] : a < b; }
    void place(std::uint32_t i, local_index cell) {
        heap_[i] = cell;
        position_[cell] = i;
    }
    void sift_up(std::uint32_t i) {
        local_index cell = heap_[i];
        while (i > 0) {
            std::uint32_t parent = (i - 1) / 2;
            if (!less(cell, heap_[parent])) break;
            place(i, heap_[parent]);
            i = parent;
        }
        place(i, cell);
    }
    void sift_down(std::uint32_t i) {
        local_index cell = heap_[i];
        const std::uint32_t n = static_cast<std::uint32_t>(heap_.size());
        for (;;) {
            std::uint32_t child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && less(heap_[child + 1], heap_[child])) ++child;
            if (!less(heap_[child], cell)) break;
            place(i, heap_[child]);
            i = child;
        }
        place(i, cell);
    }

    std::vector<std::uint32_t> position_;
    std::vector<step_type> key_;
    std::vector<local_index> heap_;
};

} // namespace spikex
