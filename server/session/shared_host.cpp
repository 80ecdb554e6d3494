// Shared host memory of a same-host client (see shared_host.h).
#include "server/session/shared_host.h"

#include <unistd.h>

#include <algorithm>

#include <cuda_runtime_api.h>

#include "common/log.h"
#include "common/shared_file.h"

namespace rgpu::server {

SharedHost::~SharedHost() {
  for (auto& [id, m] : mappings_) release(m);
}

void SharedHost::release(const Mapping& m) { (void)backend_.host_unmap_shared(m.base, m.size); }

int32_t SharedHost::add(uint64_t id, int fd, uint64_t size, uint64_t want, uint64_t* address) {
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } closer{fd};
  if (fd < 0 || size == 0 || mappings_.contains(id)) return cudaErrorInvalidValue;
  if (!is_sealed_file_of(fd, size)) {
    RGPU_LOG_WARN("shared host memory %llu: the descriptor is not a file of %llu bytes sealed against shrinking",
                  static_cast<unsigned long long>(id), static_cast<unsigned long long>(size));
    return cudaErrorInvalidValue;
  }
  uint8_t* base = nullptr;
  if (int32_t mapped = backend_.host_map_shared(fd, size, want, &base, address); mapped != cudaSuccess) return mapped;
  mappings_[id] = Mapping{base, *address, size, 0};
  return cudaSuccess;
}

void* SharedHost::find(uint64_t id, uint64_t offset, uint64_t count, int device, uint64_t* gpu) {
  auto it = mappings_.find(id);
  if (it == mappings_.end() || offset > it->second.size || count > it->second.size - offset) return nullptr;
  it->second.devices |= uint64_t{1} << std::clamp(device, 0, 63);
  if (gpu) *gpu = it->second.address + offset;
  return it->second.base + offset;
}

uint64_t SharedHost::devices(uint64_t id) const {
  auto it = mappings_.find(id);
  return it == mappings_.end() ? 0 : it->second.devices;
}

int32_t SharedHost::remove(uint64_t id) {
  auto it = mappings_.find(id);
  if (it == mappings_.end()) return cudaErrorInvalidValue;
  release(it->second);
  mappings_.erase(it);
  return cudaSuccess;
}

}  // namespace rgpu::server
