// The mirrors of a client's mapped host memory (see mapped_mirrors.h).
#include "server/session/mapped_mirrors.h"

#include <cuda_runtime_api.h>

#include "common/config.h"
#include "server/backends/backend.h"

namespace rgpu::server {
namespace {

// The mirrors are pinned host memory of the GPU host, which no memory slice counts: bounded here.
const Tunable kMappedLimit{"RGPU_MAPPED_LIMIT_MB", "4096",
                           "most pinned host memory (MiB) a session's mapped (zero-copy) host allocations may mirror on "
                           "the GPU host"};

}  // namespace

MappedMirrors::~MappedMirrors() {
  for (const auto& [address, mirror] : mirrors_) backend_.host_mapped_free(address);
}

int32_t MappedMirrors::expose(uint64_t want, uint64_t size, uint64_t* address) {
  static const uint64_t limit = static_cast<uint64_t>(kMappedLimit.get_int()) << 20;
  if (size == 0) return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  if (size > limit - std::min(limit, total_)) return cudaErrorMemoryAllocation;
  uint8_t* host = nullptr;
  int32_t st = backend_.host_mapped_alloc(size, want, address, &host);
  if (st != cudaSuccess) return st;
  mirrors_[*address] = {host, size};
  total_ += size;
  return cudaSuccess;
}

int32_t MappedMirrors::release(uint64_t address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = mirrors_.find(address);
  if (it == mirrors_.end()) return cudaErrorInvalidValue;
  int32_t st = backend_.host_mapped_free(address);
  total_ -= it->second.size;
  mirrors_.erase(it);
  return st;
}

uint8_t* MappedMirrors::host_range(uint64_t address, uint64_t offset, uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = mirrors_.find(address);
  if (it == mirrors_.end() || offset > it->second.size || n > it->second.size - offset) return nullptr;
  return it->second.host + offset;
}

}  // namespace rgpu::server
