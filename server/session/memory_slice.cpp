// The memory slice check (see memory_slice.h).
#include "server/session/memory_slice.h"

#include <algorithm>

#include "server/backends/backend.h"

namespace rgpu::server {

MemorySlice::MemorySlice(Backend& backend, uint64_t limit) : backend_(backend), limit_(limit) {
  if (limit) refresh();
}

void MemorySlice::set_limit(uint64_t limit) { limit_.store(limit); }

uint64_t MemorySlice::read_locked() {
  uint64_t now = backend_.memory_in_use();
  bound_ = now;
  used_.store(now);
  if (report_) report_(now);
  return now;
}

bool MemorySlice::admit(uint64_t bytes, uint64_t piece) {
  const uint64_t limit = limit_.load();
  if (!limit) return true;
  uint64_t over = 0;
  if (bytes > limit) {
    // Refused unread (its rounding up could overflow): past the slice by itself and what is held.
    over = bytes - limit;
    over += std::min(used_.load(), UINT64_MAX - over);
  } else {
    const uint64_t need = (bytes + piece - 1) / piece * piece;
    std::lock_guard<std::mutex> lock(mu_);
    if (bound_ + need <= limit || read_locked() + need <= limit) {
      bound_ += need;
      // The pool hears the bound at once, so a shrink of the slice (rgpu pool set) is never judged on
      // a figure older than this allocation; the next reading replaces it with the exact one.
      if (report_) report_(bound_);
      return true;
    }
    over = bound_ + need - limit;  // bound_ is the figure just read
  }
  if (over_budget_) over_budget_(over);
  return false;
}

void MemorySlice::refresh() {
  if (!limit_.load()) return;
  std::lock_guard<std::mutex> lock(mu_);
  read_locked();
}

}  // namespace rgpu::server
