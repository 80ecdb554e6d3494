// Host memory a client on this host shares with its session: the client's pinned allocations
// (cudaMallocHost, cudaHostAlloc) made in a sealed memfd whose descriptor came over the Unix socket
// (kCallShareHost). The worker maps the same pages, at the client's own address when it is free here,
// and pins them for the device (Backend::host_map_shared), so a copy between them and the device is
// the GPU's DMA from the client's own pages (kCallSharedCopy): no bytes on the socket, no staging. And
// a kernel reads and writes them as mapped memory where they lie: the client's address is the GPU's
// when the worker could place them there, and no mirror is needed either way.
//
// Session thread only (the handlers of the three calls, and of kCallStreamSignal, whose words lie
// in such memory).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "server/backends/backend.h"

namespace rgpu::server {

class SharedHost {
 public:
  explicit SharedHost(Backend& backend) : backend_(backend) {}
  // Unpins and unmaps what the client left. A worker ends without this (its exit frees everything);
  // a session destroyed in a test has no copy in flight.
  ~SharedHost();
  SharedHost(const SharedHost&) = delete;
  SharedHost& operator=(const SharedHost&) = delete;

  // Maps `size` bytes of `fd` (taken: closed here, whatever the outcome) as allocation `id`, at
  // `want` (the client's address) when that is free, and pins them; *address is what the GPU uses
  // for their start. The descriptor must be a regular file of at least `size` bytes sealed against
  // shrinking, so that the client cannot take pages from under a mapping (a worker touching them
  // would die of SIGBUS). Returns a cudaError_t: cudaErrorInvalidValue for a bad descriptor, size or
  // id; the backend's for a failed pin.
  int32_t add(uint64_t id, int fd, uint64_t size, uint64_t want, uint64_t* address);
  // The host address of [offset, offset + count) in allocation `id`, or null when that is not inside
  // one (the client's error); *gpu (when asked) is the device's address of it. Notes that `device`
  // copies to or from it.
  void* find(uint64_t id, uint64_t offset, uint64_t count, int device, uint64_t* gpu = nullptr);
  // Unpins and unmaps allocation `id`; the caller has waited for the copies of each device in
  // devices(id). cudaErrorInvalidValue for an unknown id.
  int32_t remove(uint64_t id);
  // The devices whose copies used allocation `id` (bit d: device d; devices past 63 share bit 63).
  uint64_t devices(uint64_t id) const;
  size_t count() const { return mappings_.size(); }

 private:
  struct Mapping {
    uint8_t* base = nullptr;  // where this worker reads and writes it
    uint64_t address = 0;     // where the device does
    uint64_t size = 0;
    uint64_t devices = 0;
  };
  void release(const Mapping& m);

  Backend& backend_;
  std::unordered_map<uint64_t, Mapping> mappings_;
};

}  // namespace rgpu::server
