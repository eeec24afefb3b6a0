#pragma once
// route: a bucket of fixed-size items (Garg & Sabharwal, section 4.3: "a bucket for each
// of its routing nodes ... three buckets that are used for receiving updates").
//
// Algorithm: a contiguous array of `capacity` items of `item_bytes` bytes. As a send
//   bucket it is filled with push() and sent whole (its bytes are the message); as a
//   receive buffer a message is received into it (filled()) and read with
//   next()/advance() until drained, and only then refilled. The library never looks
//   inside an item.
// Messages and bytes: none by itself. Memory: capacity * item_bytes.
// Ordering guarantee: items leave in the order they entered.
#include <cstddef>
#include <cstring>
#include <vector>

namespace spikex {

class item_buffer {
public:
    item_buffer() = default;
    item_buffer(std::size_t capacity, std::size_t item_bytes):
        data_(capacity * item_bytes), capacity_(capacity), item_bytes_(item_bytes) {}

    std::size_t capacity() const { return capacity_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    bool full() const { return size_ == capacity_; }
    std::size_t bytes() const { return size_ * item_bytes_; }
    std::size_t capacity_bytes() const { return capacity_ * item_bytes_; }
    std::size_t owned_bytes() const { return data_.capacity(); }
    unsigned char* data() { return data_.data(); }
    const unsigned char* data() const { return data_.data(); }

    // Sending side.
    // The common item sizes are copied with a fixed-size memcpy (one load and one store);
    // a memcpy of a run-time size is a library call per item (GUPS: 8-byte updates; the
    // routed spike exchange: 3-5 bytes, routed_item.hpp).
    void push(const void* item) {
        unsigned char* at = data_.data() + size_ * item_bytes_;
        switch (item_bytes_) {
        case 8:
            std::memcpy(at, item, 8);
            break;
        case 5:
            std::memcpy(at, item, 5);
            break;
        case 4:
            std::memcpy(at, item, 4);
            break;
        case 3:
            std::memcpy(at, item, 3);
            break;
        default:
            std::memcpy(at, item, item_bytes_);
            break;
        }
        ++size_;
    }
    // Up to `count` items (item_bytes each, one after the other), as many as there is room
    // for, in one copy; returns how many.
    std::size_t append(const void* items, std::size_t count) {
        const std::size_t n = count < capacity_ - size_ ? count : capacity_ - size_;
        std::memcpy(data_.data() + size_ * item_bytes_, items, n * item_bytes_);
        size_ += n;
        return n;
    }
    void clear() { size_ = cursor_ = 0; }

    // Receiving side: `count` items were written into data().
    void filled(std::size_t count) {
        size_ = count;
        cursor_ = 0;
    }
    bool drained() const { return cursor_ == size_; }
    std::size_t remaining() const { return size_ - cursor_; }
    const unsigned char* next() const { return data_.data() + cursor_ * item_bytes_; }
    void advance(std::size_t n = 1) { cursor_ += n; }

private:
    std::vector<unsigned char> data_;
    std::size_t capacity_ = 0, item_bytes_ = 0;
    std::size_t size_ = 0, cursor_ = 0;
};

} // namespace spikex
