// The frame: a fixed 32-byte header, then `payload_len` bytes of payload (control FlatBuffer,
// encoded call arguments or results), then `bulk_len` bytes of bulk data (memcpy contents) that
// travel as separate scatter/gather segments and are never copied into the payload.
// All integers are little-endian (both ends are x86-64; the header is validated, not trusted).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/status.h"

namespace rgpu::wire {

inline constexpr uint32_t kFrameMagic = 0x55504752;  // "RGPU"
inline constexpr uint32_t kProtocolVersion = 10;  // 2: the admission queue (Hello.queue_timeout_ms, Queued); 3: kHeartbeat;
                                                 // 4: TLS, the server's proof (Hello.client_nonce, Welcome.server_proof);
                                                 // 5: kCallbackReturned (host functions wait for the client's);
                                                 // 6: shared host memory (kCallShareHost, kCallUnshareHost,
                                                 //    kCallSharedCopy) and mapped memory (kCallMapped*);
                                                 // 7: kCallMappedRead runs after the waits handed over before it
                                                 // 8: launches carry their launch attributes (launch_args.h)
                                                 // 9: striped D2H copies, async ones too, announced on the pipe
                                                 //    (copy_args.h StripedLanding)
                                                 // 10: kCallMappedRead reads several ranges in one call;
                                                 //     kFlagReadBackFollows

enum class FrameKind : uint16_t {
  kControl = 1,     // method = ControlType; payload = FlatBuffer (control.fbs)
  kCall = 2,        // method = call id; payload = encoded arguments; bulk = input data
  kReply = 3,       // method = call id; seq = the call's; payload = i32 status + outputs; bulk = output data
  kAsyncError = 4,  // seq = the failed async call's; payload = i32 status + call id
  kData = 5,        // seq = an async D2H copy's; bulk = its bytes, for the client to land; or payload =
                    // a StripedLanding (copy_args.h): its bytes come over the stripes
  kCallback = 6,    // server -> client: run host callback; seq = its number (1, 2, ... per session); payload = u64 callback id
  kOutput = 7,      // server -> client: device printf / worker stdout bytes in bulk
  kMirror = 8,      // server -> client: a captured D2H copy ran in a graph; seq = mirror id, bulk = bytes
  kHeartbeat = 9,   // server -> client: nothing; sent every heartbeat interval (transports/liveness.h)
  kCallbackReturned = 10,  // client -> server: the function of kCallback `seq` has returned; no payload, no bulk
  // server -> client: an async notification (cudaDeviceRegisterAsyncNotification); payload = i32
  // device, i32 cudaAsyncNotificationType, u64 its value (bytes over budget)
  kNotification = 11,
  kLast = kNotification,
};

// kCall flags.
inline constexpr uint16_t kFlagWantsReply = 1;  // the caller waits: always send a kReply
// A synchronisation with a read-back of mapped memory right behind it (kCallMappedRead), which waits
// for it anyway: the server may wait for it in place although that frame is already pending.
inline constexpr uint16_t kFlagReadBackFollows = 2;

struct FrameHeader {
  uint32_t magic;
  uint16_t kind;
  uint16_t flags;
  uint32_t method;
  uint32_t payload_len;
  uint64_t seq;
  uint64_t bulk_len;
};
static_assert(sizeof(FrameHeader) == 32);

// Limits checked before anything is allocated for a frame.
inline constexpr uint32_t kMaxPayload = 64u << 20;          // 64 MiB (module images travel in payload)
inline constexpr uint64_t kMaxBulk = uint64_t{256} << 20;   // 256 MiB; larger copies are chunked by the client

inline FrameHeader make_header(FrameKind kind, uint32_t method, uint64_t seq, uint32_t payload_len,
                               uint64_t bulk_len, uint16_t flags = 0) {
  return FrameHeader{kFrameMagic, static_cast<uint16_t>(kind), flags, method, payload_len, seq, bulk_len};
}

// Checks magic, kind and sizes; says what is wrong in the status.
Status validate(const FrameHeader& h);

}  // namespace rgpu::wire
