// MPI backend. Every call goes through `check`, which turns an MPI error code into a
// comm_error exception (MPI_ERRORS_RETURN is set on the communicator, so MPI does not
// abort on its own and we can report the cause). A rank that fails calls abort(), which
// ends the whole job: one failing rank never leaves the others hanging in a collective.
#include <cstdlib>
#include <string>

#include <mpi.h>

#include "spikex/comm/context.hpp"
#include "spikex/core/errors.hpp"

namespace spikex {
namespace {

void check(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    throw comm_error(std::string(what) + " failed: " + std::string(text, len));
}

class mpi_context final: public context {
public:
    mpi_context() {
        int initialized = 0;
        MPI_Initialized(&initialized);
        if (!initialized) {
            int provided = 0;
            check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
        }
        check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
    }

    std::string backend() const override { return "mpi"; }
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
        check(MPI_Allgather(send, static_cast<int>(bytes), MPI_BYTE, recv, static_cast<int>(bytes),
                            MPI_BYTE, comm_),
              "MPI_Allgather");
    }

    void allgatherv(const void* send, std::size_t bytes, void* recv, const std::vector<int>& counts,
                    const std::vector<int>& displs) override {
        ++counters_.collectives;
        ++counters_.messages_sent;
        counters_.bytes_sent += bytes;
        check(MPI_Allgatherv(send, static_cast<int>(bytes), MPI_BYTE, recv, counts.data(),
                             displs.data(), MPI_BYTE, comm_),
              "MPI_Allgatherv");
    }

    std::int64_t allreduce_sum(std::int64_t v) override { return reduce(v, MPI_SUM); }
    std::int64_t allreduce_max(std::int64_t v) override { return reduce(v, MPI_MAX); }
    std::int64_t allreduce_min(std::int64_t v) override { return reduce(v, MPI_MIN); }

    [[noreturn]] void abort(int code) override {
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);
    }

private:
    std::int64_t reduce(std::int64_t v, MPI_Op op) {
        ++counters_.collectives;
        std::int64_t out = 0;
        check(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, op, comm_), "MPI_Allreduce");
        return out;
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 1;
};

} // namespace

std::unique_ptr<context> make_mpi_context() { return std::make_unique<mpi_context>(); }

bool launched_by_mpi() {
    for (const char* var: {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"}) {
        if (std::getenv(var)) return true;
    }
    return false;
}

void finalize_mpi_if_initialized() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Finalize();
}

} // namespace spikex
