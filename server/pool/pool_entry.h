// The Pool's records of a session, a queued session and a GPU's load: shared by pool.cpp and
// pool_swap.cpp, not part of the Pool's interface.
#pragma once

#include <algorithm>
#include <optional>

#include "server/pool/pool.h"

namespace rgpu::pool {

struct Pool::SessionEntry {
  SessionRequest request;  // as asked, for re-deriving the slice when the tenant's slice changes
  Slice slice;
  uint64_t used = 0;
  TimePoint started;
  // Over-commit: what of `used` could move, where its memory is, and a want waiting for room.
  enum class Residence { kResident, kSwappingOut, kSwapped } residence = Residence::kResident;
  uint64_t movable = 0;
  uint64_t host = 0;  // on the host while swapped out
  uint64_t extension = 0;  // host memory allocated past its slice (memory_host)
  std::optional<TimePoint> waiting_room;  // since when its want waits for room
  // What it holds on its GPU: its slice, or more while a when_free shrink waits for it to free.
  uint64_t reserved() const { return std::max(slice.memory_bytes, used); }
};

struct Pool::Queued {
  SessionRequest request;
  Slice slice;  // derived from the tenant's spec at admission; placed when it starts
  TimePoint since;
  std::optional<TimePoint> deadline;
};

struct Pool::GpuLoad {
  uint64_t reserved = 0, used = 0;
  uint32_t compute = 0;
  size_t sessions = 0;
  uint64_t free_memory(uint64_t total) const { return total > reserved ? total - reserved : 0; }
  uint32_t free_compute() const { return compute >= 100 ? 0 : 100 - compute; }
};

// Appends `from`'s actions to `into`'s; the earlier wake wins.
inline void merge(Actions* into, Actions from) {
  into->grant.insert(into->grant.end(), from.grant.begin(), from.grant.end());
  into->revoke.insert(into->revoke.end(), from.revoke.begin(), from.revoke.end());
  into->reslice.insert(into->reslice.end(), from.reslice.begin(), from.reslice.end());
  into->admitted.insert(into->admitted.end(), from.admitted.begin(), from.admitted.end());
  into->refused.insert(into->refused.end(), from.refused.begin(), from.refused.end());
  into->hints.insert(into->hints.end(), from.hints.begin(), from.hints.end());
  into->sovereign.insert(into->sovereign.end(), from.sovereign.begin(), from.sovereign.end());
  into->swap_out.insert(into->swap_out.end(), from.swap_out.begin(), from.swap_out.end());
  if (from.wake && (!into->wake || *from.wake < *into->wake)) into->wake = from.wake;
}

}  // namespace rgpu::pool
