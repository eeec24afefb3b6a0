#include <algorithm>
#include <bit>

#include "spikex/connections/source_lookup.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {
namespace {

class dense_lookup final: public source_lookup {
public:
    dense_lookup(const std::vector<gid_type>& sources, std::uint32_t cells): slot_(cells, no_slot) {
        for (std::uint32_t s = 0; s < sources.size(); ++s) slot_[sources[s]] = s;
    }
    std::uint32_t find(gid_type gid) const override { return gid < slot_.size() ? slot_[gid] : no_slot; }
    std::size_t bytes() const override { return slot_.capacity() * sizeof(std::uint32_t); }
    std::string name() const override { return "dense"; }

private:
    std::vector<std::uint32_t> slot_;
};

class hash_lookup final: public source_lookup {
public:
    explicit hash_lookup(const std::vector<gid_type>& sources) {
        std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, 2 * sources.size()));
        mask_ = capacity - 1;
        keys_.assign(capacity, empty);
        slots_.assign(capacity, no_slot);
        for (std::uint32_t s = 0; s < sources.size(); ++s) {
            std::size_t i = hash(sources[s]);
            while (keys_[i] != empty) i = (i + 1) & mask_;
            keys_[i] = sources[s];
            slots_[i] = s;
        }
    }
    std::uint32_t find(gid_type gid) const override {
        for (std::size_t i = hash(gid);; i = (i + 1) & mask_) {
            if (keys_[i] == gid) return slots_[i];
            if (keys_[i] == empty) return no_slot;
        }
    }
    std::size_t bytes() const override {
        return keys_.capacity() * sizeof(gid_type) + slots_.capacity() * sizeof(std::uint32_t);
    }
    std::string name() const override { return "hash"; }

private:
    static constexpr gid_type empty = 0xffffffffu;
    std::size_t hash(gid_type g) const {
        // Fibonacci hashing: gids of one rank are often an arithmetic progression
        // (round-robin), which plain modulo would cluster.
        return static_cast<std::size_t>((static_cast<std::uint64_t>(g) * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
    }
    std::size_t mask_ = 0;
    std::vector<gid_type> keys_;
    std::vector<std::uint32_t> slots_;
};

class sorted_lookup final: public source_lookup {
public:
    explicit sorted_lookup(const std::vector<gid_type>& sources): sources_(sources) {}
    std::uint32_t find(gid_type gid) const override {
        auto it = std::lower_bound(sources_.begin(), sources_.end(), gid);
        return (it != sources_.end() && *it == gid) ? static_cast<std::uint32_t>(it - sources_.begin())
                                                    : no_slot;
    }
    std::size_t bytes() const override { return sources_.capacity() * sizeof(gid_type); }
    std::string name() const override { return "sorted"; }

private:
    std::vector<gid_type> sources_;
};

} // namespace

std::unique_ptr<source_lookup> make_source_lookup(const std::string& kind,
                                                  const std::vector<gid_type>& sources,
                                                  std::uint32_t cells) {
    if (kind == "dense") return std::make_unique<dense_lookup>(sources, cells);
    if (kind == "hash") return std::make_unique<hash_lookup>(sources);
    if (kind == "sorted") return std::make_unique<sorted_lookup>(sources);
    throw user_error(spikex::format("exchange.source_lookup = \"{}\": must be one of \"dense\", \"hash\", \"sorted\"", kind));
}

} // namespace spikex
