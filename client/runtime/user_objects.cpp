// CUDA user objects, kept on the client alone (the server never sees one): the books
// (user_object_books.h) count references, and destructors run here, on a thread of rgpu's, never
// inside the program's CUDA call (cudaUserObjectNoDestructorSync is the one mode CUDA offers: a
// destructor must not call CUDA). An executable graph's references are released once the work
// launched from it has completed: a client function is put in each stream it was launched into
// (stream_callbacks.h), and the last of them to run releases them.
#include <cuda_runtime_api.h>

#include <atomic>
#include <climits>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "client/runtime/capture.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/graph_books.h"
#include "client/runtime/stream_callbacks.h"
#include "client/runtime/user_object_books.h"

namespace rgpu::client {
namespace {

UserObjectBooks& books() {
  static auto* b = new UserObjectBooks();
  return *b;
}

// Runs destructors in the order they fell due, on one thread started at the first (left running
// at exit, as the books are: a destructor due then may not run).
class DestructorThread {
 public:
  static DestructorThread& get() {
    static auto* t = new DestructorThread();
    return *t;
  }
  void run(Destructors due) {
    if (due.empty()) return;
    std::lock_guard<std::mutex> lock(mu_);
    queue_.insert(queue_.end(), due.begin(), due.end());
    if (!started_) {
      std::thread([this] { loop(); }).detach();
      started_ = true;
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return !queue_.empty(); });
      Destructor d = queue_.front();
      queue_.pop_front();
      lock.unlock();
      d.fn(d.ptr);
      lock.lock();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Destructor> queue_;
  bool started_ = false;
};

void release_now(const References& refs) {
  Destructors due;
  books().release_references(refs, &due);
  DestructorThread::get().run(std::move(due));
}

// Releases `r.refs` once each of `r.streams` has reached this point. A stream that cannot take the
// function any more (destroyed since) is waited for through the legacy default stream, which waits
// for the blocking streams' work; one that is capturing now would capture the function into its
// graph instead of running it, so it is not waited for.
void release_after_launched_work(RetiredReferences r) {
  if (r.refs.empty()) return;
  struct Pending {
    std::atomic<size_t> streams;
    References refs;
  };
  auto pending = std::make_shared<Pending>();
  pending->streams = r.streams.size() + 1;  // one more for this function, counted down last
  pending->refs = std::move(r.refs);
  auto count_down = [pending] {
    if (pending->streams.fetch_sub(1) == 1) release_now(pending->refs);
  };
  for (uint64_t id : r.streams) {
    auto stream = reinterpret_cast<cudaStream_t>(id);
    if (stream_capturing(stream) || (run_in_stream_order(stream, count_down) != cudaSuccess &&
                  run_in_stream_order(nullptr, count_down) != cudaSuccess))
      count_down();
  }
  count_down();
}

// A count of references as CUDA takes it: at least one, at most INT_MAX.
bool valid_count(unsigned int n) { return n >= 1 && n <= INT_MAX; }

uint64_t id_of(cudaUserObject_t object) { return reinterpret_cast<uint64_t>(object); }

cudaError_t create(cudaUserObject_t* out, void* ptr, cudaHostFn_t destroy, unsigned int refs, unsigned int flags) {
  if (!out || !destroy || !valid_count(refs) || flags != cudaUserObjectNoDestructorSync) return cudaErrorInvalidValue;
  *out = reinterpret_cast<cudaUserObject_t>(books().create(destroy, ptr, refs));
  return cudaSuccess;
}

cudaError_t retain(cudaUserObject_t object, unsigned int n) {
  return valid_count(n) && books().retain(id_of(object), n) ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t release(cudaUserObject_t object, unsigned int n) {
  Destructors due;
  if (!valid_count(n) || !books().release(id_of(object), n, &due)) return cudaErrorInvalidValue;
  DestructorThread::get().run(std::move(due));
  return cudaSuccess;
}

cudaError_t graph_retain(cudaGraph_t graph, cudaUserObject_t object, unsigned int n, unsigned int flags) {
  if (!graph || !valid_count(n) || (flags & ~unsigned{cudaGraphUserObjectMove})) return cudaErrorInvalidValue;
  bool move = flags & cudaGraphUserObjectMove;
  return books().graph_retain(reinterpret_cast<uint64_t>(graph), id_of(object), n, move) ? cudaSuccess
                                                                                         : cudaErrorInvalidValue;
}

cudaError_t graph_release(cudaGraph_t graph, cudaUserObject_t object, unsigned int n) {
  Destructors due;
  if (!graph || !valid_count(n) || !books().graph_release(reinterpret_cast<uint64_t>(graph), id_of(object), n, &due))
    return cudaErrorInvalidValue;
  DestructorThread::get().run(std::move(due));
  return cudaSuccess;
}

}  // namespace

void user_objects_graph_destroyed(cudaGraph_t graph) {
  Destructors due;
  books().graph_destroyed(reinterpret_cast<uint64_t>(graph), &due);
  DestructorThread::get().run(std::move(due));
}

void user_objects_graph_copied(cudaGraph_t to, cudaGraph_t from) {
  books().graph_copied(reinterpret_cast<uint64_t>(to), reinterpret_cast<uint64_t>(from));
}

void user_objects_instantiated(cudaGraphExec_t exec, cudaGraph_t graph) {
  books().instantiated(reinterpret_cast<uint64_t>(exec), reinterpret_cast<uint64_t>(graph));
}

void user_objects_exec_updated(cudaGraphExec_t exec, cudaGraph_t graph) {
  release_after_launched_work(books().exec_updated(reinterpret_cast<uint64_t>(exec), reinterpret_cast<uint64_t>(graph)));
}

void user_objects_launched(cudaGraphExec_t exec, cudaStream_t stream) {
  books().launched(reinterpret_cast<uint64_t>(exec), reinterpret_cast<uint64_t>(stream));
}

void user_objects_exec_destroyed(cudaGraphExec_t exec) {
  release_after_launched_work(books().exec_destroyed(reinterpret_cast<uint64_t>(exec)));
}

}  // namespace rgpu::client

using rgpu::client::cudart_finish;

extern "C" cudaError_t cudaUserObjectCreate(cudaUserObject_t* object_out, void* ptr, cudaHostFn_t destroy,
                                            unsigned int initialRefcount, unsigned int flags) {
  return cudart_finish(rgpu::client::create(object_out, ptr, destroy, initialRefcount, flags));
}
extern "C" cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
  return cudart_finish(rgpu::client::retain(object, count));
}
extern "C" cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
  return cudart_finish(rgpu::client::release(object, count));
}
extern "C" cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count,
                                                 unsigned int flags) {
  return cudart_finish(rgpu::client::graph_retain(graph, object, count, flags));
}
extern "C" cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count) {
  return cudart_finish(rgpu::client::graph_release(graph, object, count));
}
