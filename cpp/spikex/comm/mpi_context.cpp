// MPI backend. Every call goes through `check`, which turns an MPI error code into a
// comm_error exception (MPI_ERRORS_RETURN is set on the communicator, so MPI does not
// abort on its own and we can report the cause). A rank that fails calls abort(), which
// ends the whole job: one failing rank never leaves the others hanging in a collective.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include <mpi.h>

#include "spikex/comm/context.hpp"
#include "spikex/comm/cpu_set.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {
namespace {

void check(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    throw comm_error(spikex::format("{} failed: {}", what, std::string_view(text, len)));
}

class mpi_context final: public context {
public:
    mpi_context() {
        // The engine calls from thread 0 of its worker_team, the caller's thread
        // (engine::run_stretch); MPI_THREAD_SERIALIZED is asked for and checked, not assumed,
        // so that a call from another thread, one at a time, stays allowed.
        int initialized = 0, provided = MPI_THREAD_SINGLE;
        MPI_Initialized(&initialized);
        if (!initialized) {
            check(MPI_Init_thread(nullptr, nullptr, requested_level(), &provided), "MPI_Init_thread");
        } else {
            check(MPI_Query_thread(&provided), "MPI_Query_thread");
        }
        provided_ = provided >= MPI_THREAD_MULTIPLE     ? thread_level::multiple
                    : provided >= MPI_THREAD_SERIALIZED ? thread_level::serialized
                    : provided >= MPI_THREAD_FUNNELED   ? thread_level::funneled
                                                        : thread_level::single;
        if (provided_ < required_thread_level) {
            throw comm_error(
                spikex::format("MPI provides {}, spikex needs {} (exchange calls may come from any of a "
                               "rank's threads, one at a time); use an MPI library built with thread support",
                               thread_level_name(provided_), thread_level_name(required_thread_level)));
        }
        check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
    }

    std::string backend() const override { return "mpi"; }
    thread_level threads_provided() const override { return provided_; }
    std::int64_t max_tag() const override {
        void* value = nullptr;
        int found = 0;
        check(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &value, &found), "MPI_Comm_get_attr(MPI_TAG_UB)");
        return found ? *static_cast<int*>(value) : 32767; // the standard's minimum
    }
    int rank() const override { return rank_; }
    int size() const override { return size_; }

    void barrier() override {
        ++counters_.collectives;
        check(MPI_Barrier(comm_), "MPI_Barrier");
    }

    void allgather(const void* send, std::size_t bytes, void* recv) override {
        ++counters_.collectives;
        ++counters_.messages_sent;
        counters_.bytes_sent += bytes;
        check(MPI_Allgather(send, static_cast<int>(bytes), MPI_BYTE, recv, static_cast<int>(bytes), MPI_BYTE, comm_),
              "MPI_Allgather");
    }

    void allgatherv(const void* send, std::size_t bytes, void* recv, const std::vector<int>& counts,
                    const std::vector<int>& displs) override {
        ++counters_.collectives;
        ++counters_.messages_sent;
        counters_.bytes_sent += bytes;
        check(MPI_Allgatherv(send, static_cast<int>(bytes), MPI_BYTE, recv, counts.data(), displs.data(), MPI_BYTE,
                             comm_),
              "MPI_Allgatherv");
    }

    void alltoall(const void* send, std::size_t bytes_each, void* recv) override {
        ++counters_.collectives;
        ++counters_.messages_sent;
        counters_.bytes_sent += bytes_each * size_;
        check(MPI_Alltoall(send, static_cast<int>(bytes_each), MPI_BYTE, recv, static_cast<int>(bytes_each), MPI_BYTE,
                           comm_),
              "MPI_Alltoall");
    }

    void alltoallv(const void* send, const std::vector<int>& send_counts, const std::vector<int>& send_displs,
                   void* recv, const std::vector<int>& recv_counts, const std::vector<int>& recv_displs) override {
        ++counters_.collectives;
        ++counters_.messages_sent;
        for (int c: send_counts) counters_.bytes_sent += c;
        check(MPI_Alltoallv(send, send_counts.data(), send_displs.data(), MPI_BYTE, recv, recv_counts.data(),
                            recv_displs.data(), MPI_BYTE, comm_),
              "MPI_Alltoallv");
    }

    void allreduce_sum(std::int64_t* values, int count) override {
        ++counters_.collectives;
        check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_INT64_T, MPI_SUM, comm_), "MPI_Allreduce");
    }

    request iallreduce_sum(std::int64_t* values, int count) override {
        ++counters_.collectives;
        MPI_Request r;
        check(MPI_Iallreduce(MPI_IN_PLACE, values, count, MPI_INT64_T, MPI_SUM, comm_, &r), "MPI_Iallreduce");
        return wrap(r, false);
    }

    request isend(int dest, int tag, const void* buf, std::size_t bytes) override {
        ++counters_.messages_sent;
        counters_.bytes_sent += bytes;
        MPI_Request r;
        check(MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, dest, tag, comm_, &r), "MPI_Isend");
        return wrap(r, false);
    }

    request irecv(int source, int tag, void* buf, std::size_t bytes) override {
        MPI_Request r;
        check(MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, mpi_source(source), mpi_tag(tag), comm_, &r),
              "MPI_Irecv");
        return wrap(r, false);
    }

    bool test(request& r) override {
        if (!r.active) return true;
        MPI_Request m = unwrap(r);
        int done = 0;
        check(MPI_Test(&m, &done, MPI_STATUS_IGNORE), "MPI_Test");
        store(r, m);
        if (done) r.active = false;
        return done != 0;
    }

    void wait(request& r) override {
        if (!r.active) return;
        MPI_Request m = unwrap(r);
        check(MPI_Wait(&m, MPI_STATUS_IGNORE), "MPI_Wait");
        store(r, m);
        r.active = false;
    }

    bool iprobe(int source, int tag, probe_result& found) override {
        int flag = 0;
        MPI_Status status;
        check(MPI_Iprobe(mpi_source(source), mpi_tag(tag), comm_, &flag, &status), "MPI_Iprobe");
        if (!flag) return false;
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        found = {status.MPI_SOURCE, status.MPI_TAG, static_cast<std::size_t>(count)};
        return true;
    }

    void recv(int source, int tag, void* buf, std::size_t bytes) override {
        check(MPI_Recv(buf, static_cast<int>(bytes), MPI_BYTE, mpi_source(source), mpi_tag(tag), comm_,
                       MPI_STATUS_IGNORE),
              "MPI_Recv");
    }

    request send_init(int dest, int tag, const void* buf, std::size_t bytes) override {
        MPI_Request r;
        check(MPI_Send_init(buf, static_cast<int>(bytes), MPI_BYTE, dest, tag, comm_, &r), "MPI_Send_init");
        request out = wrap(r, true);
        out.active = false;
        out.handle_bytes = bytes;
        return out;
    }

    void start(request& r) override {
        ++counters_.messages_sent;
        counters_.bytes_sent += r.handle_bytes;
        MPI_Request m = unwrap(r);
        check(MPI_Start(&m), "MPI_Start");
        store(r, m);
        r.active = true;
    }

    void request_free(request& r) override {
        MPI_Request m = unwrap(r);
        if (m != MPI_REQUEST_NULL) check(MPI_Request_free(&m), "MPI_Request_free");
        r = {};
    }

    window window_create(void* base, std::size_t bytes) override {
        ++counters_.collectives;
        MPI_Win w;
        check(MPI_Win_create(base, static_cast<MPI_Aint>(bytes), 1, MPI_INFO_NULL, comm_, &w), "MPI_Win_create");
        MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
        window out{0, base, bytes};
        std::memcpy(&out.handle, &w, sizeof w);
        return out;
    }

    void window_free(window& w) override {
        MPI_Win m = unwrap_window(w);
        check(MPI_Win_free(&m), "MPI_Win_free");
        w = {};
    }

    void lock_all(window& w) override { check(MPI_Win_lock_all(0, unwrap_window(w)), "MPI_Win_lock_all"); }
    void unlock_all(window& w) override { check(MPI_Win_unlock_all(unwrap_window(w)), "MPI_Win_unlock_all"); }
    void flush_all(window& w) override { check(MPI_Win_flush_all(unwrap_window(w)), "MPI_Win_flush_all"); }
    void window_sync(window& w) override { check(MPI_Win_sync(unwrap_window(w)), "MPI_Win_sync"); }

    void put(const void* origin, std::size_t bytes, int target, std::size_t offset, window& w) override {
        ++counters_.messages_sent;
        counters_.bytes_sent += bytes;
        check(MPI_Put(origin, static_cast<int>(bytes), MPI_BYTE, target, static_cast<MPI_Aint>(offset),
                      static_cast<int>(bytes), MPI_BYTE, unwrap_window(w)),
              "MPI_Put");
    }

    std::int64_t fetch_add(std::int64_t value, int target, std::size_t offset, window& w) override {
        std::int64_t old = 0;
        MPI_Win m = unwrap_window(w);
        check(MPI_Fetch_and_op(&value, &old, MPI_INT64_T, target, static_cast<MPI_Aint>(offset), MPI_SUM, m),
              "MPI_Fetch_and_op");
        check(MPI_Win_flush(target, m), "MPI_Win_flush");
        return old;
    }

    shared_memory shared_allocate(std::size_t bytes) override {
        ++counters_.collectives;
        MPI_Comm node = MPI_COMM_NULL;
        check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
        MPI_Info info = MPI_INFO_NULL;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true"); // each segment near its owner
        void* mine = nullptr;
        MPI_Win w = MPI_WIN_NULL;
        // An MPI whose one-sided component cannot share memory (e.g. only osc ucx selected)
        // fails here: then, as with the separate memory model, no rank gets mailboxes.
        const int created =
            MPI_Win_allocate_shared(static_cast<MPI_Aint>(std::max<std::size_t>(bytes, 1)), 1, info, node, &mine, &w);
        MPI_Info_free(&info);
        // Direct loads and stores need the unified model (public and private copies are one).
        bool unified = false;
        if (created == MPI_SUCCESS) {
            MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
            int* model = nullptr;
            int found = 0;
            MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &found);
            unified = found && *model == MPI_WIN_UNIFIED;
        }
        unified = reduce(unified ? 1 : 0, MPI_MIN) == 1; // every rank, or none
        shared_memory m;
        if (unified) {
            std::memset(mine, 0, bytes);
            std::memcpy(&m.handle, &w, sizeof w);
            m.bytes = bytes;
            m.segment.assign(static_cast<std::size_t>(size_), nullptr);
            int node_size = 0;
            MPI_Comm_size(node, &node_size);
            MPI_Group world_group, node_group;
            MPI_Comm_group(comm_, &world_group);
            MPI_Comm_group(node, &node_group);
            for (int q = 0; q < node_size; ++q) {
                int world = MPI_UNDEFINED;
                MPI_Group_translate_ranks(node_group, 1, &q, world_group, &world);
                MPI_Aint size = 0;
                int unit = 0;
                void* base = nullptr;
                check(MPI_Win_shared_query(w, q, &size, &unit, &base), "MPI_Win_shared_query");
                m.segment[static_cast<std::size_t>(world)] = static_cast<unsigned char*>(base);
            }
            MPI_Group_free(&world_group);
            MPI_Group_free(&node_group);
        } else if (created == MPI_SUCCESS) {
            check(MPI_Win_free(&w), "MPI_Win_free");
        }
        MPI_Comm_free(&node); // the window keeps what it needs
        // Every segment is zeroed before any rank stores into another's.
        check(MPI_Barrier(comm_), "MPI_Barrier");
        return m;
    }

    void shared_free(shared_memory& m) override {
        if (!m.available()) return;
        MPI_Win w;
        std::memcpy(&w, &m.handle, sizeof w);
        check(MPI_Win_free(&w), "MPI_Win_free");
        m = {};
    }

    std::int64_t allreduce_sum(std::int64_t v) override { return reduce(v, MPI_SUM); }
    std::int64_t allreduce_max(std::int64_t v) override { return reduce(v, MPI_MAX); }
    std::int64_t allreduce_min(std::int64_t v) override { return reduce(v, MPI_MIN); }

    node_share share_of_node() override {
        ++counters_.collectives;
        MPI_Comm node = MPI_COMM_NULL;
        check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
        std::vector<unsigned char> mine = own_cpu_set(), all(mine.size());
        check(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_UNSIGNED_CHAR, MPI_BOR, node),
              "MPI_Allreduce");
        node_share share;
        MPI_Comm_size(node, &share.ranks);
        share.cores = std::max(cpu_count(all), 1);
        MPI_Comm_free(&node);
        return share;
    }

    [[noreturn]] void abort(int code) override {
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);
    }

private:
    static_assert(sizeof(MPI_Request) <= sizeof(std::intptr_t), "MPI_Request must fit the opaque handle");
    static_assert(sizeof(MPI_Win) <= sizeof(std::intptr_t), "MPI_Win must fit the opaque handle");

    static request wrap(MPI_Request m, bool persistent) {
        request r;
        store(r, m);
        r.active = true;
        r.persistent = persistent;
        return r;
    }
    static void store(request& r, MPI_Request m) {
        r.handle = 0;
        std::memcpy(&r.handle, &m, sizeof m);
    }
    static MPI_Request unwrap(const request& r) {
        MPI_Request m;
        std::memcpy(&m, &r.handle, sizeof m);
        return m;
    }
    static MPI_Win unwrap_window(const window& w) {
        MPI_Win m;
        std::memcpy(&m, &w.handle, sizeof m);
        return m;
    }
    static int mpi_source(int source) { return source == any_source ? MPI_ANY_SOURCE : source; }
    static int mpi_tag(int tag) { return tag == any_tag ? MPI_ANY_TAG : tag; }

    std::int64_t reduce(std::int64_t v, MPI_Op op) {
        ++counters_.collectives;
        std::int64_t out = 0;
        check(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, op, comm_), "MPI_Allreduce");
        return out;
    }

    // The level asked for: MPI_THREAD_SERIALIZED. Test hook: SPIKEX_TEST_MPI_THREAD_LEVEL=
    // funneled asks for MPI_THREAD_FUNNELED, to show that a lower level is refused.
    static int requested_level() {
        const char* level = std::getenv("SPIKEX_TEST_MPI_THREAD_LEVEL");
        if (level && std::string(level) == "funneled") return MPI_THREAD_FUNNELED;
        return MPI_THREAD_SERIALIZED;
    }

    thread_level provided_ = thread_level::single;
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 1;
};

} // namespace

std::unique_ptr<context> make_mpi_context() { return std::make_unique<mpi_context>(); }

std::string thread_level_name(thread_level level) {
    switch (level) {
    case thread_level::single:
        return "MPI_THREAD_SINGLE";
    case thread_level::funneled:
        return "MPI_THREAD_FUNNELED";
    case thread_level::serialized:
        return "MPI_THREAD_SERIALIZED";
    case thread_level::multiple:
        return "MPI_THREAD_MULTIPLE";
    }
    return "?";
}

bool launched_by_mpi() {
    for (const char* var: {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"}) {
        if (std::getenv(var)) return true;
    }
    return false;
}

bool mpi_finalized() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    return finalized != 0;
}

void finalize_mpi_if_initialized() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Finalize();
}

} // namespace spikex
