// Exchange "alltoallv" — the alternative Jordan et al. 2018 discuss in section 4: counts
// first, then exactly the needed entries.
//
// Algorithm: target-addressed entries are collected per destination as for alltoall. At
//   the interval end one MPI_Alltoall of one 4-byte count per rank pair, then one
//   MPI_Alltoallv that moves exactly the entries; receivers deliver each entry straight to
//   its source run / connection. Always two collectives, never padding, never a retry.
// Cost per interval: 4 P bytes of counts per rank plus 8 bytes per entry actually needed;
//   receive buffer = the entries a rank needs, independent of P.
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
        std::vector<std::uint32_t> counts(ranks_), incoming(ranks_);
        std::size_t total = 0;
        for (int r = 0; r < ranks_; ++r) {
            counts[r] = static_cast<std::uint32_t>(pending_[r].size());
            total += counts[r];
        }
        comm_->alltoall(counts.data(), sizeof(std::uint32_t), incoming.data());
        bytes_ += ranks_ * sizeof(std::uint32_t);
        bytes_received_ += ranks_ * sizeof(std::uint32_t);

        send_.resize(total);
        std::size_t offset = 0, received = 0;
        for (int r = 0; r < ranks_; ++r) {
            std::copy(pending_[r].begin(), pending_[r].end(), send_.begin() + offset);
            send_counts_[r] = static_cast<int>(counts[r] * sizeof(directed_entry));
            send_displs_[r] = static_cast<int>(offset * sizeof(directed_entry));
            offset += counts[r];
            receive_counts_[r] = static_cast<int>(incoming[r] * sizeof(directed_entry));
            receive_displs_[r] = static_cast<int>(received * sizeof(directed_entry));
            received += incoming[r];
        }
        receive_.resize(received);
        comm_->alltoallv(send_.data(), send_counts_, send_displs_, receive_.data(), receive_counts_, receive_displs_);
        rounds_ += 2;
        messages_ += 2;
        bytes_ += total * sizeof(directed_entry);
        bytes_received_ += received * sizeof(directed_entry);
        for (const auto& e: receive_) deliver(e, start, sink);
    }

    std::size_t buffer_bytes() const override { return send_.capacity() * sizeof(directed_entry); }
    std::size_t receive_buffer_bytes() const override { return receive_.capacity() * sizeof(directed_entry); }

    std::vector<directed_entry> send_, receive_;
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
