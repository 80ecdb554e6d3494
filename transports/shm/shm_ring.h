// Single-producer single-consumer byte rings in memory shared by two processes, with their futex
// wake-ups: the shared layout (one control page per direction, then the two data areas) and each
// end's view of a direction (RingProducer, RingConsumer). The peer may be hostile: everything read
// from shared memory is checked before use, and a bad index is a clean kProtocol, never an access
// outside the mapping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "common/spin.h"
#include "common/status.h"

namespace rgpu::transport::shm {

// One direction's control block, at the start of its own page. Positions count bytes ever written
// or read (they never wrap in practice: 2^64 bytes); a position's offset in the data area is
// position & (capacity - 1). The futex words are 32-bit, as the kernel wants.
// Each word has a cache line of its own: the one an end writes per frame (tail, head) is not the
// one the other end reads per frame (the sleep flags), so a busy pipe moves no line back and forth
// that it need not.
struct RingControl {
  alignas(64) std::atomic<uint64_t> tail;             // the producer's, per publish: bytes published
  alignas(64) std::atomic<uint32_t> producer_sleeps;  // the producer: 1 while it sleeps for room
  alignas(64) std::atomic<uint64_t> head;             // the consumer's, per read: bytes taken
  alignas(64) std::atomic<uint32_t> consumer_sleeps;  // the consumer: 1 while it sleeps for bytes
  alignas(64) std::atomic<uint32_t> data_seq;         // futex the consumer sleeps on; bumped to wake it
  alignas(64) std::atomic<uint32_t> space_seq;        // futex the producer sleeps on; bumped to wake it
};
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
              "shared-memory atomics must be lock-free to work across processes");
static_assert(sizeof(RingControl) <= 4096);

// The file both ends map: [control 0][control 1][data 0][data 1]; direction 0 goes from the
// connecting end (the client) to the accepting end (rgpud's worker).
inline constexpr size_t kControlBytes = 4096;
inline constexpr uint32_t kMinRingBytes = 64u << 10;
inline constexpr uint32_t kMaxRingBytes = 64u << 20;
inline constexpr size_t mapping_bytes(uint32_t ring_bytes) { return 2 * kControlBytes + 2 * size_t{ring_bytes}; }
inline bool valid_ring_bytes(uint64_t n) { return n >= kMinRingBytes && n <= kMaxRingBytes && (n & (n - 1)) == 0; }

// What makes a wait give up: this end's shutdown or its peer's going (`stop`, set by the
// connection, which then calls wake()). Waits spin for `spin` first (0: straight to sleep), by the
// rules of common/spin.h: on while *keep_while is not 0 (Connection::spin_while: someone polls for
// what this wait brings), yielding between looks on a machine with few cores.
struct WaitPolicy : SpinRules {
  std::chrono::nanoseconds spin{0};
};

// Futex calls on shared (not process-private) words.
void futex_wake_all(std::atomic<uint32_t>& word);
// Sleeps while `word` holds `expected`, at most `timeout`.
void futex_wait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::milliseconds timeout);

enum class WaitResult { kReady, kStopped, kTimedOut, kCorrupt };

// This end writes a direction.
class RingProducer {
 public:
  RingProducer() = default;
  RingProducer(RingControl* control, uint8_t* data, uint32_t capacity)
      : control_(control), data_(data), capacity_(capacity) {}

  // Copies as much of [src, src + n) as there is room for now (0 when full); false with the ring
  // corrupt (the peer's head moved outside what was written). Nothing is visible to the consumer
  // before publish().
  bool write_some(const uint8_t* src, size_t n, size_t* copied);
  // Makes what was written visible and wakes the consumer if it announced that it sleeps.
  void publish();
  // Waits for room (after a publish: the consumer may be waiting for those bytes).
  WaitResult wait_for_room(const WaitPolicy& policy);
  uint64_t unpublished() const { return tail_ - published_; }
  uint32_t capacity() const { return capacity_; }
  // Wakes this end's own thread sleeping in wait_for_room (shutdown, the peer gone).
  void wake_self();

 private:
  // Refreshes head_ from shared memory; false if it is not within [head_, tail_].
  bool refresh_head();

  RingControl* control_ = nullptr;
  uint8_t* data_ = nullptr;
  uint32_t capacity_ = 0;
  uint64_t tail_ = 0;       // written so far (local: never read back from shared memory)
  uint64_t published_ = 0;  // the tail last stored in shared memory
  uint64_t head_ = 0;       // the consumer's head as last seen and checked
};

// This end reads a direction.
class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(RingControl* control, uint8_t* data, uint32_t capacity)
      : control_(control), data_(data), capacity_(capacity) {}

  // Bytes readable now (refreshing the view of the producer's tail); -1 with the ring corrupt.
  int64_t available();
  // Copies up to n readable bytes to dst (or drops them with dst null); returns how many. Frees
  // their room and wakes the producer if it announced that it sleeps for room.
  size_t read_some(uint8_t* dst, size_t n);
  // Waits for bytes: spins, then announces that it sleeps and sleeps on the futex, at most
  // `timeout` in all (negative: no limit).
  WaitResult wait_for_data(const WaitPolicy& policy, std::chrono::milliseconds timeout);
  // Wakes this end's own thread sleeping in wait_for_data.
  void wake_self();
  // Whether bytes wait, from the two shared positions alone: any thread may ask (liveness).
  bool pending() const {
    return control_->tail.load(std::memory_order_acquire) != control_->head.load(std::memory_order_relaxed);
  }

 private:
  RingControl* control_ = nullptr;
  uint8_t* data_ = nullptr;
  uint32_t capacity_ = 0;
  uint64_t head_ = 0;  // taken so far (local)
  uint64_t tail_ = 0;  // the producer's tail as last seen and checked
};

}  // namespace rgpu::transport::shm
