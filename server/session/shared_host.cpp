// Shared host memory of a same-host client (see shared_host.h).
#include "server/session/shared_host.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include <cuda_runtime_api.h>

#include "common/log.h"
#include "common/shared_file.h"

namespace rgpu::server {

SharedHost::~SharedHost() {
  for (auto& [id, m] : mappings_) release(m);
}

void SharedHost::release(const Mapping& m) {
  (void)backend_.host_unregister(m.base);
  ::munmap(m.base, m.size);
}

int32_t SharedHost::add(uint64_t id, int fd, uint64_t size) {
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
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) return cudaErrorMemoryAllocation;
  if (int32_t pinned = backend_.host_register(base, size); pinned != cudaSuccess) {
    ::munmap(base, size);
    return pinned;
  }
  mappings_[id] = Mapping{base, size, 0};
  return cudaSuccess;
}

void* SharedHost::find(uint64_t id, uint64_t offset, uint64_t count, int device) {
  auto it = mappings_.find(id);
  if (it == mappings_.end() || offset > it->second.size || count > it->second.size - offset) return nullptr;
  it->second.devices |= uint64_t{1} << std::clamp(device, 0, 63);
  return static_cast<uint8_t*>(it->second.base) + offset;
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
