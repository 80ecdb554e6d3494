// A session's memory slice, enforced in its worker: an allocation that would take the worker
// process's device memory past the slice is refused before it reaches the GPU, as a full GPU
// refuses it (cudaErrorMemoryAllocation), and the session goes on.
//
// What counts is what nvidia-smi shows for the worker process (Backend::memory_in_use(): its
// context, module images, library workspaces and allocations, as the driver commits them). An
// allocation commits in pieces (2 MiB for cudaMalloc, larger for a stream-ordered pool's growth),
// so it is checked as if it committed its size rounded up to its piece: the rounding never favours
// the tenant. Reading the driver's figure costs about 24 us (NVML), so the check keeps an upper
// bound (the last reading plus everything admitted since) and reads the figure only when that
// bound would cross the slice, or after calls that allocate inside a library (refresh()).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>

namespace rgpu::server {

class Backend;

class MemorySlice {
 public:
  static constexpr uint64_t kCommitPiece = 2u << 20;  // cudaMalloc's commitment granule (H200, measured)
  // A stream-ordered pool (the device's own or a created one) grows in larger pieces than cudaMalloc
  // commits (32 MiB on the H200 for a 10 MiB request, measured): its allocations are checked against that.
  static constexpr uint64_t kPoolPiece = 32u << 20;

  // limit 0: no slice (a whole-GPU session); nothing is checked.
  MemorySlice(Backend& backend, uint64_t limit);

  bool enforced() const { return limit_.load() != 0; }
  uint64_t limit() const { return limit_.load(); }
  // A live change (rgpu pool set). A limit below what is held refuses allocations until frees
  // bring it under.
  void set_limit(uint64_t limit);

  // Before an allocation of `bytes` committing in pieces of `piece`: true if it fits (and counts
  // it in the bound), false if it would cross the slice.
  bool admit(uint64_t bytes, uint64_t piece = kCommitPiece);
  // Re-reads the process's figure: after frees and after calls that allocate inside a library.
  void refresh();
  // The process's device memory as last read (bytes).
  uint64_t used() const { return used_.load(); }

  // Called with the new figure whenever it was read, and with the bound after each admitted
  // allocation (the worker reports it to the pool).
  void on_change(std::function<void(uint64_t)> report) { report_ = std::move(report); }
  // Called, outside the slice's lock, with how many bytes past the slice an allocation would have
  // taken the process when admit() refuses it (the session's over-budget notification).
  void on_over_budget(std::function<void(uint64_t)> notify) { over_budget_ = std::move(notify); }

 private:
  uint64_t read_locked();

  Backend& backend_;
  std::atomic<uint64_t> limit_;
  std::atomic<uint64_t> used_{0};
  std::mutex mu_;
  uint64_t bound_ = 0;  // >= what the process holds: the last reading plus what was admitted since
  std::function<void(uint64_t)> report_;
  std::function<void(uint64_t)> over_budget_;
};

}  // namespace rgpu::server
