// Exchange "alltoallv" — the alternative Jordan et al. 2018 discuss in section 4: counts
// first, then exactly the needed entries.
//
// Algorithm: target-addressed entries are collected per destination as for alltoall. At
//   the interval end each destination's entries become one block of the spike wire codec
//   (exchange/spike_codec.hpp); one MPI_Alltoall of one 4-byte block length per rank pair,
//   then one MPI_Alltoallv that moves exactly the blocks; receivers decode and deliver each
//   entry straight to its source run / connection. Always two collectives, never padding,
//   never a retry.
// Cost per interval: 4 P bytes of lengths per rank plus the coded entries actually needed
//   (about 1.5-3 bytes each); receive buffer = the blocks a rank needs, independent of P.
// Memory: target table, send buffer and receive buffer of the needed entries.
// Ordering: none needed; the engine orders each step's deliveries canonically.
#include "spikex/exchange/directed_exchange.hpp"

namespace spikex {
namespace {

class alltoallv_exchange final: public directed_exchange {
public:
    using directed_exchange::directed_exchange;
    std::string name() const override { return "alltoallv"; }

    void setup(const exchange_setup& s) override {
        directed_exchange::setup(s);
        send_counts_.assign(ranks_, 0);
        receive_counts_.assign(ranks_, 0);
        send_displs_.assign(ranks_, 0);
        receive_displs_.assign(ranks_, 0);
    }

private:
    void transfer(step_type start, spike_sink& sink) override {
        std::vector<std::uint32_t> lengths(ranks_), incoming(ranks_);
        send_.clear();
        for (int r = 0; r < ranks_; ++r) {
            send_displs_[r] = static_cast<int>(send_.size());
            lengths[r] = static_cast<std::uint32_t>(encode(r, send_));
            send_counts_[r] = static_cast<int>(lengths[r]);
        }
        comm_->alltoall(lengths.data(), sizeof(std::uint32_t), incoming.data());
        bytes_ += ranks_ * sizeof(std::uint32_t);
        bytes_received_ += ranks_ * sizeof(std::uint32_t);

        std::size_t received = 0;
        for (int r = 0; r < ranks_; ++r) {
            receive_counts_[r] = static_cast<int>(incoming[r]);
            receive_displs_[r] = static_cast<int>(received);
            received += incoming[r];
        }
        receive_.resize(received);
        comm_->alltoallv(send_.data(), send_counts_, send_displs_, receive_.data(), receive_counts_, receive_displs_);
        rounds_ += 2;
        messages_ += 2;
        bytes_ += send_.size();
        bytes_received_ += received;
        for (int r = 0; r < ranks_; ++r) {
            deliver_block(r, receive_.data() + receive_displs_[r], receive_counts_[r], start, sink);
        }
    }

    std::size_t buffer_bytes() const override { return send_.capacity(); }
    std::size_t receive_buffer_bytes() const override { return receive_.capacity(); }

    std::vector<unsigned char> send_, receive_;
    std::vector<int> send_counts_, receive_counts_, send_displs_, receive_displs_;
};

} // namespace

void count_alltoallv(count_view& view); // dryrun/exchange_counts.cpp

method_entry alltoallv_method() {
    return {
        .name = "alltoallv",
        .description = "directed exchange: per-destination counts by MPI_Alltoall, then exactly the needed entries by "
                       "MPI_Alltoallv (Jordan et al. 2018, section 4)",
        .capabilities = directed_capabilities(),
        .options = {max_init_buffer_option()},
        .variants = {{{{"max_init_buffer_mb", 0.001}}}},
        .make =
            [](const option_reader& o) { return std::make_unique<alltoallv_exchange>(o.real("max_init_buffer_mb")); },
        .count = count_alltoallv,
        .cost_formula = "directed",
        .docs_page = "alltoall",
    };
}

} // namespace spikex
