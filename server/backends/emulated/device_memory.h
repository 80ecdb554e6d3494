// Device memory of the virtual GPUs: host RAM behind an address -> allocation map that accounts
// each device's use against its configured size and validates every device range before use.
//
// A device address is the host address of the allocation's backing store (so addresses are
// unique and never collide with the daemon's own buffers), but nothing here dereferences a
// device address that find() has not confirmed lies wholly inside a live allocation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace rgpu::server::emulated {

struct Allocation {
  // `want`: map the backing at that address if it is free. `file` (not -1): the backing is that
  // file's bytes from `offset` on, shared with whoever else maps it.
  Allocation(int device, uint64_t size, uint64_t footprint, uint64_t want = 0, int file = -1, uint64_t offset = 0);
  ~Allocation();
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;

  uint8_t* data = nullptr;  // nullptr when the host had no memory to back it
  uint64_t size;            // as asked for
  uint64_t footprint;       // accounted bytes (size rounded up to the allocation alignment)
  int device;
  bool backed = true;       // false: released (a swapped-out movable range), not to be touched
  bool counted = true;      // false: host memory mapped for the device, not the device's own
};

// A range confirmed to lie inside one allocation; holding it keeps the memory alive even if the
// allocation is freed meanwhile by another thread.
struct DeviceRange {
  std::shared_ptr<Allocation> allocation;
  uint8_t* data = nullptr;
  explicit operator bool() const { return data != nullptr; }
};

class DeviceMemory {
 public:
  // One capacity per device.
  void configure(int devices, uint64_t bytes_per_device);
  // cudaErrorMemoryAllocation past the device's capacity (or when the host has no memory).
  // A zero-byte request succeeds with a null pointer, as CUDA does. With a `file` (not -1), the
  // backing is that file's bytes from `offset` (page-aligned) on: an exportable pool's memory,
  // which other processes map too.
  cudaError_t allocate(int device, uint64_t size, void** out, int file = -1, uint64_t offset = 0);
  // Device-mapped host memory (Backend::host_mapped_alloc): usable as device memory, not counted
  // against the device's capacity. Freed by free(). A nonzero `want` (page-aligned) asks for that
  // address; when it is taken the memory goes elsewhere.
  cudaError_t allocate_host_mapped(int device, uint64_t size, uint64_t want, void** out);
  // External memory's buffer (cudaExternalMemoryGetMappedBuffer), or a same-host client's shared
  // memory (Backend::host_map_shared): `size` bytes of the file `fd` from `offset` (page-aligned)
  // on, shared with the file's other mappings, at `want` when nonzero and free; not counted against
  // the device's capacity. The caller has checked that the file holds them and cannot shrink.
  cudaError_t map_file(int device, int fd, uint64_t offset, uint64_t size, void** out, uint64_t want = 0);
  // cudaErrorInvalidValue unless `ptr` is the start of a live allocation (and that allocation is
  // `expected`, when given); null is a no-op.
  cudaError_t free(const void* ptr, const Allocation* expected = nullptr);
  // The range [address, address + length) if it lies wholly inside one live allocation (of
  // `device`, unless device is -1); an empty result otherwise. A zero length needs a valid start.
  DeviceRange find(const void* address, uint64_t length, int device = -1) const;
  bool is_device_pointer(const void* address) const;
  uint64_t used(int device) const;
  uint64_t used_total() const;
  uint64_t capacity() const;
  // Frees every allocation of `device` (cudaDeviceReset).
  void release_device(int device);
  // A movable range's backing (Backend::movable_release/restore): released, its contents are
  // dropped (the pages given back, zero when touched again), it no longer counts as used and
  // find() refuses it, as the GPU faults on an unmapped range; restored, it counts again
  // (cudaErrorMemoryAllocation when the device has no room).
  cudaError_t release_backing(const void* ptr);
  cudaError_t restore_backing(const void* ptr);

 private:
  // Records memory that does not count against its device's capacity.
  cudaError_t add_uncounted(std::shared_ptr<Allocation> allocation, void** out);

  mutable std::mutex mu_;
  std::map<uintptr_t, std::shared_ptr<Allocation>> by_address_;
  std::vector<uint64_t> used_;
  uint64_t capacity_ = 0;
};

}  // namespace rgpu::server::emulated
