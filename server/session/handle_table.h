// Client-side handle ids mapped to the backend's real handles (streams, events, graphs, ...).
// Ids are chosen by the client, so creating a handle can be an async call. Thread-safe: blocking
// calls resolve handles on helper threads while the session thread binds new ones.
#pragma once

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <type_traits>
#include <unordered_map>

namespace rgpu::server {

enum class HandleKind : uint8_t {
  kStream, kEvent, kGraph, kGraphExec, kGraphNode, kModule, kFunction, kCublas, kOther,
  kMemPool,                  // CUDA memory pools
  kCudnn, kCudnnDescriptor,  // cuDNN handles, cuDNN backend (graph) descriptors
  // cuDNN legacy ops' descriptors, one kind each (a pooling id never reaches cuDNN as an LRN one)
  kCudnnPooling, kCudnnLrn, kCudnnOpTensor, kCudnnReduceTensor, kCudnnSpatialTransformer, kCudnnTensorTransform,
  kCudnnRnn, kCudnnRnnData, kCudnnDropout, kCudnnCtcLoss, kCudnnAttn, kCudnnSeqData,
  kCurand,                   // cuRAND generators
  kCufft, kCufftDescriptor,  // cuFFT plans (ints, not pointers), multi-GPU descriptors
  kCusparse, kCusparseDescriptor,  // cuSPARSE handles; descriptors, info objects and plans
  kCusolverDn, kCusolverSp, kCusolverRf, kCusolverDescriptor,  // cuSOLVER handles; params and info objects
  kArray, kMipmappedArray,   // CUDA arrays (levels and planes too), mipmapped arrays
  kExternalMemory, kExternalSemaphore,  // imported from another driver's descriptor
};

class HandleTable {
 public:
  // The values CUDA reserves (0 null/legacy stream, 1 cudaStreamLegacy, 2 cudaStreamPerThread):
  // never ids of created handles. resolve() passes 0 through for every kind (the libraries check
  // null themselves) and 1 and 2 for streams only: as a cuBLAS or cuDNN handle they would reach
  // the library as the pointers 0x1 and 0x2.
  static bool is_builtin(uint64_t id) { return id <= 2; }

  void bind(HandleKind kind, uint64_t id, void* real) {
    std::unique_lock lock(mu_);
    map_[Key{id, kind}] = real;
  }
  // A library's handle of any type: a pointer as itself, an integer (a cuFFT plan) by its value.
  template <typename T>
  void bind_handle(HandleKind kind, uint64_t id, T real) {
    if constexpr (std::is_pointer_v<T>) {
      bind(kind, id, const_cast<void*>(static_cast<const void*>(real)));
    } else {
      bind(kind, id, reinterpret_cast<void*>(static_cast<uintptr_t>(real)));
    }
  }
  void unbind(HandleKind kind, uint64_t id) {
    std::unique_lock lock(mu_);
    map_.erase(Key{id, kind});
  }
  // Returns false for an unknown id (the call then fails with the library's invalid-handle status).
  bool resolve(HandleKind kind, uint64_t id, void** real) const {
    if (id == 0 || (kind == HandleKind::kStream && is_builtin(id))) {
      *real = reinterpret_cast<void*>(id);
      return true;
    }
    std::shared_lock lock(mu_);
    auto it = map_.find(Key{id, kind});
    if (it == map_.end()) return false;
    *real = it->second;
    return true;
  }
  template <typename T>
  bool resolve(HandleKind kind, uint64_t id, T* real) const {
    void* p = nullptr;
    bool ok = resolve(kind, id, &p);
    if constexpr (std::is_pointer_v<T>) {
      *real = reinterpret_cast<T>(p);
    } else {
      *real = static_cast<T>(reinterpret_cast<uintptr_t>(p));
    }
    return ok;
  }
  // The client's id for a handle the backend made and handed out (a graph's node, a node's child
  // graph): the id it is bound under, else its own address, bound now. One object, one id, however
  // the client came by it.
  uint64_t id_for(HandleKind kind, void* real) {
    if (!real) return 0;
    std::unique_lock lock(mu_);
    if (uint64_t bound = find_locked(kind, real)) return bound;
    auto id = reinterpret_cast<uint64_t>(real);
    map_[Key{id, kind}] = real;
    return id;
  }
  // Calls fn(real) for each handle of `kind`, under the shared lock (fn must not bind or unbind).
  template <typename Fn>
  void for_each(HandleKind kind, Fn&& fn) const {
    std::shared_lock lock(mu_);
    for (const auto& [key, real] : map_)
      if (key.kind == kind) fn(real);
  }
  // The id `real` is bound to as a `kind` (0 if none): a getter that returns an existing object (a
  // device's memory pool) answers with the handle the client already holds. A scan: getters are rare.
  uint64_t find_id(HandleKind kind, const void* real) const {
    std::shared_lock lock(mu_);
    return find_locked(kind, real);
  }
  size_t size() const {
    std::shared_lock lock(mu_);
    return map_.size();
  }

 private:
  // The id `real` is bound under as `kind`, or 0; the caller holds mu_.
  uint64_t find_locked(HandleKind kind, const void* real) const {
    for (const auto& [key, r] : map_)
      if (key.kind == kind && r == real) return key.id;
    return 0;
  }
  struct Key {
    uint64_t id;
    HandleKind kind;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.id * 16 + static_cast<uint64_t>(k.kind)); }
  };
  mutable std::shared_mutex mu_;
  std::unordered_map<Key, void*, KeyHash> map_;
};

}  // namespace rgpu::server
