// Call: the per-call path used by every generated stub. Per-thread buffers keep it allocation-free
// once warm.
#include "client/runtime/call.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "client/runtime/device.h"
#include "client/runtime/logs.h"
#include "client/runtime/mapped_memory.h"
#include "client/runtime/pipe.h"
#include "codegen/support/call_names.h"
#include "common/config.h"
#include "common/log.h"

namespace rgpu::client {
namespace {

const Tunable kSync{"RGPU_SYNC", "0", "1 makes every forwarded call synchronous (like CUDA_LAUNCH_BLOCKING)"};

bool sync_mode() {
  static const bool on = kSync.get_bool();
  return on;
}

const Tunable kTraceWaits{"RGPU_TRACE_WAITS", "0",
                          "1 names on stderr every call that waits for the server: where a program's round trips come "
                          "from"};

bool trace_waits() {
  static const bool on = kTraceWaits.get_bool();
  return on;
}

// Set when the calling thread's buffers are destroyed; trivially destructible, so readable after.
thread_local bool t_buffers_gone = false;

}  // namespace

// A thread's thread_local objects are destroyed before the program's statics, and a library's
// static destructor may still call (PyTorch's cuFFT plan cache destroys its plans at exit): once
// the thread's buffers are gone, each call brings buffers of its own (one allocation, only then).
CallBuffers::~CallBuffers() { t_buffers_gone = true; }

namespace {
thread_local CallBuffers t_buffers;
}  // namespace

Call::Call(uint32_t call_id, CallClass cls) : id_(call_id), cls_(cls) {
  if (t_buffers_gone) own_ = std::make_unique<CallBuffers>();
  buffers_ = own_ ? own_.get() : &t_buffers;
  buffers_->args.clear();
}

Call::~Call() = default;

void Call::expect_reply_bulk(void* dst, size_t n) {
  reply_bulk_ = dst;
  reply_bulk_len_ = n;
}

void trace_wait(const char* what) {
  if (trace_waits()) std::fprintf(stderr, "rgpu: %s waits for the server\n", what);
}

int32_t Call::invoke() {
  trace_wait(gen::any_call_name(id_));
  mapped_before_call(id_);  // any call may make the GPU read mapped host memory: the host's changes go first
  Pipe& pipe = Pipe::get();
  Waiter w;
  w.payload = &buffers_->reply;
  w.read_back_follows = mapped_read_back_follows(id_);
  // A sync call's output data comes in its reply; an async call's (posted synchronously under
  // RGPU_SYNC) lands from a data frame ahead of the reply.
  bool async_data = cls_ == CallClass::kAsync;
  if (!async_data) {
    w.bulk_dst = reply_bulk_;
    w.bulk_len = reply_bulk_len_;
  }
  if (!pipe.send_call(id_, buffers_->args, current_device(), &w, async_data ? reply_bulk_ : nullptr,
                      async_data ? reply_bulk_len_ : 0, descriptor_))
    return kStatusUnavailable;
  // A synchronisation brings the GPU's changes to mapped memory back: read right behind it.
  MappedReadBack read_back(id_, w.read_back_follows);
  pipe.wait(w);
  if (w.lost) return kStatusUnavailable;
  results_ = wire::Decoder(buffers_->reply);
  int32_t status = results_.get<int32_t>();
  if (!results_.ok()) return kStatusUnavailable;
  replied_ = true;
  return read_back.finish(status);
}

int32_t Call::post() {
  if (sync_mode()) return invoke();
  mapped_before_call(id_);
  Pipe& pipe = Pipe::get();
  if (!pipe.send_call(id_, buffers_->args, current_device(), nullptr, reply_bulk_, reply_bulk_len_, descriptor_))
    return kStatusUnavailable;
  return 0;
}

uint64_t new_handle_id() {
  static std::atomic<uint64_t> next{0x100};
  return next.fetch_add(0x10, std::memory_order_relaxed);
}

void report_unsupported(const char* name) {
  log_refusal(name);  // every time, as the driver logs each failed call
  static std::mutex mu;
  static auto& seen = *new std::set<std::string>();  // leaked: reported from static destructors too
  std::lock_guard<std::mutex> lock(mu);
  if (seen.insert(name).second)
    std::fprintf(stderr, "rgpu: %s is not supported by rgpu yet; it returns the library's not-supported status\n", name);
}

}  // namespace rgpu::client
