// Client-side handle ids mapped to the backend's real handles (streams, events, graphs, ...).
// Ids are chosen by the client, so creating a handle can be an async call.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace rgpu::server {

enum class HandleKind : uint8_t {
  kStream, kEvent, kGraph, kGraphExec, kGraphNode, kModule, kFunction, kOther,
};

class HandleTable {
 public:
  // The values CUDA reserves (0 null/legacy stream, 1 cudaStreamLegacy, 2 cudaStreamPerThread)
  // pass through unchanged.
  static bool is_builtin(uint64_t id) { return id <= 2; }

  void bind(HandleKind kind, uint64_t id, void* real) { map_[key(kind, id)] = real; }
  void unbind(HandleKind kind, uint64_t id) { map_.erase(key(kind, id)); }
  // Returns false for an unknown id (the call then fails with the library's invalid-handle status).
  bool resolve(HandleKind kind, uint64_t id, void** real) const {
    if (is_builtin(id)) {
      *real = reinterpret_cast<void*>(id);
      return true;
    }
    auto it = map_.find(key(kind, id));
    if (it == map_.end()) return false;
    *real = it->second;
    return true;
  }
  template <typename T>
  bool resolve(HandleKind kind, uint64_t id, T* real) const {
    void* p = nullptr;
    bool ok = resolve(kind, id, &p);
    *real = reinterpret_cast<T>(p);
    return ok;
  }
  size_t size() const { return map_.size(); }

 private:
  static uint64_t key(HandleKind kind, uint64_t id) { return (id << 4) | static_cast<uint64_t>(kind); }
  std::unordered_map<uint64_t, void*> map_;
};

}  // namespace rgpu::server
