// The staging ring (see staging_ring.h).
#include "server/session/staging_ring.h"

#include <cstdlib>

#include "gen/cudart/cudart_api.h"

namespace rgpu::server {
namespace {

constexpr size_t kSpare = 64;  // bytes past each slot's data: slot 0's hold the probe byte

}  // namespace

StagingRing::StagingRing(const gen::cudart::Api& rt, size_t slot_bytes) : rt_(rt), slot_bytes_(slot_bytes) {
  // All pinned or all pageable, so that the destructor frees them the one right way.
  pinned_ = rt_.cudaMallocHost && rt_.cudaFreeHost;
  for (size_t i = 0; pinned_ && i < kSlots; ++i) {
    void* p = nullptr;
    if (rt_.cudaMallocHost(&p, slot_bytes_ + kSpare) != cudaSuccess || !p) {
      for (size_t j = 0; j < i; ++j) rt_.cudaFreeHost(slots_[j].data);
      pinned_ = false;
      break;
    }
    slots_[i].data = static_cast<uint8_t*>(p);
  }
  for (Slot& s : slots_) {
    if (!pinned_) s.data = static_cast<uint8_t*>(std::malloc(slot_bytes_ + kSpare));
    if (rt_.cudaEventCreateWithFlags && rt_.cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming) != cudaSuccess)
      s.done = nullptr;
  }
  scratch_ = slots_[0].data ? slots_[0].data + slot_bytes_ : nullptr;
}

void StagingRing::abandon() {
  for (Slot& s : slots_) {
    if (!pinned_) std::free(s.data);
    s = Slot{};
  }
  scratch_ = nullptr;
}

StagingRing::~StagingRing() {
  for (Slot& s : slots_) {
    if (!s.data) continue;
    if (s.busy && s.done && rt_.cudaEventSynchronize) rt_.cudaEventSynchronize(s.done);
    if (s.done && rt_.cudaEventDestroy) rt_.cudaEventDestroy(s.done);
    if (pinned_) rt_.cudaFreeHost(s.data);
    else std::free(s.data);
  }
}

bool StagingRing::complete() const {
  for (const Slot& s : slots_)
    if (!s.data) return false;
  return true;
}

uint8_t* StagingRing::acquire(size_t i, int32_t* status) {
  Slot& s = slots_[i % kSlots];
  *status = cudaSuccess;
  if (s.busy) {
    *status = rt_.cudaEventSynchronize(s.done);
    s.busy = false;
  }
  return s.data;
}

int32_t StagingRing::probe(const void* p, cudaStream_t stream) {
  if (!scratch_) return cudaErrorMemoryAllocation;
  if (pinned_ && rt_.cudaMemcpyAsync) return rt_.cudaMemcpyAsync(scratch_, p, 1, cudaMemcpyDeviceToHost, stream);
  return rt_.cudaMemcpy ? rt_.cudaMemcpy(scratch_, p, 1, cudaMemcpyDeviceToHost) : cudaErrorNotSupported;
}

int32_t StagingRing::copy(size_t i, void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t stream) {
  Slot& s = slots_[i % kSlots];
  if (!s.data) return cudaErrorMemoryAllocation;
  if (!pinned_ || !s.done || !rt_.cudaEventRecord || !rt_.cudaMemcpyAsync) {
    // Pageable staging: the copy is complete when it returns.
    return rt_.cudaMemcpy ? rt_.cudaMemcpy(dst, src, n, kind) : cudaErrorNotSupported;
  }
  int32_t st = rt_.cudaMemcpyAsync(dst, src, n, kind, stream);
  if (st == cudaSuccess) st = rt_.cudaEventRecord(s.done, stream);
  s.busy = st == cudaSuccess;
  return st;
}

}  // namespace rgpu::server
