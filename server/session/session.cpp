// The session loop (see session.h).
#include "server/session/session.h"

#include <flatbuffers/flatbuffers.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "common/fatbin/fatbin.h"
#include "common/log_event.h"
#include "common/spin.h"
#include "common/wire/control_generated.h"
#include "common/wire/internal_calls.h"
#include "gen/cudart/cudart_api.h"
#include "gen/cudart/cudart_ids.h"
#include "gen/cudart/cudart_handlers.h"
#include "server/session/library_dispatch.h"
#include "server/session/bulk_copy.h"
#include "server/session/call_context.h"
#include "server/session/inline_wait.h"
#include "server/session/internal_handlers.h"
#include "server/session/module_cache.h"
#include "transports/liveness.h"

namespace rgpu::server {
namespace {

constexpr auto kInputPoll = std::chrono::microseconds(50);
// How often the peer watch looks (watch_peer): for a client whose calls wait unread, and for its
// liveness.
constexpr int kPeerProbeMs = static_cast<int>(transport::kLivenessLook.count());

// Calls that allocate or free stream-ordered memory (a pool's, or a graph's memory nodes).
bool orders_pool_memory(uint32_t method) {
  namespace ids = gen::cudart;
  switch (method) {
    case ids::k_cudaMallocAsync:
    case ids::k_cudaMallocAsync_ptsz:
    case ids::k_cudaMallocFromPoolAsync:
    case ids::k_cudaMallocFromPoolAsync_ptsz:
    case ids::k_cudaFreeAsync:
    case ids::k_cudaFreeAsync_ptsz:
    case ids::k_cudaGraphAddMemAllocNode:
    case ids::k_cudaGraphAddMemFreeNode:
      return true;
    default:
      return false;
  }
}

}  // namespace

Session::Session(uint64_t id, transport::Connection& conn, Backend& backend, OutputCapture* output,
                 SessionLimits limits)
    : id_(id),
      conn_(conn),
      backend_(backend),
      output_(output),
      memory_(backend, limits.memory),
      host_extension_(backend, limits.memory_host),
      mapped_mirrors_(backend),
      gate_(limits.gate),
      swap_(limits.swap),
      input_(conn),
      shared_host_(backend),
      landings_(*this),
      blocking_([this](const wire::FrameHeader& h, std::span<const uint8_t> p) {
        bool bad = false;
        execute(h, p, {}, nullptr, &bad);
        if (gate_) gate_->wait_ends();
        if (bad) conn_.shutdown();
      }) {
  if (gate_) gate_->set_streams(&handles_);
  if (CallProfile::wanted()) profile_ = std::make_unique<CallProfile>();
  backend_.collect_error_log([this](std::string_view line) { error_log_.append(line); });
  memory_.on_over_budget([this](uint64_t bytes) { notify_over_budget(bytes); });
}

void Session::note_alloc(const void* p, uint64_t size) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!allocations_.emplace(reinterpret_cast<uintptr_t>(p), size).second) return;
  stats_.live_allocations++;
  stats_.live_bytes += size;
  if (stats_.live_bytes > stats_.peak_bytes) stats_.peak_bytes = stats_.live_bytes;
}

void Session::note_free(const void* p) {
  std::lock_guard<std::mutex> lock(state_mu_);
  auto it = allocations_.find(reinterpret_cast<uintptr_t>(p));
  if (it == allocations_.end()) return;
  stats_.live_allocations--;
  stats_.live_bytes -= it->second;
  allocations_.erase(it);
}

const LoadedFunction* Session::function(uint64_t id) const {
  auto it = functions_.find(id);
  return it == functions_.end() ? nullptr : &it->second;
}

void* Session::module(uint64_t id) const {
  auto it = modules_.find(id);
  return it == modules_.end() ? nullptr : it->second;
}

void Session::forget_module(uint64_t id) {
  modules_.erase(id);
  for (auto it = functions_.begin(); it != functions_.end();) it = it->first >> 20 == id ? functions_.erase(it) : ++it;
}

void Session::forget_device_buffers() {
  int device = 0;
  if (backend_.cudart().cudaGetDevice) backend_.cudart().cudaGetDevice(&device);
  for (auto it = rings_.begin(); it != rings_.end();) {
    if (it->first.first != device) {
      ++it;
      continue;
    }
    it->second->abandon();
    it = rings_.erase(it);
  }
  landings_.forget_device(device);
  event_signal_streams_.erase(device);
}

StagingRing& Session::staging_ring(int stripe) {
  int device = 0;
  if (backend_.cudart().cudaGetDevice) backend_.cudart().cudaGetDevice(&device);
  auto& ring = rings_[{device, stripe}];
  // The pipe's ring moves one copy at a time; a stripe's moves a slice, beside the others. One that
  // found no host memory for its buffers is made again: there may be room by now.
  if (!ring || !ring->complete())
    ring = std::make_unique<StagingRing>(backend_.cudart(), stripe < 0 ? 8u << 20 : 2u << 20);
  return *ring;
}

WorkerTeam& Session::stripe_team(size_t n) {
  if (!stripe_team_ || stripe_team_->size() < n) stripe_team_ = std::make_unique<WorkerTeam>(n);
  return *stripe_team_;
}

std::vector<uint8_t>& Session::staging(size_t n) {
  if (staging_.size() < n) staging_.resize(n);
  return staging_;
}

Session::Mirror* Session::new_mirror(uint64_t id, size_t size) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (mirrors_.count(id)) return nullptr;
  void* p = nullptr;
  // Pinned, so that copies from and to it can be captured; the emulated backend needs no pinning.
  const auto& rt = backend_.cudart();
  if (rt.cudaMallocHost) {
    // Mirrors are made while the client's stream is capturing; in the global capture mode an
    // allocation would invalidate that capture, so this thread relaxes its mode around it.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    bool exchanged = rt.cudaThreadExchangeStreamCaptureMode && rt.cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
    cudaError_t st = rt.cudaMallocHost(&p, size ? size : 1);
    if (exchanged) rt.cudaThreadExchangeStreamCaptureMode(&mode);
    if (st != cudaSuccess) return nullptr;
  } else {
    p = std::calloc(1, size ? size : 1);
    if (!p) return nullptr;
  }
  auto m = std::make_unique<Mirror>(Mirror{id, p, size, this});
  return (mirrors_[id] = std::move(m)).get();
}

Session::HostCallback* Session::keep_host_callback(uint64_t id) {
  std::lock_guard<std::mutex> lock(state_mu_);
  return &kept_callbacks_.emplace_back(HostCallback{this, id});
}

void Session::run_client_callback(uint64_t id) {
  if (input_.ended()) return;  // nobody to run it: the stream goes on
  // The function may read what a D2H copy before it on its stream brought down.
  landings_.settle_from_host_function();
  uint64_t number = 0;
  Status st = Status::ok();
  {
    // Numbered under the send lock, so that the client sees (and acknowledges) numbers in order.
    std::lock_guard<std::mutex> lock(send_mu_);
    number = input_.next_callback();
    // The payload is the callback's id, as wire::Encoder writes a u64 (its bytes, little-endian).
    auto h = wire::make_header(wire::FrameKind::kCallback, 0, number, sizeof id, 0);
    stats_.bytes_out.add(sizeof id);
    st = conn_.send_frame(h, {reinterpret_cast<const uint8_t*>(&id), sizeof id}, {});
  }
  if (st.is_ok()) input_.wait_returned(number);
}

Session::Mirror* Session::mirror(uint64_t id) {
  std::lock_guard<std::mutex> lock(state_mu_);
  auto it = mirrors_.find(id);
  return it == mirrors_.end() ? nullptr : it->second.get();
}

Status Session::send(wire::FrameKind kind, uint32_t method, uint64_t seq, std::span<const uint8_t> payload,
                     std::span<const iovec> bulk) {
  uint64_t bulk_len = 0;
  for (const iovec& v : bulk) bulk_len += v.iov_len;
  auto h = wire::make_header(kind, method, seq, static_cast<uint32_t>(payload.size()), bulk_len);
  std::lock_guard<std::mutex> lock(send_mu_);
  stats_.bytes_out.add(payload.size() + bulk_len);
  return conn_.send_frame(h, payload, bulk);
}

Status Session::send_streamed(const wire::FrameHeader& h, std::span<const uint8_t> payload,
                              const std::function<std::span<const uint8_t>()>& next_piece) {
  std::lock_guard<std::mutex> lock(send_mu_);
  stats_.bytes_out.add(payload.size() + h.bulk_len);
  return send_pieces(conn_, h, payload, next_piece);
}

void Session::count_striped(uint64_t in, uint64_t out) {
  if (in) stats_.bytes_in.add(in);  // the session thread's count; D2H copies count theirs elsewhere
  std::lock_guard<std::mutex> lock(send_mu_);  // bytes_out is counted by senders on other threads too
  stats_.bytes_out.add(out);
}

void Session::abort(const Status& why) {
  {
    std::lock_guard<std::mutex> lock(abort_mu_);
    if (abort_status_.is_ok()) abort_status_ = why;
  }
  aborted_.store(true, std::memory_order_relaxed);
  input_.end();
  conn_.shutdown();
}

Status Session::aborted_status() {
  std::lock_guard<std::mutex> lock(abort_mu_);
  // A client that went away ends its session as one that said goodbye does.
  return abort_status_.code() == Code::kClosed ? Status::ok() : abort_status_;
}

void Session::heartbeat() {
  std::unique_lock<std::mutex> lock(send_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // a reply is on its way: the client hears from us anyway
  (void)conn_.send_frame(wire::make_header(wire::FrameKind::kHeartbeat, 0, 0, 0, 0), {}, {});
}

void Session::watch_peer(int wake) {
  const int fd = conn_.descriptor();
  if (fd < 0) return;
  const auto timeout = transport::peer_timeout();
  const auto interval = transport::heartbeat_interval();
  auto next_heartbeat = std::chrono::steady_clock::now();
  auto next_report = next_heartbeat + std::chrono::seconds(1);
  auto gone = [this](Status why) {
    abort(std::move(why));
    // A call waiting for its turn is not to run any more. (Only here: abort() may come from a
    // thread the session thread waits for inside a call, which holds the gate.)
    if (gate_) gate_->stop();
  };
  pollfd fds[2] = {{fd, POLLRDHUP, 0}, {wake, POLLIN, 0}};
  for (;;) {
    int n = ::poll(fds, 2, kPeerProbeMs);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || fds[1].revents) return;
    if (fds[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) return gone(RGPU_ERROR(kClosed, "the client went away"));
    int unread = 0;
    const bool backlog = n == 0 && ::ioctl(fd, FIONREAD, &unread) == 0 && unread > 0;
    // Heartbeats: the client's proof that we live, even while the session thread sits in a long
    // kernel. With a backlog, one every probe: a killed client's end sends its FIN only after all
    // the data it had queued, which the session may take minutes to read, but a heartbeat reaches
    // a closed end, whose kernel answers with a reset, seen at once.
    const auto now = std::chrono::steady_clock::now();
    if (backlog || now >= next_heartbeat) {
      heartbeat();
      next_heartbeat = now + interval;
    }
    if (report_ && now >= next_report) {
      report_();
      next_report = now + std::chrono::seconds(1);
    }
    if (std::string why = transport::peer_gone(conn_, timeout, false); !why.empty()) {
      log_event(LogLevel::kWarn, "client_gone", id_, {{"reason", why}}, "session %llu: %s; ending the session",
                static_cast<unsigned long long>(id_), why.c_str());
      return gone(RGPU_ERROR(kUnavailable, "the client stopped answering: " + why));
    }
  }
}

Status Session::run() {
  std::vector<uint8_t> payload;
  std::vector<uint8_t> bulk;
  input_.read_on_this_thread();
  // However the session ends, no host function waits for the client any more (the worker exits
  // next, and must not hang behind one).
  struct EndInput {
    SessionInput& input;
    ~EndInput() { input.end(); }
  } end_input{input_};
  const int wake = ::eventfd(0, EFD_CLOEXEC);
  std::thread watcher;
  if (wake >= 0) watcher = std::thread([this, wake] { watch_peer(wake); });
  struct StopWatcher {
    int wake;
    std::thread& watcher;
    ~StopWatcher() {
      if (wake < 0) return;
      uint64_t one = 1;
      ssize_t ignored = ::write(wake, &one, sizeof one);
      (void)ignored;
      watcher.join();
      ::close(wake);
    }
  } stop_watcher{wake, watcher};
  for (;;) {
    if (aborted_.load(std::memory_order_relaxed)) return aborted_status();
    // Frames a host function waiting for its acknowledgement read while this thread was inside a
    // call (session_input.h) come first: they were sent before anything still on the connection.
    if (input_.has_stashed()) {
      SessionInput::Stashed f;
      if (!input_.take_stashed(&f)) continue;
      if (!f.failure.is_ok()) return input_ended(f.failure);
      stats_.bytes_in.add(sizeof f.header + f.payload.size() + f.bulk.size());
      RGPU_TRY(dispatch(f.header, f.payload, f.bulk));
      continue;
    }
    // The client's next call usually follows within microseconds: polling for it spares the
    // wake-up of a sleeping receive (several microseconds on a virtual machine) on every round trip.
    poll_for(kInputPoll, [this] { return conn_.input_pending(); });
    wire::FrameHeader h;
    Status st = conn_.recv_header(h);
    if (!st.is_ok()) return input_ended(st);
    payload.resize(h.payload_len);
    RGPU_TRY(conn_.recv_exact(payload.data(), h.payload_len));
    if (h.kind == static_cast<uint16_t>(wire::FrameKind::kCall) && streams_bulk(h.method, h.bulk_len)) {
      stats_.bytes_in.add(sizeof h + h.payload_len + h.bulk_len);
      SessionInput::StreamedBulk reader(input_, h.bulk_len);
      Status st = handle_call(h, payload, {}, &reader);
      RGPU_TRY(reader.finish());
      RGPU_TRY(st);
      continue;
    }
    bulk.resize(h.bulk_len);
    RGPU_TRY(conn_.recv_exact(bulk.data(), h.bulk_len));
    stats_.bytes_in.add(sizeof h + h.payload_len + h.bulk_len);
    RGPU_TRY(dispatch(h, payload, bulk));
  }
}

Status Session::input_ended(const Status& why) {
  if (aborted_.load(std::memory_order_relaxed)) return aborted_status();
  return why.code() == Code::kClosed ? Status::ok() : why;
}

Status Session::dispatch(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const uint8_t> bulk) {
  switch (static_cast<wire::FrameKind>(h.kind)) {
    case wire::FrameKind::kCall:
      return handle_call(h, payload, bulk, nullptr);
    case wire::FrameKind::kControl: {
      LentInput lent(input_);  // a module load may wait for the GPU like a call
      ReadBackRelease release(*this);
      return handle_control(h, payload);
    }
    case wire::FrameKind::kCallbackReturned:
      return input_.callback_returned(h);
    default:
      return RGPU_ERROR(kProtocol, "unexpected frame kind " + std::to_string(h.kind) + " from the client");
  }
}

Status Session::handle_call(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const uint8_t> bulk,
                            BulkReader* reader) {
  ReadBackRelease release(*this);  // after this call has been answered
  if (!profile_) return serve_call(h, payload, bulk, reader);
  const auto began = CallProfile::Clock::now();
  Status st = serve_call(h, payload, bulk, reader);
  profile_->add(h.method, began, CallProfile::Clock::now());
  return st;
}

void Session::hold_sends() {
  std::lock_guard<std::mutex> lock(hold_mu_);
  if (holds_++ == 0) conn_.hold_sends(true);
}

void Session::release_sends() {
  std::lock_guard<std::mutex> lock(hold_mu_);
  if (--holds_ == 0) conn_.hold_sends(false);
}

Status Session::serve_call(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const uint8_t> bulk,
                           BulkReader* reader) {
  stats_.calls.add(1);
  if (!keeps_sync_calls_ && orders_pool_memory(h.method))
    keep_sync_calls("it allocates stream-ordered memory, whose pool retires frees only in synchronising calls");
  // A stream signal is the client's wait too, answered through memory (stream_signal.cpp).
  if ((h.flags & wire::kFlagWantsReply) || h.method == wire::kCallStreamSignal) stats_.round_trips.add(1);
  bool malformed = false;
  if (gen::cudart::is_blocking(h.method)) {
    // A wait must not hold up other client threads' calls: unless it ends at once, it runs
    // beside the session thread (which tells the gate when it ends). It only waits on work that
    // was already enqueued.
    if (gate_) gate_->wait_begins();
    // A read-back of mapped memory right behind it is input that waits for this call anyway.
    const bool reads_follow = (h.flags & wire::kFlagReadBackFollows) != 0;
    const InlineWait waited = wait_inline(backend_, handles_, h, payload, [&] {
      return !reads_follow && (input_.has_stashed() || conn_.input_pending());
    });
    if (waited == InlineWait::kHandOver) {
      blocking_.submit(h, payload);
      return Status::ok();
    }
    if (gate_) gate_->wait_ends();
    if (reads_follow) {
      hold_sends();  // released once the read-back has replied (handle_call)
      read_back_held_ = true;
    }
    if (waited == InlineWait::kDone && !keeps_sync_calls_) {
      reply_done_wait(h);
      return Status::ok();
    }
  }
  // From here the call may wait for the GPU, and with it for a host function that waits for the
  // client's acknowledgement: the input is lent meanwhile, so that function can read it
  // (session_input.h). The gate's turn may wait for the GPU too (a drain), so it is inside.
  LentInput lent(input_);
  // A read of mapped memory is sent right behind the synchronisation whose results it fetches
  // (client/runtime/mapped_memory.h), which may have been handed to the pool: it runs once every
  // wait handed over before it has returned.
  if (h.method == wire::kCallMappedRead) blocking_.wait_for_submitted();
  if (gate_) {
    // Everything but a wait may put work on the GPU: it runs only in the session's turn (and not
    // at all once the session is ending).
    if (!gate_->enter()) return Status::ok();
    execute(h, payload, bulk, reader, &malformed);
    gate_->leave();
  } else {
    execute(h, payload, bulk, reader, &malformed);
  }
  if (malformed)
    return RGPU_ERROR(kProtocol, std::string("malformed arguments for ") + gen::cudart::call_name(h.method) + " (id " +
                                     std::to_string(h.method) + ")");
  return Status::ok();
}

void Session::execute(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const uint8_t> bulk,
                      BulkReader* reader, bool* malformed) {
  thread_local wire::Encoder out;
  out.clear();
  out.put<int32_t>(0);  // the status, patched below
  thread_local std::vector<iovec> bulk_out;  // reused: no allocation per call once warm
  bulk_out.clear();
  CallContext ctx{.session = *this,
                  .cudart = backend_.cudart(),
                  .cublas = backend_.cublas(),
                  .cudnn = backend_.cudnn(),
                  .handles = handles_,
                  .bulk_in = bulk,
                  .bulk_out = &bulk_out,
                  .seq = h.seq,
                  .cublasLt = backend_.cublasLt(),
                  .curand = backend_.curand(),
                  .cufft = backend_.cufft(),
                  .cusparse = backend_.cusparse(),
                  .cusolver = backend_.cusolver()};
  ctx.method = h.method;
  ctx.bulk_reader = reader;
  ctx.wants_reply = (h.flags & wire::kFlagWantsReply) != 0;
  wire::Decoder in(payload);
  int32_t status = 0;
  bool internal = false;
  if (h.method == gen::cudart::k_cudaDeviceReset) landings_.drain();
  bool ok = handlers::dispatch_internal(ctx, h.method, in, out, status, &internal);
  if (!internal) ok = dispatch_library(backend_, ctx, h.method, in, out, status);
  if (!ok) {
    *malformed = true;
    return;
  }
  out.patch<int32_t>(0, status);
  // A query's "not ready" is an answer, not a failure.
  if (status != 0 && status != cudaErrorNotReady && gen::cudart::has_call(h.method))
    backend_.log_failure(gen::cudart::call_name(h.method), status);
  // Library handles take their workspaces inside the library, out of the slice's sight: the
  // figure is read again, so the next allocation is checked against what the process holds.
  if (memory_.enforced() && allocates_inside_library(h.method)) memory_.refresh();
  if (h.method == gen::cudart::k_cudaDeviceReset && status == cudaSuccess) forget_device_buffers();
  if (ctx.replied) {
    // The handler sent its reply as it went (a streamed copy); a failure after that point is
    // the call's asynchronous error.
    if (status != 0) send_async_error(h, status);
  } else if (ctx.wants_reply) {
    send_reply(h, out.payload(), bulk_out, /*may_have_printed=*/true);
  } else if (status != 0) {
    send_async_error(h, status);
  }
}

void Session::keep_sync_calls(const char* why) {
  keeps_sync_calls_ = true;
  RGPU_LOG_INFO("session %llu: waits keep their synchronising call: %s", static_cast<unsigned long long>(id_), why);
}

void Session::reply_done_wait(const wire::FrameHeader& h) {
  if (!(h.flags & wire::kFlagWantsReply)) return;
  const int32_t success = cudaSuccess;
  send_reply(h, {reinterpret_cast<const uint8_t*>(&success), sizeof success}, {}, /*may_have_printed=*/false);
}

void Session::send_reply(const wire::FrameHeader& h, std::span<const uint8_t> payload, std::span<const iovec> bulk,
                         bool may_have_printed) {
  // D2H copies whose stream is done go first: a synchronisation's reply promises their bytes. They
  // and the reply are held to leave as one (over loopback TCP each frame sent on its own is a pass
  // through the network stack on this thread).
  const bool several = landings_.pending();
  if (several) hold_sends();
  landings_.settle(h.seq);
  // Device printf output flushed by this call goes ahead of its reply (sync calls only: an async
  // call's output follows with the next reply).
  if (output_ && may_have_printed) {
    std::string text = output_->take();
    if (!text.empty()) {
      iovec v{text.data(), text.size()};
      (void)send(wire::FrameKind::kOutput, 0, 0, {}, {&v, 1});
    }
  }
  (void)send(wire::FrameKind::kReply, h.method, h.seq, payload, bulk);
  if (several) release_sends();
}

void Session::send_async_error(const wire::FrameHeader& h, int32_t status) {
  wire::Encoder e;
  e.put<int32_t>(status);
  e.put<uint32_t>(h.method);
  async_errors_told_.fetch_add(1, std::memory_order_release);
  (void)send(wire::FrameKind::kAsyncError, h.method, h.seq, e.payload());
}

Session::SignalAnswer Session::signal_answer() {
  if (keeps_sync_calls_ || gate_) return SignalAnswer::kNever;
  const uint64_t told = async_errors_told_.load(std::memory_order_acquire);
  return std::exchange(errors_at_signal_, told) == told ? SignalAnswer::kWrite : SignalAnswer::kAsk;
}

// Kept for the session's life (its worker process's end frees it) or until cudaDeviceReset
// destroys it with the rest of the device's streams (forget_device_buffers).
cudaStream_t Session::event_signal_stream(int device) {
  const auto& rt = backend_.cudart();
  auto [it, made] = event_signal_streams_.try_emplace(device, nullptr);
  if (made && (!rt.cudaStreamCreateWithFlags || rt.cudaStreamCreateWithFlags(&it->second, cudaStreamNonBlocking) != cudaSuccess))
    it->second = nullptr;  // not tried again on this device
  return it->second;
}

// Natively the driver tells a process past its device memory budget; here the budget is the slice,
// and the notification goes ahead of the reply of the allocation that crossed it.
void Session::notify_over_budget(uint64_t bytes) {
  int device = 0;
  if (backend_.cudart().cudaGetDevice) backend_.cudart().cudaGetDevice(&device);
  wire::Encoder e;
  e.put<int32_t>(device);
  e.put<int32_t>(cudaAsyncNotificationTypeOverBudget);
  e.put<uint64_t>(bytes);
  (void)send(wire::FrameKind::kNotification, 0, 0, e.payload());
}

Status Session::handle_control(const wire::FrameHeader& h, std::span<const uint8_t> payload) {
  switch (static_cast<wire::fb::ControlType>(h.method)) {
    case wire::fb::ControlType::ModuleLoad:
      stats_.round_trips.add(1);  // its client waits for the answer
      return load_module(h.seq, payload);
    case wire::fb::ControlType::Goodbye:
      return RGPU_ERROR(kClosed, "the client said goodbye");
    default:
      return RGPU_ERROR(kProtocol, "unexpected control message " + std::to_string(h.method));
  }
}

Status Session::load_module(uint64_t seq, std::span<const uint8_t> payload) {
  flatbuffers::Verifier verifier(payload.data(), payload.size());
  if (!verifier.VerifyBuffer<wire::fb::ModuleLoad>(nullptr))
    return RGPU_ERROR(kProtocol, "malformed ModuleLoad message");
  auto* req = flatbuffers::GetRoot<wire::fb::ModuleLoad>(payload.data());
  fatbin::ContentHash key{};
  if (!req->sha256() || req->sha256()->size() != key.size()) return RGPU_ERROR(kProtocol, "ModuleLoad without its SHA-256");
  std::copy(req->sha256()->begin(), req->sha256()->end(), key.begin());
  std::vector<std::string> fnames, vnames;
  if (req->function_names())
    for (auto* s : *req->function_names()) fnames.emplace_back(s->str());
  if (req->variable_names())
    for (auto* s : *req->variable_names()) vnames.emplace_back(s->str());
  if (req->module_id() >= (uint64_t{1} << 40) || fnames.size() >= (size_t{1} << 20))
    return RGPU_ERROR(kProtocol, "ModuleLoad ids out of range");

  // The image comes with the message, or from the cache when the client sent only its key.
  std::span<const uint8_t> image;
  std::optional<std::vector<uint8_t>> cached;
  if (req->image() && req->image()->size() > 0) {
    image = {req->image()->data(), req->image()->size()};
    if (fatbin::content_hash(image) != key) return RGPU_ERROR(kProtocol, "ModuleLoad image does not match its SHA-256");
    ModuleCache::get().store(key, image);
  } else {
    cached = ModuleCache::get().find(key);
    if (!cached) {
      flatbuffers::FlatBufferBuilder fbb;
      fbb.Finish(wire::fb::CreateModuleLoaded(fbb, req->module_id(), wire::kModuleImageNeeded));
      return send(wire::FrameKind::kControl, static_cast<uint32_t>(wire::fb::ControlType::ModuleLoaded), seq,
                  {fbb.GetBufferPointer(), fbb.GetSize()});
    }
    image = *cached;
  }

  LoadedModule module;
  // A module's code and variables take device memory: about its image's size, checked like an
  // allocation, then read again.
  int32_t status = memory_.admit(image.size()) ? backend_.load_module(image, fnames, vnames, &module)
                                               : static_cast<int32_t>(cudaErrorMemoryAllocation);
  if (status == 0 && !keeps_sync_calls_ && fatbin::may_print(image))
    keep_sync_calls("a module may call device printf, whose buffer only a synchronising call empties");
  if (memory_.enforced()) memory_.refresh();

  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<wire::fb::FunctionInfo>> fns;
  std::vector<flatbuffers::Offset<wire::fb::VarInfo>> vars;
  if (status == 0) {
    for (size_t i = 0; i < module.functions.size(); ++i) {
      const LoadedFunction& f = module.functions[i];
      std::vector<flatbuffers::Offset<wire::fb::ParamInfo>> params;
      for (const KernelParam& p : f.params) params.push_back(wire::fb::CreateParamInfo(fbb, p.offset, p.size));
      fns.push_back(wire::fb::CreateFunctionInfo(fbb, fbb.CreateString(f.name), fbb.CreateVector(params)));
      functions_[(req->module_id() << 20) | i] = f;
    }
    modules_[req->module_id()] = module.handle;
    for (const LoadedVariable& v : module.variables)
      vars.push_back(wire::fb::CreateVarInfo(fbb, fbb.CreateString(v.name), v.address, v.size));
  }
  RGPU_LOG_DEBUG("session %llu: module %llu loaded (%zu bytes, %zu kernels): status %d",
                 static_cast<unsigned long long>(id_), static_cast<unsigned long long>(req->module_id()),
                 image.size(), fnames.size(), status);
  fbb.Finish(wire::fb::CreateModuleLoaded(fbb, req->module_id(), status, fbb.CreateVector(fns), fbb.CreateVector(vars)));
  return send(wire::FrameKind::kControl, static_cast<uint32_t>(wire::fb::ControlType::ModuleLoaded), seq,
              {fbb.GetBufferPointer(), fbb.GetSize()});
}

}  // namespace rgpu::server
