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

// Handle of a non-blocking or persistent operation; the backend's request inside.
struct request {
    std::intptr_t handle = 0;
    bool active = false;          // started and not yet completed
    bool persistent = false;      // created by send_init: reusable until request_free
    std::size_t handle_bytes = 0; // persistent sends: message size (for the counters)
};

// What iprobe found: a message waiting to be received.
struct probe_result {
    int source = -1;
    int tag = -1;
    std::size_t bytes = 0;
};

// A memory region of every rank exposed for one-sided access (MPI window).
struct window {
    std::intptr_t handle = 0;
    void* base = nullptr;
    std::size_t bytes = 0;
};

// Memory that the ranks of one node load and store directly (MPI_Win_allocate_shared on
// the node's ranks, unified memory model). Synchronise with lock-free std::atomic_ref
// operations on it: they are address-free, so they order accesses across processes.
struct shared_memory {
    std::intptr_t handle = 0;            // the backend's window
    std::vector<unsigned char*> segment; // per rank of the job: its segment, nullptr if not on this node
    std::size_t bytes = 0;               // per segment
    bool available() const { return handle != 0; }
};

// The ranks on one node and the cores they may run on between them (the union of their
// CPU affinity masks): more ranks than cores means they take turns on the cores.
struct node_share {
    int ranks = 1;
    int cores = 1;
    bool oversubscribed() const { return ranks > cores; }
};

// MPI's thread support levels (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE), in order.
// The engine makes its exchange calls from thread 0 of its worker_team (the caller's),
// one at a time; spikex asks MPI for at least `serialized`, so that any of a rank's
// threads may call, one at a time (docs/dev/architecture.md, Threads).
enum class thread_level { single = 0, funneled = 1, serialized = 2, multiple = 3 };
inline constexpr thread_level required_thread_level = thread_level::serialized;
std::string thread_level_name(thread_level level); // "MPI_THREAD_SERIALIZED", ...

inline constexpr int any_source = -1;
inline constexpr int any_tag = -1;

// Counters every backend keeps, so exchanges can report messages and bytes honestly.
struct comm_counters {
    std::uint64_t collectives = 0;   // collective calls made by this rank
    std::uint64_t messages_sent = 0; // point-to-point messages or collective contributions
    std::uint64_t bytes_sent = 0;    // payload bytes this rank contributed
};

class context {
public:
    virtual ~context() = default;

    virtual std::string backend() const = 0;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // The thread support the backend runs with (serial: any thread may call, `multiple`).
    virtual thread_level threads_provided() const = 0;
    // The largest message tag the backend accepts (MPI_TAG_UB; the standard guarantees
    // at least 32767, OpenMPI gives 2^31 - 1). The same on every rank.
    virtual std::int64_t max_tag() const = 0;

    virtual void barrier() = 0;

    // Every rank contributes `bytes` bytes; `recv` receives size()*bytes in rank order.
    virtual void allgather(const void* send, std::size_t bytes, void* recv) = 0;

    // Rank r contributes counts[r] bytes (known to all); placed at displs[r] in recv.
    virtual void allgatherv(const void* send, std::size_t bytes, void* recv, const std::vector<int>& counts,
                            const std::vector<int>& displs) = 0;

    virtual std::int64_t allreduce_sum(std::int64_t v) = 0;
    virtual std::int64_t allreduce_max(std::int64_t v) = 0;
    virtual std::int64_t allreduce_min(std::int64_t v) = 0;

    // Every rank sends bytes_each bytes to every rank (rank-ordered blocks of bytes_each).
    virtual void alltoall(const void* send, std::size_t bytes_each, void* recv) = 0;

    // Byte counts and displacements per rank, as MPI_Alltoallv.
    virtual void alltoallv(const void* send, const std::vector<int>& send_counts, const std::vector<int>& send_displs,
                           void* recv, const std::vector<int>& recv_counts, const std::vector<int>& recv_displs) = 0;

    // Element-wise sums over ranks, in place.
    virtual void allreduce_sum(std::int64_t* values, int count) = 0;

    // The same without blocking (MPI_Iallreduce): `values` must stay valid and untouched
    // until test() or wait() completes the request. Ranks keep communicating meanwhile
    // (the route library's termination waves need this).
    virtual request iallreduce_sum(std::int64_t* values, int count) = 0;

    // --- point to point (the buffer must stay valid until the request completes) -----
    virtual request isend(int dest, int tag, const void* buf, std::size_t bytes) = 0;
    virtual request irecv(int source, int tag, void* buf, std::size_t bytes) = 0;
    virtual bool test(request& r) = 0; // true once complete; then r.active == false
    virtual void wait(request& r) = 0;
    virtual bool iprobe(int source, int tag, probe_result& found) = 0;
    virtual void recv(int source, int tag, void* buf, std::size_t bytes) = 0;

    // Persistent sends (MPI_Send_init / MPI_Start): set up once, started many times.
    virtual request send_init(int dest, int tag, const void* buf, std::size_t bytes) = 0;
    virtual void start(request& r) = 0;
    virtual void request_free(request& r) = 0;

    // --- one-sided communication (passive target) -------------------------------------
    // Collective: every rank exposes `bytes` bytes at `base`.
    virtual window window_create(void* base, std::size_t bytes) = 0;
    virtual void window_free(window& w) = 0; // collective
    virtual void lock_all(window& w) = 0;
    virtual void unlock_all(window& w) = 0;
    virtual void flush_all(window& w) = 0;
    // Synchronises the public and private copies of this rank's window (MPI_Win_sync):
    // after a process synchronisation, local loads see what others put.
    virtual void window_sync(window&) {}
    virtual void put(const void* origin, std::size_t bytes, int target, std::size_t offset, window& w) = 0;
    // Atomically adds `value` to the int64 at `offset` of `target`'s window; returns the
    // previous value.
    virtual std::int64_t fetch_add(std::int64_t value, int target, std::size_t offset, window& w) = 0;

    // --- memory shared within a node -------------------------------------------------
    // Collective: every rank allocates `bytes` bytes, zeroed, that the ranks on its node can
    // reach through segment[rank]. Not available() (no segments) when the backend cannot
    // share memory that way (MPI's separate memory model); the caller then uses messages.
    virtual shared_memory shared_allocate(std::size_t bytes) = 0;
    virtual void shared_free(shared_memory& m) = 0; // collective
    // Collective: this rank's node, its ranks and their cores.
    virtual node_share share_of_node() = 0;

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
// Initialises MPI if needed, asking for MPI_THREAD_SERIALIZED; throws comm_error when MPI
// provides less (or was initialised by someone else with less).
std::unique_ptr<context> make_mpi_context();

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
// True once MPI_Finalize has been called: MPI objects can then no longer be freed (an
// exchange destroyed at interpreter exit must leave its requests and windows alone).
bool mpi_finalized();
} // namespace spikex
