// The channel between a session's worker and rgpud's parent, which owns the pool's books
// (server/pool): one SOCK_SEQPACKET socketpair per worker, made before the fork, so each message
// arrives whole and the parent sees the worker's end close the moment the worker exits, however
// it exits. Both ends are the same build of rgpud, so messages are the compact wire encoding of one
// struct; each is still decoded with bounds checks (a worker runs code a tenant's calls reach).
//
// worker -> parent: Admit (a new session's request), Control (a `rgpu pool`/`rgpu ls` request),
//                   Memory (device memory the worker's process holds now), Want (work queued, no
//                   turn), Released (a turn ended: GPU time held), QueueQuery (a queued session's
//                   place, asked every 10 s for its client), Swapped (the answer to a SwapOut),
//                   Traffic (the session's counts, at most once a second, for rgpud's metrics),
//                   Ended (why the session ends, and its last counts; a worker that ends without it
//                   was killed or crashed).
// parent -> worker: Queued* then Admitted | Refused, ControlReply, Grant, Revoke, Reslice (a live
//                   change), Hint (how to use the turn held: server/pool/compute_arbiter.h),
//                   SwapOut (move the idle session's memory to the host: server/session/swap_space.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace rgpu::server {

enum class LinkKind : uint32_t {
  kAdmit = 1,
  kAdmitted,
  kRefused,
  kControl,
  kControlReply,
  kMemory,
  kWant,
  kGrant,
  kRevoke,
  kReleased,
  kReslice,
  kQueued,
  kQueueQuery,
  kHint,
  kSwapOut,
  kSwapped,
  kSovereign,
  kTraffic,
  kEnded,  // the last kind (decode_link_message refuses any above it)
};
const char* link_kind_name(LinkKind kind);

// One message; each kind uses the fields its comment names.
struct LinkMessage {
  explicit LinkMessage(LinkKind k = LinkKind::kWant) : kind(k) {}
  LinkKind kind;
  // kAdmit: tenant (index into the configuration's tenants), memory/compute (the client's
  // requests), host, program, pid, timeout_ms (its queue timeout, -1: the tenant's). kAdmitted,
  // kReslice: the slice (gpu, memory, compute, compute_limit, priority). kQueued: position, text
  // (what it waits for), value (ms waited), timeout_ms (-1: never gives up), ok (it may make its
  // CUDA context now: server/pool/pool.h QueueStatus::warm).
  uint32_t tenant = 0;
  int32_t gpu = -1;
  uint64_t memory = 0;
  uint32_t compute = 0;
  uint32_t compute_limit = 100;
  int32_t priority = 0;
  uint32_t pid = 0;
  uint32_t position = 0;
  int64_t timeout_ms = -1;
  std::string host, program;
  // kControl: admin, tenant, verb, args, json. kControlReply: ok, text. kRefused: text.
  bool admin = false;
  bool json = false;
  bool ok = false;
  std::string verb, text;
  std::vector<std::string> args;
  // kMemory: value = bytes held, memory = movable bytes among them (what a swap-out would move),
  // host_bytes = host memory allocated past the slice. kAdmitted: value = memory_host (bytes).
  // kReleased: nanoseconds the turn held the GPU. kReslice: when_free (1). kAdmitted: ok = its GPU is
  // over-committed (allocate movable memory). kSwapped: ok = swapped out, value = bytes moved.
  // kHint: ok = hurry (give the turn back as soon as the client pauses), value = kHintBounded (one
  // call's work on the GPU at a time) | kHintPeer (one of those waiting is of the holder's priority
  // or above: its pause must be longer, compute_arbiter.h). kSovereign: ok = the session may take its turn without
  // waiting for the grant (compute_arbiter.h), until told otherwise.
  uint64_t value = 0;
  uint64_t host_bytes = 0;
  // kTraffic, kEnded: the session's counts so far (server/session/session.h SessionStats). kEnded:
  // text = why it ended (server/pool/pool_metrics.h kEndCauses).
  uint64_t calls = 0, round_trips = 0, bytes_in = 0, bytes_out = 0;
};

inline constexpr uint64_t kHintBounded = 1;
inline constexpr uint64_t kHintPeer = 2;

// The largest message either end sends or accepts (a pool view for many sessions fits).
inline constexpr size_t kMaxLinkMessage = 192 << 10;

class PoolLink {
 public:
  PoolLink() = default;
  explicit PoolLink(int fd) : fd_(fd) {}
  // A connected pair: [0] for the parent, [1] for the worker.
  static Result<std::pair<int, int>> make_pair();

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Thread-safe (one datagram per message).
  Status send(const LinkMessage& message) const;
  // Blocks for the next message (timeout < 0: forever); kClosed when the other end is gone,
  // kUnavailable on timeout.
  Result<LinkMessage> receive(std::chrono::microseconds timeout = std::chrono::microseconds(-1)) const;

 private:
  int fd_ = -1;
};

// The codec, exposed for the fuzz and unit tests.
std::vector<uint8_t> encode_link_message(const LinkMessage& message);
Result<LinkMessage> decode_link_message(const uint8_t* data, size_t size);

}  // namespace rgpu::server
