// Stream marks: a word in memory that the device sets once the work queued on a stream before the
// mark is done, so that a wait answered on the session thread (server/session/inline_wait.h)
// watches memory instead of asking the driver. A cudaStreamQuery costs 1.3-1.7 us of driver time
// per look on an H100, and a wait that polls it learns of the end up to a look late; a stream-
// ordered write to mapped host memory is seen within nanoseconds (the H100: launch + watching the
// mark 9.1 us, launch + cudaStreamSynchronize 9.9 us, launch + polling cudaStreamQuery 9.8 us).
//
// Marks are numbered; mark m lives in word m % kWords of a ring. A late write of an earlier mark
// into the same word can hide a later one, so a watcher never relies on the mark alone: it asks
// the stream now and then too (inline_wait.cpp).
#pragma once

#include <cstdint>

namespace rgpu::server {

class MarkRing {
 public:
  static constexpr uint32_t kWords = 1024;
  static constexpr uint64_t kBytes = kWords * sizeof(uint32_t);

  // `words`: kBytes of memory the device can write (mapped host memory), zeroed.
  explicit MarkRing(uint32_t* words) : words_(words) {}

  struct Mark {
    uint32_t number;  // never 0
    uint32_t* word;   // where the device writes `number`
  };
  // The next mark, its word cleared.
  Mark next() {
    if (++last_ == 0) ++last_;
    uint32_t* word = &words_[last_ % kWords];
    __atomic_store_n(word, 0u, __ATOMIC_RELAXED);
    return {last_, word};
  }
  // Whether the device wrote `mark` (reads memory only).
  bool passed(uint32_t mark) const { return __atomic_load_n(&words_[mark % kWords], __ATOMIC_ACQUIRE) == mark; }

 private:
  uint32_t* words_;
  uint32_t last_ = 0;
};

}  // namespace rgpu::server
