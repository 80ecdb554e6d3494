// The books of CUDA user objects: each object's reference count, and the references that graphs
// and executable graphs own (CUDA programming guide, "Graph memory nodes" / "User objects"). Pure
// bookkeeping, no CUDA call and no thread: an object whose count reaches zero comes back as a
// destructor due, which the caller runs elsewhere (user_objects.cpp runs them on a thread of its
// own). Objects, graphs and executable graphs are named by u64 ids. Thread-safe.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

namespace rgpu::client {

struct Destructor {
  cudaHostFn_t fn;
  void* ptr;
};
using Destructors = std::vector<Destructor>;
using References = std::map<uint64_t, uint64_t>;  // count by object id

// An executable graph's references that are to be released once the work launched from it so far
// has completed: the streams it was launched into.
struct RetiredReferences {
  References refs;
  std::vector<uint64_t> streams;
};

class UserObjectBooks {
 public:
  // The new object's id (never 0).
  uint64_t create(cudaHostFn_t destroy, void* ptr, uint64_t refs);
  // False for an unknown object, or (releases) one that holds fewer references than `n`.
  bool retain(uint64_t object, uint64_t n);
  bool release(uint64_t object, uint64_t n, Destructors* due);
  // `move`: the caller's references pass to the graph (the object's count stays as it is).
  bool graph_retain(uint64_t graph, uint64_t object, uint64_t n, bool move);
  // False when the graph owns fewer than `n` references to the object.
  bool graph_release(uint64_t graph, uint64_t object, uint64_t n, Destructors* due);
  void graph_destroyed(uint64_t graph, Destructors* due);
  // The clone (or the parent of a child graph node, which embeds a clone of `from`) gains its own
  // copies of `from`'s references.
  void graph_copied(uint64_t to, uint64_t from);
  // A new executable graph owns copies of its graph's references.
  void instantiated(uint64_t exec, uint64_t graph);
  // cudaGraphExecUpdate: the executable graph now owns copies of `graph`'s references; its old ones
  // come back, to be released once the work launched so far has completed.
  RetiredReferences exec_updated(uint64_t exec, uint64_t graph);
  // Launched into `stream` (recorded only for an executable graph that owns references).
  void launched(uint64_t exec, uint64_t stream);
  RetiredReferences exec_destroyed(uint64_t exec);
  void release_references(const References& refs, Destructors* due);
  size_t objects() const;

 private:
  struct Object {
    cudaHostFn_t destroy;
    void* ptr;
    uint64_t refs;
  };
  struct Exec {
    References refs;
    std::set<uint64_t> streams;
  };
  void add(References& owner, const References& copies);  // mu_ held
  void drop(uint64_t object, uint64_t n, Destructors* due);  // mu_ held
  mutable std::mutex mu_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, Object> objects_;
  std::unordered_map<uint64_t, References> graphs_;
  std::unordered_map<uint64_t, Exec> execs_;
};

}  // namespace rgpu::client
