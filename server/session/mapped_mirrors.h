// The server's side of a client's mapped host memory (client/runtime/mapped_memory.h): for each
// pinned client range the GPU may use, a device-mapped host buffer in this worker (the mirror),
// placed at the client's own address when that address is free here, so that kernels use the
// client's pointers, nested ones included, unchanged. The client writes the bytes it changed into
// the mirror before work that may read them and reads it back after work that may have written it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace rgpu::server {

class Backend;

class MappedMirrors {
 public:
  explicit MappedMirrors(Backend& backend) : backend_(backend) {}
  ~MappedMirrors();  // the session's end releases what it still holds
  MappedMirrors(const MappedMirrors&) = delete;
  MappedMirrors& operator=(const MappedMirrors&) = delete;

  // A mirror of `size` bytes, wanted at `want` (page-aligned); *address is what the GPU uses. A
  // cudaError_t; cudaErrorMemoryAllocation past the session's limit (RGPU_MAPPED_LIMIT_MB).
  int32_t expose(uint64_t want, uint64_t size, uint64_t* address);
  int32_t release(uint64_t address);
  // Where this worker reads and writes [offset, offset + n) of the mirror at `address`; null when
  // there is no such mirror or the range leaves it.
  uint8_t* host_range(uint64_t address, uint64_t offset, uint64_t n);

 private:
  struct Mirror {
    uint8_t* host;
    uint64_t size;
  };
  Backend& backend_;
  std::mutex mu_;
  std::map<uint64_t, Mirror> mirrors_;  // by address
  uint64_t total_ = 0;
};

}  // namespace rgpu::server
