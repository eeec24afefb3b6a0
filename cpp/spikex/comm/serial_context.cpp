// Serial backend: one rank, collectives are copies. No MPI call is made, so a
// single-process run needs no launcher. Point-to-point messages can only go to self
// (rank 0): they wait in a mailbox until received.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>

#include "spikex/comm/context.hpp"
#include "spikex/comm/cpu_set.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {
namespace {

class serial_context final: public context {
public:
    std::string backend() const override { return "serial"; }
    thread_level threads_provided() const override { return thread_level::multiple; }
    std::int64_t max_tag() const override { return 2147483647; }
    int rank() const override { return 0; }
    int size() const override { return 1; }
    void barrier() override { ++counters_.collectives; }

    void allgather(const void* send, std::size_t bytes, void* recv) override {
        ++counters_.collectives;
        if (bytes) std::memmove(recv, send, bytes);
    }

    void allgatherv(const void* send, std::size_t bytes, void* recv, const std::vector<int>&,
                    const std::vector<int>& displs) override {
        ++counters_.collectives;
        if (bytes) std::memmove(static_cast<char*>(recv) + displs[0], send, bytes);
    }

    void alltoall(const void* send, std::size_t bytes_each, void* recv) override {
        ++counters_.collectives;
        if (bytes_each) std::memmove(recv, send, bytes_each);
    }

    void alltoallv(const void* send, const std::vector<int>& send_counts, const std::vector<int>& send_displs,
                   void* recv, const std::vector<int>&, const std::vector<int>& recv_displs) override {
        ++counters_.collectives;
        if (send_counts[0]) {
            std::memmove(static_cast<char*>(recv) + recv_displs[0], static_cast<const char*>(send) + send_displs[0],
                         send_counts[0]);
        }
    }

    std::int64_t allreduce_sum(std::int64_t v) override {
        ++counters_.collectives;
        return v;
    }
    std::int64_t allreduce_max(std::int64_t v) override {
        ++counters_.collectives;
        return v;
    }
    std::int64_t allreduce_min(std::int64_t v) override {
        ++counters_.collectives;
        return v;
    }
    void allreduce_sum(std::int64_t*, int) override { ++counters_.collectives; }
    request iallreduce_sum(std::int64_t*, int) override {
        ++counters_.collectives;
        return {}; // complete at once: the sum over one rank is the values themselves
    }

    request isend(int dest, int tag, const void* buf, std::size_t bytes) override {
        require_self(dest);
        post(tag, buf, bytes);
        return {};
    }
    request irecv(int, int, void*, std::size_t) override {
        throw internal_error("serial backend: irecv is not supported (use iprobe + recv)");
    }
    bool test(request& r) override {
        r.active = false;
        return true;
    }
    void wait(request& r) override { r.active = false; }

    bool iprobe(int source, int tag, probe_result& found) override {
        if (source != any_source) require_self(source);
        for (const auto& m: mailbox_) {
            if (tag == any_tag || m.tag == tag) {
                found = {0, m.tag, m.data.size()};
                return true;
            }
        }
        return false;
    }
    void recv(int source, int tag, void* buf, std::size_t bytes) override {
        if (source != any_source) require_self(source);
        for (auto it = mailbox_.begin(); it != mailbox_.end(); ++it) {
            if (tag == any_tag || it->tag == tag) {
                if (it->data.size() > bytes) throw comm_error("serial recv: message longer than the buffer");
                std::memcpy(buf, it->data.data(), it->data.size());
                mailbox_.erase(it);
                return;
            }
        }
        throw internal_error("serial recv: no message (would block forever)");
    }

    request send_init(int dest, int tag, const void* buf, std::size_t bytes) override {
        require_self(dest);
        persistent_.push_back({tag, buf, bytes});
        request r;
        r.handle = static_cast<std::intptr_t>(persistent_.size() - 1);
        r.persistent = true;
        return r;
    }
    void start(request& r) override {
        const auto& p = persistent_.at(static_cast<std::size_t>(r.handle));
        post(p.tag, p.buf, p.bytes);
    }
    void request_free(request& r) override { r = {}; }

    window window_create(void* base, std::size_t bytes) override {
        ++counters_.collectives;
        return {0, base, bytes};
    }
    void window_free(window& w) override { w = {}; }
    void lock_all(window&) override {}
    void unlock_all(window&) override {}
    void flush_all(window&) override {}
    void put(const void* origin, std::size_t bytes, int target, std::size_t offset, window& w) override {
        require_self(target);
        std::memcpy(static_cast<char*>(w.base) + offset, origin, bytes);
    }
    std::int64_t fetch_add(std::int64_t value, int target, std::size_t offset, window& w) override {
        require_self(target);
        std::int64_t old;
        std::memcpy(&old, static_cast<char*>(w.base) + offset, sizeof old);
        std::int64_t updated = old + value;
        std::memcpy(static_cast<char*>(w.base) + offset, &updated, sizeof updated);
        return old;
    }

    shared_memory shared_allocate(std::size_t bytes) override {
        ++counters_.collectives;
        auto* segment = new unsigned char[std::max<std::size_t>(bytes, 1)]();
        shared_memory m;
        m.handle = reinterpret_cast<std::intptr_t>(segment);
        m.segment = {segment};
        m.bytes = bytes;
        return m;
    }
    void shared_free(shared_memory& m) override {
        delete[] reinterpret_cast<unsigned char*>(m.handle);
        m = {};
    }

    node_share share_of_node() override { return {1, std::max(cpu_count(own_cpu_set()), 1)}; }

    [[noreturn]] void abort(int code) override {
        std::cerr.flush();
        std::_Exit(code);
    }

private:
    struct message {
        int tag;
        std::vector<unsigned char> data;
    };
    struct persistent_send {
        int tag;
        const void* buf;
        std::size_t bytes;
    };

    static void require_self(int rank) {
        if (rank != 0) throw internal_error(spikex::format("serial backend: rank {} does not exist", rank));
    }
    void post(int tag, const void* buf, std::size_t bytes) {
        ++counters_.messages_sent;
        counters_.bytes_sent += bytes;
        auto p = static_cast<const unsigned char*>(buf);
        mailbox_.push_back({tag, std::vector<unsigned char>(p, p + bytes)});
    }

    std::deque<message> mailbox_;
    std::vector<persistent_send> persistent_;
};

} // namespace

std::unique_ptr<context> make_serial_context() { return std::make_unique<serial_context>(); }

} // namespace spikex
