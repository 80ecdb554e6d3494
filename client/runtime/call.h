// The interface that generated client stubs (and hand-written exceptions) use to forward a call
// over the process's one ordered call pipe.
//
//   rgpu::client::Call call(kCallId, rgpu::client::CallClass::kSync);
//   call.args().put(x);                 // encode inputs
//   int32_t status = call.invoke();     // send and wait (sync) -- or call.post() (async)
//   call.results().get(&y);             // decode outputs (sync only, when call.replied())
//
// A Call uses a per-thread encoder and reply buffer, so the hot path allocates nothing once warm.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/wire/codec.h"

namespace rgpu::client {

enum class CallClass : uint8_t { kLocal, kAsync, kSync, kUnsupported };

// Library-neutral outcome of moving a call; the stub maps it to the library's status type.
inline constexpr int32_t kStatusUnavailable = -1;  // no server session (see last_connect_error)

// A thread's argument and reply buffers, reused call after call (call.cpp says how a call made
// during the thread's exit gets its own).
struct CallBuffers {
  wire::Encoder args;
  std::vector<uint8_t> reply;
  ~CallBuffers();
};

class Call {
 public:
  Call(uint32_t call_id, CallClass cls);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  wire::Encoder& args() { return buffers_->args; }
  // Bulk input data that travels with the call (H2D copy source), not copied into the payload.
  void add_bulk(const void* p, size_t n) { buffers_->args.add_bulk(p, n); }
  // Where reply bulk data (D2H copy destination) lands: the receiver writes it straight there.
  void expect_reply_bulk(void* dst, size_t n);
  // A descriptor the server receives with the call (Pipe::send_call); the caller keeps its own.
  void attach_descriptor(int fd) { descriptor_ = fd; }

  // Sends and waits for the reply; returns the server's status, or kStatusUnavailable.
  // Under RGPU_SYNC=1 every call goes through here.
  int32_t invoke();
  // Sends without waiting (async class). Returns 0, or kStatusUnavailable.
  int32_t post();

  bool replied() const { return replied_; }
  wire::Decoder& results() { return results_; }
  // The whole reply (status, then results), for a cached answer (codegen/support/answer_cache.h).
  std::span<const uint8_t> reply() const { return buffers_->reply; }

 private:
  uint32_t id_;
  CallClass cls_;
  CallBuffers* buffers_;              // the thread's (call.cpp), or own_ during the thread's exit
  std::unique_ptr<CallBuffers> own_;
  wire::Decoder results_;
  bool replied_ = false;
  void* reply_bulk_ = nullptr;
  size_t reply_bulk_len_ = 0;
  int descriptor_ = -1;
};

// A fresh client-side id for a handle (stream, event, graph, ...); never 0, 1 or 2, which CUDA
// reserves for the legacy, per-thread and null streams.
uint64_t new_handle_id();

// RGPU_TRACE_WAITS=1: names on stderr what is about to wait for the server (every round trip).
void trace_wait(const char* what);

// Logs "<name> is not supported by rgpu" once per name, and makes an entry of the driver's error log
// (logs.h) each time.
void report_unsupported(const char* name);

}  // namespace rgpu::client
