// Exchange "alltoall" — Jordan et al. 2018 (NEST 5g), section 3.2, with the two-round
// scheme of NEST 3.6 and later.
//
// Algorithm: when a cell fires, one target-addressed entry per target run goes into the
//   send section of the rank that holds it. At the interval end one MPI_Alltoall of P
//   equal sections of S entries plus a header record; the header carries the number of
//   entries for that receiver and the sender's largest section fill, so after the call
//   every rank knows the global largest fill. Only if it exceeds S, a second round moves
//   the rest with sections resized to fit (further rounds only if the bound
//   alltoall_max_entries forces them; all ranks know the count in advance). Receivers
//   deliver each entry straight to its source run / connection: no lookup.
// Section size S adapts between intervals: it grows to the largest fill seen when a round
//   overflowed and shrinks by 1/8 when the largest fill used less than half of it, within
//   [alltoall_min_entries, alltoall_max_entries] (the rule: exchange/alltoall_sections.hpp,
//   shared with the dry run).
// Why this design, not the paper's multi-round doubling: doubling needs a further
//   collective round after every overflow until everything is sent (log2 of the overshoot
//   rounds) and ranks learn only at the end of a round whether another is needed; here
//   the first round's headers tell everybody the exact size of the one extra round, so an
//   interval costs 1 collective, or 2 after an overflow. Measured: bench/weak_scaling.py.
// Cost per interval: every rank sends and receives P (S + 1) * 8 bytes; entries per rank
//   ~ (spikes of its cells) x (ranks holding targets of each) in the sorted layout, or x
//   (targets) without sorting. Receive buffer P (S + 1) * 8 with S ~ entries / P: flat in P
//   when cells per rank and in-degree are fixed and N >> cells per rank x in-degree.
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
        remaining_.assign(ranks_, 0);
        sent_.assign(ranks_, 0);
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
        std::uint32_t my_largest = 0;
        for (const auto& p: pending_) my_largest = std::max<std::uint32_t>(my_largest, p.size());

        // Round 1: header {entries for you, my largest fill} + up to S entries per section.
        resize_buffers(s + 1);
        for (int r = 0; r < ranks_; ++r) {
            directed_entry* out = &send_[r * (s + 1)];
            auto count = static_cast<std::uint32_t>(pending_[r].size());
            out[0] = {count, 0, 0};
            std::memcpy(&out[0].lag, &my_largest, sizeof my_largest); // lag+flags: 32 bits
            sent_[r] = std::min(count, s);
            std::copy_n(pending_[r].begin(), sent_[r], out + 1);
        }
        round(s + 1);
        std::uint32_t largest = 0;
        for (int r = 0; r < ranks_; ++r) {
            const directed_entry* in = &receive_[r * (s + 1)];
            std::uint32_t senders_largest;
            std::memcpy(&senders_largest, &in[0].lag, sizeof senders_largest);
            largest = std::max(largest, senders_largest);
            std::uint32_t n = std::min(in[0].location, s);
            remaining_[r] = in[0].location - n;
            for (std::uint32_t k = 1; k <= n; ++k) deliver(in[k], start, sink);
        }

        // Further rounds only when some section overflowed; everybody knows how many.
        const alltoall_rounds plan = sections_.rounds(largest);
        if (plan.overflow_rounds > 0) {
            const std::uint32_t s2 = plan.overflow_records;
            resize_buffers(s2);
            for (std::uint32_t extra = 0; extra < plan.overflow_rounds; ++extra) {
                for (int r = 0; r < ranks_; ++r) {
                    auto n = static_cast<std::uint32_t>(std::min<std::size_t>(pending_[r].size() - sent_[r], s2));
                    std::copy_n(pending_[r].begin() + sent_[r], n, &send_[r * s2]);
                    sent_[r] += n;
                }
                round(s2);
                ++overflow_rounds_;
                for (int r = 0; r < ranks_; ++r) {
                    std::uint32_t n = std::min(remaining_[r], s2);
                    for (std::uint32_t k = 0; k < n; ++k) deliver(receive_[r * s2 + k], start, sink);
                    remaining_[r] -= n;
                }
            }
        }
        largest_section_ = std::max(largest_section_, largest);
        sections_.adapt(largest);
    }

    void round(std::uint32_t records) {
        comm_->alltoall(send_.data(), records * sizeof(directed_entry), receive_.data());
        ++rounds_;
        ++messages_;
        bytes_ += static_cast<std::uint64_t>(records) * ranks_ * sizeof(directed_entry);
        bytes_received_ += static_cast<std::uint64_t>(records) * ranks_ * sizeof(directed_entry);
    }

    void resize_buffers(std::uint32_t records) {
        std::size_t n = static_cast<std::size_t>(records) * ranks_;
        if (send_.size() < n) {
            send_.resize(n);
            receive_.resize(n);
        }
    }

    std::size_t buffer_bytes() const override { return send_.capacity() * sizeof(directed_entry); }
    std::size_t receive_buffer_bytes() const override { return receive_.capacity() * sizeof(directed_entry); }

    alltoall_options options_;
    alltoall_sections sections_; // section size S and its adaptation
    std::uint32_t largest_section_ = 0;
    std::vector<directed_entry> send_, receive_;
    std::vector<std::uint32_t> remaining_, sent_;
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
                     .doc = "Smallest section size (entries per destination rank per round); the section adapts "
                            "between this and alltoall_max_entries.",
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
