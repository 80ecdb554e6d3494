// A session's movable device memory, and its swap to host memory (memory over-commit: the pool may
// promise a GPU's memory to more sessions than it holds, and swaps idle ones out; server/pool/
// pool.h says when). Allocations of kMovableFrom and more are made movable (Backend::movable_*:
// the address range stays reserved while its physical memory is away, so every device pointer the
// program holds stays valid); smaller ones, the context, module images and library workspaces stay
// where they are and count as resident.
//
// Swapping out copies each range to host memory and releases its physical memory; swapping in
// backs each range again at its address and copies the data back. A range's host copy is made
// ahead, by a thread of this class, as soon as the range is allocated (its pages made by parallel
// threads, then pinned: 31 and 35 GB/s on the H200 host, where cudaHostAlloc pins at 1.9 GB/s;
// made inside the first swap-out instead, the H200 saw that swap-out at 1.8-6.2 GB/s, later ones
// at 25-53), and kept, pinned, for every swap, which then copies at the bus's speed (55 GB/s) in
// both directions. So a session on an over-committed GPU holds its movable size of host memory
// until it frees that memory or ends; a copy the host has no room for (less than 1 GiB would be
// left) is not made ahead, and the swap-out that needs it makes it or refuses. The caller (the
// compute gate) swaps only between turns, when no call runs and the session's GPU work has
// completed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

#include "common/status.h"

namespace rgpu::server {

class Backend;

class SwapSpace {
 public:
  static constexpr uint64_t kMovableFrom = 2u << 20;

  explicit SwapSpace(Backend& backend);
  ~SwapSpace();
  SwapSpace(const SwapSpace&) = delete;
  SwapSpace& operator=(const SwapSpace&) = delete;

  // An allocation of `size` bytes: false when it is not one for movable memory (too small: the
  // caller allocates as usual); true with the cudaError_t in *status otherwise.
  bool allocate(uint64_t size, void** out, int32_t* status);
  // Frees a movable allocation: false when `p` is not one.
  bool free(const void* p, int32_t* status);

  uint64_t movable_bytes() const;  // device memory that swap_out() would move
  uint64_t host_bytes() const;     // what lives in host memory now (0 unless swapped)
  uint64_t pinned_bytes() const;   // host memory its host copies hold, swapped or not
  bool swapped() const;

  // Moves every range to host memory and releases its device memory; the bytes moved.
  Result<uint64_t> swap_out();
  // Brings every range back to its address; a failure leaves the ranges not yet restored on the
  // host, so it may be tried again.
  Status swap_in();

 private:
  struct Range {
    uint64_t size = 0;
    uint64_t id = 0;          // tells a range from a later one at the same address
    uint8_t* host = nullptr;  // its pinned host copy, made ahead (or at its first swap-out) and kept
    bool out = false;         // swapped out: the data is in `host` only
    bool preparing = false;   // the preparer is making its host copy
    bool unprepared = false;  // the preparer left it to the swap-out (no room on the host then)
  };
  Status ensure_stream();
  Status ensure_host(Range& r);
  void drop_host(Range& r);
  // The preparer thread: makes the host copy of each range that has none, one at a time, without
  // the lock (a call that allocates or frees meanwhile does not wait for it).
  void prepare_loop();
  // One range's copy between device address `device` and its host copy, on the swap stream.
  Status copy(uint64_t device, uint8_t* host, uint64_t bytes, bool to_host);

  Backend& backend_;
  mutable std::mutex mu_;
  std::condition_variable prepared_;  // a range's preparation ended, or a range wants one
  std::map<uint64_t, Range> ranges_;  // by device address
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  std::thread preparer_;  // started at the first movable allocation
  std::atomic<bool> swapped_{false};
  std::atomic<uint64_t> movable_{0}, host_{0}, pinned_{0};  // read without the lock (memory reports)
  void* stream_ = nullptr;  // cudaStream_t
};

}  // namespace rgpu::server
