// The call pipe: connection set-up, the send path, and the receiver thread.
#include "client/runtime/pipe.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "client/runtime/async_notifications.h"
#include "client/runtime/settings.h"
#include "client/runtime/stripes.h"
#include "common/config.h"
#include "common/log.h"
#include "common/spin.h"
#include "common/wire/control.h"
#include "common/wire/copy_args.h"
#include "common/wire/internal_calls.h"
#include "codegen/support/api_hash.h"
#include "gen/cudart/cudart_ids.h"
#include "transports/liveness.h"
#include "transports/ucx/ucx_selection.h"
#include "transports/unix/unix_address.h"

namespace rgpu::client {
namespace {

// Calls a real driver answers without creating the device's context: they leave
// device_used() (the primary context's "active" state) alone.
bool needs_context(uint32_t id) {
  switch (id) {
    case wire::kCallDeviceSnapshot:
    case wire::kCallErrorText:
    case gen::cudart::k_cudaDriverGetVersion:
    case gen::cudart::k_cudaDeviceGetAttribute:
      return false;
    default:
      return true;
  }
}

const Tunable kStats{"RGPU_STATS", "0",
                     "1 prints, when the program exits, how many calls went without waiting and how many round trips "
                     "it made"};

const Tunable kReplyPoll{"RGPU_REPLY_POLL_US", "1000",
                         "how long a call waiting for its reply polls before it sleeps, in microseconds, as CUDA's "
                         "own synchronisation spins (on hosts with four or more CPUs; a shared-memory pipe's "
                         "receiver polls meanwhile too)"};

// One line when the session joins rgpud's admission queue, one at each later notice (every 10 s).
void print_queue_notice(const transport::QueueNotice& n, bool first) {
  const std::string gives_up = n.timeout_ms < 0 ? "it waits until there is room"
                                                : "it gives up after " + std::to_string(n.timeout_ms / 1000) +
                                                      " s (RGPU_QUEUE_TIMEOUT)";
  if (first)
    std::fprintf(stderr, "rgpu: no GPU has room for this session now; waiting in rgpud's admission queue, place %u: %s; %s\n",
                 n.position, n.waiting_for.c_str(), gives_up.c_str());
  else
    std::fprintf(stderr, "rgpu: still waiting for a GPU, place %u, %llu s so far: %s\n", n.position,
                 static_cast<unsigned long long>(n.waited_ms / 1000), n.waiting_for.c_str());
}

void print_stats() {
  const PipeStats& s = Pipe::get().stats();
  std::fprintf(stderr,
               "rgpu: %llu calls sent without waiting, %llu round trips, %.1f ms waiting for them; %llu of the round "
               "trips were stream waits answered through shared memory\n",
               static_cast<unsigned long long>(s.async_calls.load()), static_cast<unsigned long long>(s.round_trips.load()),
               static_cast<double>(s.waited_ns.load()) / 1e6, static_cast<unsigned long long>(s.signalled.load()));
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// The program's name for the pool's listings: its invocation name, else its executable's.
std::string program_name() {
  if (program_invocation_short_name && *program_invocation_short_name) return program_invocation_short_name;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  std::string_view exe(buf, static_cast<size_t>(n));
  return std::string(exe.substr(exe.rfind('/') + 1));
}

}  // namespace

// The counters behind RGPU_STATS, for tools that measure round trips per phase of a program (the
// PyTorch suite reads them per training step through ctypes). Exported under RGPU_PRIVATE_1.
extern "C" void rgpu_client_stats(uint64_t* sent_without_waiting, uint64_t* round_trips) {
  const PipeStats& s = Pipe::get().stats();
  *sent_without_waiting = s.async_calls.load(std::memory_order_relaxed);
  *round_trips = s.round_trips.load(std::memory_order_relaxed);
}

Pipe& Pipe::get() {
  static Pipe* pipe = new Pipe();  // intentionally leaked: see the header
  return *pipe;
}

Pipe::Pipe() {
  log_set_prefix("rgpu");
  connect();
}

transport::ClientIdentity Pipe::identity() const {
  transport::ClientIdentity id;
  id.protocol_version = wire::kProtocolVersion;
  id.api_hash = gen::kApiHash;  // cudart's and cuBLAS's
  id.client_version = "0.1.0";
  id.host = hostname();
  id.pid = static_cast<uint32_t>(getpid());
  // connect() refused to open a session with a bad value, so these are valid here.
  if (Result<uint64_t> memory = memory_request(); memory.is_ok()) id.memory_request = *memory;
  if (Result<uint32_t> compute = compute_request(); compute.is_ok()) id.compute_request = *compute;
  if (Result<int64_t> timeout = queue_timeout_ms(); timeout.is_ok()) id.queue_timeout_ms = *timeout;
  id.program = program_name();
  if (Result<std::string> transport = transport::client_session_transport(server_address_); transport.is_ok())
    id.transport = *transport;
  return id;
}

void Pipe::connect() {
  server_address_ = rgpu::client::server_address();  // not the member of the same name
  // A request the pool cannot read opens no session, loudly: running on a different slice than the
  // one asked for would be worse than not running.
  for (const Status& st : {memory_request().status(), compute_request().status(), queue_timeout_ms().status(),
                           transport::session_transport().status()}) {
    if (st.is_ok()) continue;
    std::fprintf(stderr, "rgpu: no GPU available: no session opened: %s\n",
                 st.message().substr(0, st.message().find('\n')).c_str());
    return;
  }
  bool queued = false;
  const auto asked = std::chrono::steady_clock::now();
  auto conn = transport::connect_and_handshake(server_address_, identity(), kToken.get(), &welcome_,
                                               std::chrono::seconds(kHandshakeTimeout.get_int()),
                                               {[&queued](const transport::QueueNotice& n) {
                                                 print_queue_notice(n, !queued);
                                                 queued = true;
                                               }});
  // RGPU_TRANSPORT=ucx: the session goes on over UCX from its Welcome (the handshake asked for it); a
  // Unix-socket session over shared memory, unless either end declines (transports/shm/README.md).
  if (conn.is_ok()) conn = transport::continue_session(std::move(*conn), identity().transport, /*serving=*/false);
  const Status st = conn.status();
  if (st.is_ok() && queued)
    std::fprintf(stderr, "rgpu: the session started after %.1f s in rgpud's admission queue\n",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count());
  if (!st.is_ok()) {
    std::string first_line = st.message().substr(0, st.message().find('\n'));
    std::fprintf(stderr,
                 "rgpu: no GPU available: cannot start a session with rgpud at %s: %s (start rgpud there, or set "
                 "RGPU_SERVER=host:port or unix:PATH)\n",
                 server_address_.c_str(), first_line.c_str());
    RGPU_LOG_DEBUG("%s", st.to_string().c_str());
    return;
  }
  conn_ = std::move(*conn);
  conn_->spin_while(&polling_);
  // Over UCX the Unix socket is only its lifeline: no descriptor rides the session's bytes. Over
  // shared memory (or the socket itself) descriptors ride the socket.
  carries_descriptors_ = transport::unix_socket::is_unix_address(server_address_) && identity().transport != "ucx";
  outbox_ = std::make_unique<Outbox>(*conn_, [this](const std::string& why) { fail_all("sending failed: " + why); });
  RGPU_LOG_DEBUG("session %llu with %s (%s backend, %zu devices)", static_cast<unsigned long long>(welcome_.session_id),
                 server_address_.c_str(), welcome_.backend.c_str(), welcome_.devices.size());
  std::thread([this] { receive_loop(); }).detach();
  if (transport::peer_timeout().count() > 0) std::thread([this] { watch_server(); }).detach();
  if (kStats.get_bool()) std::atexit(print_stats);
  pthread_atfork(nullptr, nullptr, &Pipe::after_fork_in_child);
}

void Pipe::after_fork_in_child() {
  // Only the forking thread lives on in the child: no receiver, writer or watcher. Marking the
  // pipe broken makes every call fail before it takes a lock (another thread may have held one at
  // the fork) and keeps fail_all from shutting down the socket the parent shares.
  Pipe& pipe = get();
  pipe.forked_child_ = true;
  pipe.broken_.store(true, std::memory_order_release);
}

bool Pipe::switch_device_locked(std::unique_lock<std::mutex>& lk, int device) {
  if (device == pipe_device_) return true;
  // cudaSetDevice(int) on the server, encoded as its generated stub would, ahead of the call.
  wire::Encoder e;
  e.put<int32_t>(device);
  auto p = e.payload();
  auto h = wire::make_header(wire::FrameKind::kCall, gen::cudart::k_cudaSetDevice, next_seq_++,
                             static_cast<uint32_t>(p.size()), 0);
  // The call behind it wakes the writer or writes the queue.
  if (!outbox_->append_locked(lk, h, p, {}, /*wake_writer=*/false)) return false;
  pipe_device_ = device;
  return true;
}

bool Pipe::send_call(uint32_t id, const wire::Encoder& args, int device, Waiter* waiter, void* landing,
                     size_t landing_len, int descriptor, bool now) {
  if (!available()) return false;
  if (needs_context(id)) mark_used(device);
  auto lk = outbox_->lock();
  if (!switch_device_locked(lk, device)) return false;
  uint64_t seq = next_seq_++;
  if (waiter || landing) {
    std::lock_guard<std::mutex> lock(wait_mu_);
    if (waiter) waiters_.emplace_back(seq, waiter);
    if (landing) {
      landings_[seq] = Landing::range(landing, landing_len);
      landings_changed_locked();
    }
  }
  auto payload = args.payload();
  auto h = wire::make_header(wire::FrameKind::kCall, id, seq, static_cast<uint32_t>(payload.size()), args.bulk_bytes(),
                             waiter ? wire::kFlagWantsReply | (waiter->read_back_follows ? wire::kFlagReadBackFollows : 0)
                                    : 0);
  if (!waiter) stats_.async_calls.fetch_add(1, std::memory_order_relaxed);
  // Bulk too large to copy is written by this thread, so it is on the wire when the call returns.
  if (args.bulk_bytes() > Outbox::kInlineBulk || descriptor >= 0)
    return outbox_->write_locked(lk, h, payload, args.bulk(), descriptor);
  // A caller about to wait for its reply sends at once rather than wake the writer thread. So does,
  // where a send is a copy into shared memory (outbox.h), the first asynchronous call after a wait
  // (a lone launch reaches the server at once); the rest of a run of them goes to the writer, which
  // batches a burst (frames published one by one gave same-host launch throughput 0.79-0.82 x
  // native in two runs of three on an H100, where the writer's batches gave 0.88-0.97 x).
  const bool first_of_run = !in_async_run_;
  const bool waits = waiter || now;
  in_async_run_ = !waits;
  const bool write = waits || (first_of_run && outbox_->callers_write());
  if (!outbox_->append_locked(lk, h, payload, args.bulk(), /*wake_writer=*/!write)) return false;
  return write ? outbox_->flush_locked(lk) : true;
}

bool Pipe::control_round_trip(uint32_t type, std::span<const uint8_t> payload, int device,
                              std::vector<uint8_t>* reply) {
  if (!available()) return false;
  mark_used(device);
  Waiter w;
  w.payload = reply;
  {
    auto lk = outbox_->lock();
    if (!switch_device_locked(lk, device)) return false;
    uint64_t seq = next_seq_++;
    {
      std::lock_guard<std::mutex> lock(wait_mu_);
      waiters_.emplace_back(seq, &w);
    }
    auto h = wire::make_header(wire::FrameKind::kControl, type, seq, static_cast<uint32_t>(payload.size()), 0);
    if (!outbox_->write_locked(lk, h, payload, {})) return false;
  }
  wait(w);
  return !w.lost;
}

void Pipe::wait(Waiter& waiter) {
  stats_.round_trips.fetch_add(1, std::memory_order_relaxed);
  // Timed only when asked: a remote program's time splits into its own and its waits.
  static const bool timed = kStats.get_bool();
  if (!timed) return wait_behind(waiter);
  const auto began = std::chrono::steady_clock::now();
  wait_behind(waiter);
  const auto waited = std::chrono::steady_clock::now() - began;
  stats_.waited_ns.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count(),
                             std::memory_order_relaxed);
}

std::chrono::microseconds Pipe::reply_poll() {
  static const std::chrono::microseconds budget(std::clamp<int64_t>(kReplyPoll.get_int(), 0, 1'000'000));
  return budget;
}

void Pipe::wait_behind(Waiter& waiter) {
  // Polling for the reply spares the caller a sleep and its wake-up on the latency path; over
  // shared memory the receiver thread polls the ring meanwhile too (spin_while), or the reply
  // would wait for two wake-ups, the receiver's and the caller's (a same-host 16 MiB copy lost
  // about 20 % to them). CUDA's own synchronisation spins like this where there are cores for it.
  if (!waiter.done.load(std::memory_order_acquire) && polling_pays()) {
    polling_.fetch_add(1, std::memory_order_relaxed);
    const bool done = poll_for(reply_poll(), [&] { return waiter.done.load(std::memory_order_acquire); });
    polling_.fetch_sub(1, std::memory_order_relaxed);
    // `done` is the receiver's last touch of the waiter: the lock it still holds while it notifies
    // need not be waited for (on an H100 a same-host caller took 0.4 us from the receiver's `done`
    // to its return, that lock included).
    if (done) return;
  }
  std::unique_lock<std::mutex> lock(wait_mu_);
  wait_cv_.wait(lock, [&] { return waiter.done.load(std::memory_order_relaxed); });
}

void Pipe::wait_landings(const void* p, size_t n) {
  // Most calls find nothing in flight: they look without the lock the receiver thread takes.
  if (landings_count_.load(std::memory_order_acquire) == 0) return;
  auto lo = reinterpret_cast<uintptr_t>(p);
  auto hi = lo + n;
  std::unique_lock<std::mutex> lock(wait_mu_);
  wait_cv_.wait(lock, [&] {
    if (broken_) return true;
    for (auto& [seq, l] : landings_) {
      auto a = reinterpret_cast<uintptr_t>(l.base);
      if (a < hi && lo < a + l.span()) return false;
    }
    return true;
  });
}

uint64_t Pipe::register_callback(std::function<void()> fn, bool persistent) {
  std::lock_guard<std::mutex> lock(wait_mu_);
  uint64_t id = next_callback_++;
  callbacks_[id] = Callback{std::move(fn), persistent};
  return id;
}

void Pipe::register_mirror(uint64_t mirror, const HostRows& dst) {
  std::lock_guard<std::mutex> lock(wait_mu_);
  mirrors_[mirror] = dst;
  has_mirrors_.store(true, std::memory_order_release);
}

void Pipe::watch_server() {
  const auto timeout = transport::peer_timeout();
  while (!broken_.load(std::memory_order_acquire)) {
    std::this_thread::sleep_for(transport::kLivenessLook);
    if (std::string why = transport::peer_gone(*conn_, timeout, true); !why.empty()) return fail_all(why);
  }
}

void Pipe::fail_all(const std::string& why) {
  if (broken_.exchange(true)) return;
  std::fprintf(stderr, "rgpu: lost the session with rgpud at %s: %s\n", server_address_.c_str(), why.c_str());
  conn_->shutdown();
  outbox_->stop();
  std::lock_guard<std::mutex> lock(wait_mu_);
  for (auto& [seq, w] : waiters_) {
    w->lost = true;
    w->done = true;
  }
  waiters_.clear();
  landings_.clear();
  landings_changed_locked();
  wait_cv_.notify_all();
}

// Receives bulk data into the destination registered under `key` (skipped when none is, or when
// its size differs), row by row where its rows lie apart. A one-time landing (async D2H) is then dropped and its waiters woken; a
// mirror's stays for the graph's next launch.
void Pipe::land(std::unordered_map<uint64_t, Landing>& table, uint64_t key, uint64_t bulk_len, bool once) {
  Landing l;
  {
    std::lock_guard<std::mutex> lock(wait_mu_);
    auto it = table.find(key);
    if (it != table.end()) l = it->second;
  }
  Status st;
  if (!l.base || l.bytes() != bulk_len) {
    st = conn_->skip(bulk_len);
  } else if (l.packed()) {
    st = conn_->recv_exact(l.base, bulk_len);
  } else {
    l.each([&](char* row, size_t) {
      if (st.is_ok()) st = conn_->recv_exact(row, l.width);
    });
  }
  if (!st.is_ok()) return fail_all(st.message());
  if (!once) return;
  std::lock_guard<std::mutex> lock(wait_mu_);
  table.erase(key);
  landings_changed_locked();
  wait_cv_.notify_all();
}

bool Pipe::land_striped(uint64_t seq, const wire::StripedLanding& marker) {
  // The call's async landing, or the reply bulk its caller waits for (a synchronous copy).
  void* dst = nullptr;
  size_t n = 0;
  bool async = false;
  {
    std::lock_guard<std::mutex> lock(wait_mu_);
    if (auto it = landings_.find(seq); it != landings_.end() && it->second.packed()) {
      dst = it->second.base;
      n = it->second.bytes();
      async = true;
    } else if (auto w = std::find_if(waiters_.begin(), waiters_.end(), [&](const auto& p) { return p.first == seq; });
               w != waiters_.end()) {
      dst = w->second->bulk_dst;
      n = w->second->bulk_len;
    }
  }
  if (!Stripes::get().land(dst, n, marker.transfer, marker.count, marker.stripes)) return false;
  if (async) {
    std::lock_guard<std::mutex> lock(wait_mu_);
    landings_.erase(seq);
    landings_changed_locked();
    wait_cv_.notify_all();
  }
  return true;
}

void Pipe::run_callback(uint64_t number, std::span<const uint8_t> payload) {
  wire::Decoder d(payload);
  uint64_t id = d.get<uint64_t>();
  std::function<void()> fn;
  {
    std::lock_guard<std::mutex> lock(wait_mu_);
    auto it = callbacks_.find(id);
    if (it != callbacks_.end()) {
      if (it->second.persistent) {
        fn = it->second.fn;
      } else {
        fn = std::move(it->second.fn);
        callbacks_.erase(it);
      }
    }
  }
  // Run before any later frame is read: a synchronisation reply that follows in the stream's
  // order therefore returns only after the callback has run.
  if (fn) fn();
  // Only now: the server's host function waits for this before the stream's later work may start.
  // Every callback frame is acknowledged, in order, a callback unknown here too (it ran nothing).
  auto h = wire::make_header(wire::FrameKind::kCallbackReturned, 0, number, 0, 0);
  auto lk = outbox_->lock();
  (void)outbox_->append_now_locked(lk, h);
}

Waiter* Pipe::take_waiter(uint64_t seq) {
  std::lock_guard<std::mutex> lock(wait_mu_);
  auto it = std::find_if(waiters_.begin(), waiters_.end(), [&](const auto& p) { return p.first == seq; });
  if (it == waiters_.end()) return nullptr;
  Waiter* w = it->second;
  *it = waiters_.back();
  waiters_.pop_back();
  return w;
}

void Pipe::receive_loop() {
  std::vector<uint8_t> scratch;
  for (;;) {
    // A reply a caller waits for usually follows within a round trip: polling for it spares the
    // wake-up of a sleeping receive on the latency path.
    poll_for(std::chrono::microseconds(50), [this] { return conn_->input_pending(); });
    wire::FrameHeader h;
    Status st = conn_->recv_header(h);
    if (!st.is_ok()) return fail_all(st.code() == Code::kClosed ? "the server closed the connection" : st.message());
    auto kind = static_cast<wire::FrameKind>(h.kind);
    if (kind == wire::FrameKind::kData && h.payload_len == 0) {
      land(landings_, h.seq, h.bulk_len, true);
      continue;
    }
    if (kind == wire::FrameKind::kData && h.payload_len == sizeof(wire::StripedLanding) && h.bulk_len == 0) {
      wire::StripedLanding marker{};
      st = conn_->recv_exact(&marker, sizeof marker);
      if (!st.is_ok()) return fail_all(st.message());
      if (!land_striped(h.seq, marker)) return fail_all("a striped copy's slices did not come");
      continue;
    }
    if (kind == wire::FrameKind::kMirror && h.payload_len == 0) {
      land(mirrors_, h.seq, h.bulk_len, false);
      continue;
    }
    if (kind == wire::FrameKind::kReply || kind == wire::FrameKind::kControl) {
      Waiter* w = take_waiter(h.seq);
      if (kind == wire::FrameKind::kControl && !w) {
        // An unsolicited control message is the server's notice that it ends the session.
        scratch.resize(h.payload_len);
        st = conn_->recv_exact(scratch.data(), h.payload_len);
        if (!st.is_ok()) return fail_all(st.message());
        auto error = wire::verify_control<wire::fb::Error>(scratch);
        return fail_all(error.is_ok() ? "the server ended the session: " + std::string(wire::view((*error)->reason()))
                                      : "the server ended the session");
      }
      std::vector<uint8_t>& buf = (w && w->payload) ? *w->payload : scratch;
      buf.resize(h.payload_len);
      st = conn_->recv_exact(buf.data(), h.payload_len);
      if (st.is_ok() && h.bulk_len) {
        st = (w && w->bulk_dst && w->bulk_len == h.bulk_len) ? conn_->recv_exact(w->bulk_dst, h.bulk_len)
                                                              : conn_->skip(h.bulk_len);
      }
      if (w) {
        std::lock_guard<std::mutex> lock(wait_mu_);
        w->lost = !st.is_ok();
        w->done = true;
        wait_cv_.notify_all();
      }
      if (!st.is_ok()) return fail_all(st.message());
      continue;
    }
    scratch.resize(h.payload_len);
    st = conn_->recv_exact(scratch.data(), h.payload_len);
    if (!st.is_ok()) return fail_all(st.message());
    switch (kind) {
      case wire::FrameKind::kAsyncError: {
        wire::Decoder d(scratch);
        int32_t status = d.get<int32_t>();
        uint32_t call = d.get<uint32_t>();
        if (gen::cublas::has_call(call)) {
          // cuBLAS returns errors from the call itself: an async call's can only be told.
          RGPU_LOG_WARN("%s failed on the server with cuBLAS status %d", gen::cublas::call_name(call), status);
          break;
        }
        if (gen::cublasLt::has_call(call)) {  // likewise
          RGPU_LOG_WARN("%s failed on the server with cuBLAS status %d", gen::cublasLt::call_name(call), status);
          break;
        }
        if (gen::cudnn::has_call(call)) {  // likewise
          RGPU_LOG_WARN("%s failed on the server with cuDNN status %d", gen::cudnn::call_name(call), status);
          break;
        }
        int32_t expected = 0;
        async_error_.compare_exchange_strong(expected, status);
        RGPU_LOG_DEBUG("async error %d from %s", status, gen::cudart::call_name(call));
        break;
      }
      case wire::FrameKind::kCallback:
        run_callback(h.seq, scratch);
        break;
      case wire::FrameKind::kHeartbeat:  // its arrival is all it says (watch_server)
        break;
      case wire::FrameKind::kNotification: {
        wire::Decoder d(scratch);
        const int32_t device = d.get<int32_t>();
        const int32_t type = d.get<int32_t>();
        const uint64_t value = d.get<uint64_t>();
        if (!d.ok()) return fail_all("a malformed notification from the server");
        deliver_async_notification(device, type, value);
        break;
      }
      case wire::FrameKind::kOutput: {
        // Device printf output and anything else the server-side worker printed for this session.
        scratch.resize(h.bulk_len);
        st = conn_->recv_exact(scratch.data(), h.bulk_len);
        if (!st.is_ok()) return fail_all(st.message());
        std::fflush(stdout);
        size_t off = 0;
        while (off < scratch.size()) {
          ssize_t n = ::write(1, scratch.data() + off, scratch.size() - off);
          if (n <= 0) break;
          off += static_cast<size_t>(n);
        }
        continue;
      }
      default:
        return fail_all("unexpected frame kind " + std::to_string(h.kind) + " from the server");
    }
    if (h.bulk_len) {
      st = conn_->skip(h.bulk_len);
      if (!st.is_ok()) return fail_all(st.message());
    }
  }
}

}  // namespace rgpu::client
