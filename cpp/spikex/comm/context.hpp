#pragma once
// The communication context: the only layer that talks to MPI. Backends: serial (one
// process, no launcher needed) and MPI. The interface is generic and thin: exchange
// strategies build spike-specific operations on top of it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spikex {

// Counters every backend keeps, so exchanges can report messages and bytes honestly.
struct comm_counters {
    std::uint64_t collectives = 0; // collective calls made by this rank
    std::uint64_t messages_sent = 0; // point-to-point messages or collective contributions
    std::uint64_t bytes_sent = 0;  // payload bytes this rank contributed
};

class context {
public:
    virtual ~context() = default;

    virtual std::string backend() const = 0;
    virtual int rank() const = 0;
    virtual int size() const = 0;

    virtual void barrier() = 0;

    // Every rank contributes `bytes` bytes; `recv` receives size()*bytes in rank order.
    virtual void allgather(const void* send, std::size_t bytes, void* recv) = 0;

    // Rank r contributes counts[r] bytes (known to all); placed at displs[r] in recv.
    virtual void allgatherv(const void* send, std::size_t bytes, void* recv,
                            const std::vector<int>& counts, const std::vector<int>& displs) = 0;

    virtual std::int64_t allreduce_sum(std::int64_t v) = 0;
    virtual std::int64_t allreduce_max(std::int64_t v) = 0;
    virtual std::int64_t allreduce_min(std::int64_t v) = 0;

    // Ends every process of the job. Never returns.
    [[noreturn]] virtual void abort(int code) = 0;

    const comm_counters& counters() const { return counters_; }

    // Gathers a variable number of elements of trivially copyable type T from every rank.
    template <typename T>
    std::vector<T> allgather_vector(const std::vector<T>& local);

protected:
    comm_counters counters_;
};

std::unique_ptr<context> make_serial_context();
std::unique_ptr<context> make_mpi_context(); // initialises MPI if needed

// True when this process was started by an MPI launcher (mpiexec / mpirun).
bool launched_by_mpi();

template <typename T>
std::vector<T> context::allgather_vector(const std::vector<T>& local) {
    int n = size();
    std::int64_t mine = static_cast<std::int64_t>(local.size() * sizeof(T));
    std::vector<std::int64_t> sizes(n);
    allgather(&mine, sizeof mine, sizes.data());
    std::vector<int> counts(n), displs(n);
    std::int64_t total = 0;
    for (int r = 0; r < n; ++r) {
        counts[r] = static_cast<int>(sizes[r]);
        displs[r] = static_cast<int>(total);
        total += sizes[r];
    }
    std::vector<T> all(static_cast<std::size_t>(total) / sizeof(T));
    allgatherv(local.data(), static_cast<std::size_t>(mine), all.data(), counts, displs);
    return all;
}

} // namespace spikex

namespace spikex {
// Calls MPI_Finalize if MPI was initialised and not yet finalised.
void finalize_mpi_if_initialized();
} // namespace spikex
