// The client's mirror of cuBLAS handle settings: a map guarded by a reader-writer lock (the
// compute stubs only read it).
#include "client/cublas/handle_mirror.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace rgpu::client::cublas {
namespace {

struct Mirror {
  std::shared_mutex mu;
  std::unordered_map<cublasHandle_t, HandleSettings> handles;
};

Mirror& mirror() {
  static Mirror* m = new Mirror;  // never destroyed: stubs may run from other libraries' exit handlers
  return *m;
}

}  // namespace

void mirror_add(cublasHandle_t handle) {
  std::unique_lock lock(mirror().mu);
  mirror().handles[handle] = HandleSettings{};
}

bool mirror_remove(cublasHandle_t handle) {
  std::unique_lock lock(mirror().mu);
  return mirror().handles.erase(handle) != 0;
}

std::optional<HandleSettings> mirror_get(cublasHandle_t handle) {
  std::shared_lock lock(mirror().mu);
  auto it = mirror().handles.find(handle);
  if (it == mirror().handles.end()) return std::nullopt;
  return it->second;
}

bool mirror_update(cublasHandle_t handle, const std::function<void(HandleSettings&)>& change) {
  std::unique_lock lock(mirror().mu);
  auto it = mirror().handles.find(handle);
  if (it == mirror().handles.end()) return false;
  change(it->second);
  return true;
}

bool host_pointer_mode(cublasHandle_t handle) {
  std::shared_lock lock(mirror().mu);
  auto it = mirror().handles.find(handle);
  return it == mirror().handles.end() || it->second.pointer_mode == CUBLAS_POINTER_MODE_HOST;
}

}  // namespace rgpu::client::cublas
