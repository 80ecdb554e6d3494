// Pinned staging buffers for the bulk path. A large host<->device copy moves through a ring of
// pinned buffers in pieces, so the network and the GPU's copy engine work at the same time: for
// H2D one buffer fills from the socket while the previous one is copied to the device; for D2H the
// device fills the next buffers while the current one is sent. Each buffer carries an event
// recorded after its copy, so it is reused only once that copy is done.
//
// One ring per device (events belong to a device), made on first use and used only by the session
// thread. Without pinned memory (the emulated backend, or pinned memory exhausted) the buffers are
// pageable and the copies complete before they return: slower, still correct.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace rgpu::gen::cudart {
struct Api;
}

namespace rgpu::server {

class StagingRing {
 public:
  static constexpr size_t kSlots = 3;

  // On the calling thread's current device.
  StagingRing(const gen::cudart::Api& rt, size_t slot_bytes);
  ~StagingRing();
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  // Slot i % kSlots, once the copy last enqueued with it has finished; *status is that copy's
  // outcome (0 when the slot was free).
  uint8_t* acquire(size_t i, int32_t* status);
  // Enqueues a copy through slot i (dst/src: one side is the slot) on `stream`, and marks the slot
  // busy until it is done. Returns the runtime's status.
  int32_t copy(size_t i, void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t stream);

  // After cudaDeviceReset, which freed the ring's pinned buffers and events with the context: the
  // ring lets go of them without freeing them again.
  void abandon();

  // Enqueues a copy of the one device byte at p into a scratch byte on `stream`: a device range that
  // runs past its allocation fails here, before any of it has been sent.
  int32_t probe(const void* p, cudaStream_t stream);

  size_t slot_bytes() const { return slot_bytes_; }
  // Whether every slot got its buffer: without host memory for them a copy through the ring fails
  // as cudaErrorMemoryAllocation (bulk_copy.cpp), and the session makes the ring again next time.
  bool complete() const;

 private:
  struct Slot {
    uint8_t* data = nullptr;
    cudaEvent_t done = nullptr;
    bool busy = false;
  };
  const gen::cudart::Api& rt_;
  const size_t slot_bytes_;
  Slot slots_[kSlots];
  bool pinned_ = false;
  uint8_t* scratch_ = nullptr;  // the byte past slot 0's data (each slot has a few spare bytes)
};

}  // namespace rgpu::server
