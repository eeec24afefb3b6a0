// Exchange "alltoall" — Jordan et al. 2018 (NEST 5g), section 3.2, with the two-round
// scheme of NEST 3.6 and later.
//
// Algorithm: when a cell fires, one target-addressed entry per target run goes into the
//   send list of the rank that holds it. At the interval end each list becomes one block of
//   the spike wire codec (exchange/spike_codec.hpp), and one MPI_Alltoall moves P equal
//   sections of an 8-byte header and S entries of 2 bytes (an "entry" of a section is 2
//   bytes of coded spikes, about one spike); the header carries the block's length for
//   that receiver and the sender's largest section fill in entries, so after the call
//   every rank knows the global largest fill. Only if it exceeds S, a second round moves
//   the rest with sections resized to fit (further rounds only if the bound
//   alltoall_max_entries forces them; all ranks know the count in advance). Receivers
//   decode and deliver each entry straight to its source run / connection: no lookup.
// Section size S adapts between intervals: it grows to the largest fill seen when a round
//   overflowed and shrinks by 1/8 when the largest fill used less than half of it, within
//   [alltoall_min_entries, alltoall_max_entries] (the rule: exchange/alltoall_sections.hpp,
//   shared with the dry run).
// Why this design, not the paper's multi-round doubling: doubling needs a further
//   collective round after every overflow until everything is sent (log2 of the overshoot
//   rounds) and ranks learn only at the end of a round whether another is needed; here
//   the first round's headers tell everybody the exact size of the one extra round, so an
//   interval costs 1 collective, or 2 after an overflow. Measured: bench/weak_scaling.py.
// Cost per interval: every rank sends and receives P (8 + 2 S) bytes; coded entries per
//   rank ~ (spikes of its cells) x (ranks holding targets of each) in the sorted layout, or
//   x (targets) without sorting. Receive buffer P (8 + 2 S) with S ~ coded bytes / 2P: flat
//   in P when cells per rank and in-degree are fixed and N >> cells per rank x in-degree.
// Memory: target table (8 bytes per target run or connection), send and receive buffers.
// Ordering: none needed; the engine orders each step's deliveries canonically.
#include <algorithm>
#include <cstring>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/exchange/alltoall_sections.hpp"
#include "spikex/exchange/directed_exchange.hpp"
#include "spikex/instrument/counter_names.hpp"

namespace spikex {
namespace {

struct alltoall_options {
    std::uint32_t alltoall_min_entries = 16; // section size bounds, in entries
    std::uint32_t alltoall_max_entries = 1u << 20;
};

class alltoall_exchange final: public directed_exchange {
public:
    alltoall_exchange(double max_init_buffer_mb, alltoall_options options):
        directed_exchange(max_init_buffer_mb), options_(options) {}
    std::string name() const override { return "alltoall"; }

    void setup(const exchange_setup& s) override {
        const auto& o = options_;
        if (o.alltoall_max_entries < o.alltoall_min_entries) {
            throw user_error(
                spikex::format("exchange.alltoall_max_entries = {}: must be >= exchange.alltoall_min_entries = {}",
                               o.alltoall_max_entries, o.alltoall_min_entries));
        }
        directed_exchange::setup(s);
        sections_ = alltoall_sections(o.alltoall_min_entries, o.alltoall_max_entries);
        sent_.assign(ranks_, 0);
        offsets_.assign(ranks_, 0);
        lengths_.assign(ranks_, 0);
        incoming_.assign(ranks_, 0);
        received_.assign(ranks_, 0);
        partial_offsets_.assign(ranks_, 0);
    }

    std::map<std::string, double> counters() const override {
        auto c = directed_exchange::counters();
        c[counter::overflow_rounds] = double(overflow_rounds_);
        return c;
    }

    std::map<std::string, double> properties() const override {
        auto p = directed_exchange::properties();
        p[counter::final_section_entries] = double(sections_.entries());
        p[counter::largest_section_entries] = double(largest_section_);
        return p;
    }

private:
    void transfer(step_type start, spike_sink& sink) override {
        const std::uint32_t s = sections_.entries();
        coded_.clear();
        std::uint32_t my_largest = 0;
        for (int r = 0; r < ranks_; ++r) {
            offsets_[r] = coded_.size();
            lengths_[r] = static_cast<std::uint32_t>(encode(r, coded_));
            my_largest = std::max(my_largest, alltoall_sections::entries_of(lengths_[r]));
        }

        // Round 1: header {block length for you, my largest fill} + up to S entries.
        const std::size_t section = alltoall_sections::header_bytes + std::size_t(s) * alltoall_sections::entry_bytes;
        const std::size_t first = std::size_t(s) * alltoall_sections::entry_bytes;
        resize_buffers(section);
        for (int r = 0; r < ranks_; ++r) {
            unsigned char* out = &send_[r * section];
            std::memcpy(out, &lengths_[r], 4);
            std::memcpy(out + 4, &my_largest, 4);
            sent_[r] = std::min<std::size_t>(lengths_[r], first);
            std::copy_n(coded_.begin() + offsets_[r], sent_[r], out + alltoall_sections::header_bytes);
        }
        round(section);
        // Complete blocks are delivered at once; the start of a longer one is kept in
        // partial_ (one buffer, sized from the headers) until the further rounds bring the rest.
        std::uint32_t largest = 0;
        std::size_t partial_total = 0;
        for (int r = 0; r < ranks_; ++r) {
            const unsigned char* in = &receive_[r * section];
            std::uint32_t length, senders_largest;
            std::memcpy(&length, in, 4);
            std::memcpy(&senders_largest, in + 4, 4);
            largest = std::max(largest, senders_largest);
            incoming_[r] = length;
            if (length <= first) {
                deliver_block(r, in + alltoall_sections::header_bytes, length, start, sink);
            } else {
                partial_offsets_[r] = partial_total;
                partial_total += length;
            }
        }
        partial_.resize(partial_total);
        for (int r = 0; r < ranks_; ++r) {
            received_[r] = std::min<std::size_t>(incoming_[r], first);
            if (incoming_[r] > first) {
                std::copy_n(&receive_[r * section] + alltoall_sections::header_bytes, first,
                            partial_.begin() + partial_offsets_[r]);
            }
        }

        // Further rounds only when some section overflowed; everybody knows how many.
        const alltoall_rounds plan = sections_.rounds(largest);
        if (plan.overflow_rounds > 0) {
            const std::size_t piece = std::size_t(plan.overflow_records) * alltoall_sections::entry_bytes;
            resize_buffers(piece);
            for (std::uint32_t extra = 0; extra < plan.overflow_rounds; ++extra) {
                for (int r = 0; r < ranks_; ++r) {
                    const std::size_t n = std::min<std::size_t>(lengths_[r] - sent_[r], piece);
                    std::copy_n(coded_.begin() + offsets_[r] + sent_[r], n, &send_[r * piece]);
                    sent_[r] += n;
                }
                round(piece);
                ++overflow_rounds_;
                for (int r = 0; r < ranks_; ++r) {
                    const std::size_t n = std::min<std::size_t>(incoming_[r] - received_[r], piece);
                    std::copy_n(&receive_[r * piece], n, partial_.begin() + partial_offsets_[r] + received_[r]);
                    received_[r] += n;
                }
            }
        }
        for (int r = 0; r < ranks_; ++r) {
            if (incoming_[r] > first)
                deliver_block(r, partial_.data() + partial_offsets_[r], incoming_[r], start, sink);
        }
        largest_section_ = std::max(largest_section_, largest);
        sections_.adapt(largest);
    }

    void round(std::size_t section_bytes) {
        comm_->alltoall(send_.data(), section_bytes, receive_.data());
        ++rounds_;
        ++messages_;
        bytes_ += section_bytes * ranks_;
        bytes_received_ += section_bytes * ranks_;
    }

    void resize_buffers(std::size_t section_bytes) {
        std::size_t n = section_bytes * ranks_;
        if (send_.size() < n) {
            send_.resize(n);
            receive_.resize(n);
        }
    }

    std::size_t buffer_bytes() const override { return send_.capacity() + coded_.capacity(); }
    std::size_t receive_buffer_bytes() const override { return receive_.capacity() + partial_.capacity(); }

    alltoall_options options_;
    alltoall_sections sections_; // section size S and its adaptation
    std::uint32_t largest_section_ = 0;
    std::vector<unsigned char> coded_, send_, receive_, partial_;
    std::vector<std::size_t> offsets_, sent_;                        // per destination
    std::vector<std::size_t> incoming_, received_, partial_offsets_; // per sender
    std::vector<std::uint32_t> lengths_;
    std::uint64_t overflow_rounds_ = 0;
};

} // namespace

void count_alltoall(count_view& view); // dryrun/exchange_counts.cpp

method_entry alltoall_method() {
    return {
        .name = "alltoall",
        .description = "directed exchange over NEST's two-tier connection store: MPI_Alltoall of equal "
                       "per-destination sections, a second round only on overflow (Jordan et al. 2018)",
        .capabilities = directed_capabilities(),
        .options = {{.name = "alltoall_min_entries",
                     .kind = option_kind::integer,
                     .default_value = std::int64_t{16},
                     .doc = "Smallest section size (entries of 2 coded bytes, about one spike each, per "
                            "destination rank per round); the section adapts between this and alltoall_max_entries.",
                     .minimum = 1,
                     .maximum = 4294967295.0},
                    {.name = "alltoall_max_entries",
                     .kind = option_kind::integer,
                     .default_value = std::int64_t{1048576},
                     .doc = "Largest section size; an interval with more entries for one rank takes further rounds.",
                     .minimum = 1,
                     .maximum = 4294967295.0},
                    max_init_buffer_option()},
        .variants = {{{{"alltoall_min_entries", std::int64_t{1}}, {"alltoall_max_entries", std::int64_t{1}}}},
                     {{{"max_init_buffer_mb", 0.001}}}},
        .make =
            [](const option_reader& o) {
                return std::make_unique<alltoall_exchange>(
                    o.real("max_init_buffer_mb"),
                    alltoall_options{static_cast<std::uint32_t>(o.integer("alltoall_min_entries")),
                                     static_cast<std::uint32_t>(o.integer("alltoall_max_entries"))});
            },
        .count = count_alltoall,
        .cost_formula = "directed",
        .docs_page = "alltoall",
    };
}

} // namespace spikex
