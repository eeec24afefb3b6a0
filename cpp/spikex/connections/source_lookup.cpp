#include <algorithm>
#include <bit>

#include "spikex/connections/source_lookup.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {
namespace {

class dense_lookup final: public source_lookup {
public:
    dense_lookup(const std::vector<gid_type>& sources, std::uint32_t cells): run_of_(cells, no_run) {
        for (std::uint32_t s = 0; s < sources.size(); ++s) run_of_[sources[s]] = s;
    }
    std::uint32_t find(gid_type gid) const override { return gid < run_of_.size() ? run_of_[gid] : no_run; }
    std::size_t bytes() const override { return run_of_.capacity() * sizeof(std::uint32_t); }
    std::string name() const override { return "dense"; }

private:
    std::vector<std::uint32_t> run_of_;
};

class hash_lookup final: public source_lookup {
public:
    explicit hash_lookup(const std::vector<gid_type>& sources) {
        std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, 2 * sources.size()));
        mask_ = capacity - 1;
        keys_.assign(capacity, empty);
        runs_.assign(capacity, no_run);
        for (std::uint32_t s = 0; s < sources.size(); ++s) {
            std::size_t i = hash(sources[s]);
            while (keys_[i] != empty) i = (i + 1) & mask_;
            keys_[i] = sources[s];
            runs_[i] = s;
        }
    }
    std::uint32_t find(gid_type gid) const override {
        for (std::size_t i = hash(gid);; i = (i + 1) & mask_) {
            if (keys_[i] == gid) return runs_[i];
            if (keys_[i] == empty) return no_run;
        }
    }
    std::size_t bytes() const override {
        return keys_.capacity() * sizeof(gid_type) + runs_.capacity() * sizeof(std::uint32_t);
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
    std::vector<std::uint32_t> runs_;
};

class sorted_lookup final: public source_lookup {
public:
    explicit sorted_lookup(const std::vector<gid_type>& sources): sources_(sources) {}
    std::uint32_t find(gid_type gid) const override {
        auto it = std::lower_bound(sources_.begin(), sources_.end(), gid);
        return (it != sources_.end() && *it == gid) ? static_cast<std::uint32_t>(it - sources_.begin()) : no_run;
    }
    std::size_t bytes() const override { return sources_.capacity() * sizeof(gid_type); }
    std::string name() const override { return "sorted"; }

private:
    std::vector<gid_type> sources_;
};

} // namespace

std::unique_ptr<source_lookup> make_source_lookup(const std::string& kind, const std::vector<gid_type>& sources,
                                                  std::uint32_t cells) {
    if (kind == "dense") return std::make_unique<dense_lookup>(sources, cells);
    if (kind == "hash") return std::make_unique<hash_lookup>(sources);
    if (kind == "sorted") return std::make_unique<sorted_lookup>(sources);
    throw user_error(
        spikex::format("exchange.source_lookup = \"{}\": must be one of \"dense\", \"hash\", \"sorted\"", kind));
}

} // namespace spikex
