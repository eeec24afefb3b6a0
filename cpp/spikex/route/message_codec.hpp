#pragma once
// route: what a bucket's message looks like on the wire (router_options::codec). Without a
// codec a message is the bucket's items themselves (item_bytes each); a codec may pack
// them into fewer bytes, for example sorted and gap-coded (exchange/routed_bucket_codec.hpp).
// Called once per message, never per item; the router keeps the items unchanged otherwise.
#include <cstddef>

namespace spikex {

class message_codec {
public:
    virtual ~message_codec() = default;
    // Bytes past a message's end that encode() may overwrite: a codec may store whole
    // 8-byte words.
    static constexpr std::size_t encode_slack = 8;
    // Writes the message for `count` items (item_bytes each, one after the other at
    // `items`) that rank `from` sends to rank `to` to `out` and returns its size in bytes:
    // both sides know the pair, so a codec may leave out what it implies. `out` has room
    // for max_message_bytes(count) + encode_slack bytes (the router's buffer or a mailbox
    // slot, written once: no resizing of a vector per message).
    virtual std::size_t encode(const unsigned char* items, std::size_t count, int from, int to,
                               unsigned char* out) const = 0;
    // Writes the items of a message of `size` bytes from rank `from` to rank `to` to
    // `items` (room for `capacity` items) and returns how many. A malformed message, or
    // one of more than `capacity` items, is an internal_error.
    virtual std::size_t decode(const unsigned char* message, std::size_t size, int from, int to, unsigned char* items,
                               std::size_t capacity) const = 0;
    // Most bytes a message of `count` items may take.
    virtual std::size_t max_message_bytes(std::size_t count) const = 0;
    // Where a message's items are all for `to` (the receiver) and the codec can hand them to
    // their user itself, without writing items first: does so and returns how many (at most
    // `capacity`, else internal_error); 0 leaves the message to decode(). The router counts
    // them delivered. Default: never.
    virtual std::size_t deliver(const unsigned char* /*message*/, std::size_t /*size*/, int /*from*/, int /*to*/,
                                std::size_t /*capacity*/) const {
        return 0;
    }
};

} // namespace spikex
