// librgpu_transport_ucx.so: one rgpu connection's UCP context, worker and endpoint, behind the C
// interface of ucx_plugin_api.h. The only code of rgpu that links UCX.
//
// Bytes move through UCP's stream API, not active messages. rgpu's Connection is a byte stream read
// in pieces the reader chooses (a frame header, then its payload, then each bulk segment into its
// own destination), and a stream receive lands in the caller's memory at whatever boundary it asks;
// an active message arrives whole, eager ones in UCX's buffer, so every frame would be copied once
// more and split back into the pieces the reader wants. Bulk data by one-sided RMA is the next step
// (transports/ucx/README.md).
//
// Waiting costs no core: a waiting call polls the worker for spin_us, then arms it and sleeps in
// poll() on the worker's descriptor, the lifeline and an eventfd that shutdown() writes, and that a
// thread whose progress completed something writes when another sleeps (the worker is shared by a
// sender and a receiver thread, each of which may complete the other's request).
//
// Requests carry no completion callback: their state is polled. UCX 1.13 cannot cancel a posted
// stream receive (ucp_request_cancel covers tag receives) and a forced close does not complete it,
// so a receive woken by shutdown() gives its request back unfinished (ucp_request_free), with no
// callback left to call into a returned caller's stack; its endpoint is closed by then, so nothing
// more lands in the caller's buffer.
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <ucp/api/ucp.h>

#include "transports/ucx/ucx_plugin_api.h"

static_assert(sizeof(ucp_dt_iov_t) == sizeof(iovec) && offsetof(ucp_dt_iov_t, buffer) == offsetof(iovec, iov_base) &&
                  offsetof(ucp_dt_iov_t, length) == offsetof(iovec, iov_len),
              "UCP's iov is laid out as iovec: the caller's segments are passed as they are");

namespace {

using Clock = std::chrono::steady_clock;

// The worker-address message on the lifeline: magic, length, the address.
constexpr uint32_t kAddressMagic = 0x58554752;  // "RGUX"
constexpr uint32_t kMaxAddress = 64 << 10;      // a worker address with every InfiniBand port is a few KiB
// Rounds of progress that find nothing before a peer that died without a word counts as drained.
constexpr int kDrainRounds = 64;
// How long a receive waits for bytes a closed peer said it sent, with nothing arriving, before it
// takes them for lost (a peer whose last sends its close could not flush).
constexpr std::chrono::seconds kLostBytesTimeout{2};

// A record of the stream (see the top). kInline: `length` bytes follow. kRemote: a RemoteRegion and
// `rkey_length` bytes of packed rkey follow, and the `length` bytes are read by get.
constexpr uint32_t kInline = 0x49585552;  // "RUXI"
constexpr uint32_t kRemote = 0x47585552;  // "RUXG"
struct RecordHead {
  uint32_t kind;
  uint32_t rkey_length;
  uint64_t length;
};
struct RemoteRegion {
  uint64_t address;
  uint64_t id;  // the sender's count of remote records, acknowledged with it
};
constexpr uint32_t kMaxRkey = 64 << 10;  // a packed rkey is a few hundred bytes per memory domain
// The active message that acknowledges a remote record: its header is the record's id.
constexpr unsigned kAckMessage = 0x52;
// How long a waiting thread sleeps at most before it progresses the worker again: while a send, a
// get or an acknowledgement is awaited, and otherwise. Without the bound, a transfer in both
// directions at once stalled for a whole idle sleep every few RMA segments, and a 256 MiB H2D copy
// streamed over UCX's TCP transport took about a second too long, with the worker's descriptor
// quiet: some completion (of a send queued behind full socket buffers, or of a message of an
// emulated RMA read) did not make UCX 1.13's descriptor readable. Why was not pinned down
// (transports/ucx/README.md). A connection with nothing in flight still sleeps kIdlePollMs.
constexpr int kBusyPollMs = 1;
constexpr int kIdlePollMs = 1000;
// The wire-up byte: a peer of another record format says another one and is refused.
constexpr uint8_t kHello = 'R';
// UCX's TCP segment size unless UCX_TCP_TX_SEG_SIZE / UCX_TCP_RX_SEG_SIZE say otherwise.
constexpr const char* kTcpSegment = "64k";

int fail(rgpu_ucx_message* why, int result, const char* format, ...) __attribute__((format(printf, 3, 4)));
int fail(rgpu_ucx_message* why, int result, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(why->text, sizeof why->text, format, args);
  va_end(args);
  return result;
}

// Reads or writes all of [data, data + n) on a blocking socket before `deadline`.
bool transfer_all(int fd, void* data, size_t n, bool writing, Clock::time_point deadline) {
  auto* p = static_cast<uint8_t*>(data);
  while (n > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd wait{fd, static_cast<short>(writing ? POLLOUT : POLLIN), 0};
    if (left <= 0 || ::poll(&wait, 1, static_cast<int>(left)) == 0) {
      errno = ETIMEDOUT;
      return false;
    }
    const ssize_t done = writing ? ::send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : ::recv(fd, p, n, MSG_DONTWAIT);
    if (done < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (done <= 0) {
      if (done == 0) errno = ECONNRESET;
      return false;
    }
    p += done;
    n -= static_cast<size_t>(done);
  }
  return true;
}

}  // namespace

struct rgpu_ucx_endpoint {
  int lifeline = -1;
  int spin_us = 0;
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  int worker_fd = -1;
  int wake_fd = -1;

  std::mutex ep_mu;  // held while posting on `ep` and while closing it: a closed one is null
  ucp_ep_h ep = nullptr;

  std::atomic<bool> shut_down{false};
  std::atomic<int> sleepers{0};
  std::atomic<int> busy_waits{0};  // threads waiting on a send, a get or an acknowledgement (kBusyPollMs)

  // What the lifeline said: the peer's count of bytes sent (its last word), or that it is gone.
  std::mutex lifeline_mu;
  uint8_t count_bytes[8] = {};
  size_t count_have = 0;
  std::atomic<bool> peer_gone{false};
  std::atomic<bool> peer_count_known{false};
  uint64_t peer_sent = 0;

  std::atomic<uint64_t> sent{0};      // bytes through the stream (records, not what was read by get)
  std::atomic<uint64_t> received{0};

  // The sending side (one sender at a time): segments of at least rma_min bytes go by RMA.
  size_t rma_min = 0;
  uint64_t remote_records = 0;
  std::atomic<uint64_t> acknowledged{0};  // the highest id the peer acknowledged
  struct Outgoing {
    RecordHead head{};
    RemoteRegion region{};
    ucp_mem_h memh = nullptr;
    void* rkey = nullptr;
    size_t rkey_size = 0;
  };
  std::vector<Outgoing> outgoing;  // reused from send to send: no allocation once grown
  std::vector<RecordHead> inline_heads;
  std::vector<iovec> send_iov;

  // The receiving side (one receiver at a time): the record being read.
  struct Incoming {
    uint32_t kind = 0;
    uint64_t left = 0;
    uint64_t address = 0;
    uint64_t id = 0;
    ucp_rkey_h rkey = nullptr;
  } incoming;
  std::vector<uint8_t> rkey_buffer;
  uint64_t ack_header = 0;  // the acknowledgement being sent (lives as long as its request)

  void wake() {
    const uint64_t one = 1;
    (void)!::write(wake_fd, &one, sizeof one);
  }

  // Progresses the worker; what it completed may be another thread's, which is woken if it sleeps.
  bool progress() {
    if (ucp_worker_progress(worker) == 0) return false;
    if (sleepers.load(std::memory_order_seq_cst) > 0) wake();
    return true;
  }

  // Reads whatever the lifeline holds, without waiting.
  void check_lifeline() {
    if (peer_gone.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(lifeline_mu);
    for (;;) {
      uint8_t scratch[16];
      const bool want_count = count_have < sizeof count_bytes;
      void* dst = want_count ? count_bytes + count_have : scratch;
      const size_t room = want_count ? sizeof count_bytes - count_have : sizeof scratch;
      const ssize_t got = ::recv(lifeline, dst, room, MSG_DONTWAIT);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (got > 0 && want_count) {
        count_have += static_cast<size_t>(got);
        if (count_have < sizeof count_bytes) continue;
        std::memcpy(&peer_sent, count_bytes, sizeof peer_sent);
        peer_count_known.store(true, std::memory_order_release);
      }
      // The count is the peer's last word: it has closed its end, whatever follows.
      peer_gone.store(true, std::memory_order_release);
      return;
    }
  }

  // Closes the endpoint at once: requests still posted on it complete (cancelled).
  void abort_endpoint() {
    std::lock_guard<std::mutex> lock(ep_mu);
    if (!ep) return;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    void* request = ucp_ep_close_nbx(ep, &param);
    ep = nullptr;
    if (UCS_PTR_IS_PTR(request)) {
      // A forced close completes at once; bounded all the same, as nothing here may hang.
      const auto deadline = Clock::now() + std::chrono::seconds(1);
      while (ucp_request_check_status(request) == UCS_INPROGRESS && Clock::now() < deadline) ucp_worker_progress(worker);
      ucp_request_free(request);
    }
  }

  // Whether a waiting receive has nothing more to wait for: the peer is gone and everything it sent
  // has been read (it said how much), or, when it died without a word, the worker stays idle.
  bool nothing_more_to_receive(int idle_rounds, Clock::time_point last_news) const {
    if (!peer_gone.load(std::memory_order_acquire)) return false;
    if (peer_count_known.load(std::memory_order_acquire) && Clock::now() - last_news < kLostBytesTimeout)
      return received.load(std::memory_order_acquire) >= peer_sent;
    return idle_rounds > kDrainRounds;
  }

  // Sleeps until the worker, the lifeline or another thread has news for this one.
  template <typename Finished>
  void sleep_until_news(Finished finished) {
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    // A worker is armed only once a progress has found nothing to do (ucp_worker_arm's contract):
    // events a progress left unhandled might wake no one. Drained first; what that completes may be
    // another sleeper's.
    bool progressed = false;
    while (!finished() && !shut_down.load(std::memory_order_acquire) && ucp_worker_progress(worker) != 0) progressed = true;
    if (progressed && sleepers.load(std::memory_order_seq_cst) > 1) wake();
    // Re-checked after announcing the sleep: a completion from here on writes the eventfd.
    if (!progressed && !finished() && !shut_down.load(std::memory_order_seq_cst) && ucp_worker_arm(worker) == UCS_OK) {
      pollfd fds[3] = {{worker_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}, {lifeline, POLLIN, 0}};
      // Once the peer is gone its lifeline reads end-of-file for ever: no use waiting on it.
      const nfds_t count = peer_gone.load(std::memory_order_acquire) ? 2 : 3;
      (void)::poll(fds, count, busy_waits.load(std::memory_order_acquire) > 0 ? kBusyPollMs : kIdlePollMs);
      if (fds[1].revents & POLLIN) {
        uint64_t drained;
        (void)!::read(wake_fd, &drained, sizeof drained);
      }
    }
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }

  // What a wait is for, which decides what a peer that has gone means to it.
  enum class Waiting {
    kSend,     // a send or a get: with the peer gone it cannot finish
    kReceive,  // a stream receive: bytes the peer sent before it went are still read
    kAck,      // the peer's acknowledgement of a remote record: one it sent may still be in flight
  };

  // Waits for `request` and returns its status, with the length a stream receive got.
  ucs_status_t wait(void* request, Waiting what, size_t* length) {
    return wait_until(what, [&] {
      return what == Waiting::kReceive ? ucp_stream_recv_request_test(request, length) : ucp_request_check_status(request);
    });
  }

  // The status of a send or a get just posted: its request waited for (counted busy, so sleeps
  // stay short) and freed, or UCX's immediate answer.
  ucs_status_t finish_posted(void* request) {
    if (!UCS_PTR_IS_PTR(request)) return UCS_PTR_STATUS(request);
    busy_waits.fetch_add(1, std::memory_order_acq_rel);
    const ucs_status_t st = wait(request, Waiting::kSend, nullptr);
    busy_waits.fetch_sub(1, std::memory_order_acq_rel);
    ucp_request_free(request);
    return st;
  }

  // Progresses and sleeps until status() is no longer UCS_INPROGRESS. A shutdown, or a peer gone
  // (once nothing more can come from it), closes the endpoint and, if that does not finish the
  // wait, gives up: UCS_ERR_CANCELED.
  template <typename Status>
  ucs_status_t wait_until(Waiting what, Status status) {
    int idle_rounds = 0;
    auto last_news = Clock::now();
    bool aborted = false;
    while (status() == UCS_INPROGRESS) {
      check_lifeline();
      if (aborted) {
        if (idle_rounds++ > kDrainRounds) return UCS_ERR_CANCELED;
        progress();
        continue;
      }
      const bool gone = peer_gone.load(std::memory_order_acquire);
      const bool peer_done = what == Waiting::kReceive ? nothing_more_to_receive(idle_rounds, last_news)
                             : what == Waiting::kAck   ? gone && idle_rounds > kDrainRounds
                                                       : gone;
      if (shut_down.load(std::memory_order_acquire) || peer_done) {
        abort_endpoint();
        aborted = true;
        idle_rounds = 0;
        continue;
      }
      if (progress()) {
        idle_rounds = 0;
        last_news = Clock::now();
        continue;
      }
      ++idle_rounds;
      if (gone) continue;  // draining what it sent: no sleep
      const auto spin_until = Clock::now() + std::chrono::microseconds(spin_us);
      while (status() == UCS_INPROGRESS && Clock::now() < spin_until && !progress()) {
      }
      if (Clock::now() >= spin_until) sleep_until_news([&] { return status() != UCS_INPROGRESS; });
    }
    return status();
  }

  // The result of a finished request, with why it failed.
  int result(ucs_status_t st, const char* what, rgpu_ucx_message* why) const {
    if (st == UCS_OK) return RGPU_UCX_OK;
    if (shut_down.load(std::memory_order_acquire)) return fail(why, RGPU_UCX_CLOSED, "%s: the connection was shut down", what);
    if (peer_gone.load(std::memory_order_acquire) || st == UCS_ERR_CANCELED || st == UCS_ERR_CONNECTION_RESET ||
        st == UCS_ERR_ENDPOINT_TIMEOUT || st == UCS_ERR_UNREACHABLE)
      return fail(why, RGPU_UCX_CLOSED, "%s: the peer closed the connection (%s)", what, ucs_status_string(st));
    return fail(why, RGPU_UCX_FAILED, "%s failed: %s", what, ucs_status_string(st));
  }
};

namespace {

void free_endpoint(rgpu_ucx_endpoint* endpoint) {
  if (endpoint->incoming.rkey) ucp_rkey_destroy(endpoint->incoming.rkey);
  if (endpoint->worker) ucp_worker_destroy(endpoint->worker);
  if (endpoint->context) ucp_cleanup(endpoint->context);
  if (endpoint->wake_fd >= 0) ::close(endpoint->wake_fd);
  delete endpoint;
}

// Returns a failed step's result.
#define RGPU_UCX_TRY(expr)                      \
  do {                                          \
    if (const int result_ = (expr)) return result_; \
  } while (0)

int send_address(rgpu_ucx_endpoint* endpoint, Clock::time_point deadline, rgpu_ucx_message* why) {
  ucp_address_t* address = nullptr;
  size_t length = 0;
  const ucs_status_t st = ucp_worker_get_address(endpoint->worker, &address, &length);
  if (st != UCS_OK) return fail(why, RGPU_UCX_FAILED, "ucp_worker_get_address: %s", ucs_status_string(st));
  uint32_t head[2] = {kAddressMagic, static_cast<uint32_t>(length)};
  const bool sent = transfer_all(endpoint->lifeline, head, sizeof head, true, deadline) &&
                    transfer_all(endpoint->lifeline, address, length, true, deadline);
  ucp_worker_release_address(endpoint->worker, address);
  if (!sent) return fail(why, RGPU_UCX_CLOSED, "sending the UCP worker address: %s", std::strerror(errno));
  return RGPU_UCX_OK;
}

int read_address(rgpu_ucx_endpoint* endpoint, Clock::time_point deadline, std::vector<uint8_t>& peer,
                 rgpu_ucx_message* why) {
  uint32_t head[2] = {};
  if (!transfer_all(endpoint->lifeline, head, sizeof head, false, deadline))
    return fail(why, RGPU_UCX_CLOSED, "reading the peer's UCP worker address: %s", std::strerror(errno));
  if (head[0] != kAddressMagic || head[1] == 0 || head[1] > kMaxAddress)
    return fail(why, RGPU_UCX_PROTOCOL, "the peer sent no UCP worker address (magic %#x, %u bytes)", head[0], head[1]);
  peer.resize(head[1]);
  if (!transfer_all(endpoint->lifeline, peer.data(), peer.size(), false, deadline))
    return fail(why, RGPU_UCX_CLOSED, "reading the peer's UCP worker address: %s", std::strerror(errno));
  return RGPU_UCX_OK;
}

// Sends this worker's address on the lifeline (the connecting side first) and reads the peer's.
int swap_addresses(rgpu_ucx_endpoint* endpoint, bool accepting, int timeout_ms, std::vector<uint8_t>& peer,
                   rgpu_ucx_message* why) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  if (!accepting) RGPU_UCX_TRY(send_address(endpoint, deadline, why));
  RGPU_UCX_TRY(read_address(endpoint, deadline, peer, why));
  if (accepting) RGPU_UCX_TRY(send_address(endpoint, deadline, why));
  return RGPU_UCX_OK;
}
// The peer's acknowledgement of a remote record, run by whichever thread progresses the worker
// (progress() then wakes a sender asleep on it).
ucs_status_t on_ack(void* arg, const void* header, size_t header_length, void*, size_t, const ucp_am_recv_param_t*) {
  auto* endpoint = static_cast<rgpu_ucx_endpoint*>(arg);
  uint64_t id = 0;
  if (header_length != sizeof id) return UCS_OK;  // no rgpu end sends it: the sender will time out on its peer
  std::memcpy(&id, header, sizeof id);
  uint64_t seen = endpoint->acknowledged.load(std::memory_order_acquire);
  while (id > seen && !endpoint->acknowledged.compare_exchange_weak(seen, id, std::memory_order_acq_rel)) {
  }
  return UCS_OK;
}

// Whether UCX_TLS lets UCX use its TCP transport: unset, "all", a list naming tcp, or "^..." (all
// but those named) not naming it.
bool tcp_allowed() {
  const char* tls = std::getenv("UCX_TLS");
  if (!tls || !*tls) return true;
  const bool names_tcp = std::strstr(tls, "tcp") != nullptr;
  if (tls[0] == '^') return !names_tcp;
  return names_tcp || std::strstr(tls, "all") != nullptr;
}

// UCX's own configuration (UCX_TLS, UCX_NET_DEVICES ...) picks the transports: with none set it
// takes the best it finds, InfiniBand/RoCE verbs (rc, ud, dc) where a device exists, else TCP and
// shared memory.
int make_worker(rgpu_ucx_endpoint* endpoint, rgpu_ucx_message* why) {
  ucp_config_t* config = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
  if (st != UCS_OK) return fail(why, RGPU_UCX_FAILED, "ucp_config_read: %s", ucs_status_string(st));
  // UCX's TCP transport moves an RMA read's reply in segments of its TX/RX size, 8 KiB by default,
  // at half the stream's rate here; at 64 KiB the two match (transports/ucx/README.md). Unless set.
  // (ucp_config_modify takes a transport's field by its name without the transport's prefix.)
  // Only where UCX_TLS lets TCP in: UCX warns of settings that no loaded transport takes.
  for (const char* name : {"TX_SEG_SIZE", "RX_SEG_SIZE"}) {
    if (!tcp_allowed()) break;
    char variable[64];
    std::snprintf(variable, sizeof variable, "UCX_TCP_%s", name);
    if (!std::getenv(variable)) (void)ucp_config_modify(config, name, kTcpSegment);
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
  // RMA for bulk segments, active messages for their acknowledgements.
  params.features = UCP_FEATURE_STREAM | UCP_FEATURE_WAKEUP | UCP_FEATURE_RMA | UCP_FEATURE_AM;
  params.mt_workers_shared = 1;  // the sender maps memory while the receiver unpacks rkeys
  st = ucp_init(&params, config, &endpoint->context);
  ucp_config_release(config);
  if (st != UCS_OK) return fail(why, RGPU_UCX_FAILED, "ucp_init: %s", ucs_status_string(st));
  ucp_worker_params_t worker_params{};
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_MULTI;  // a sender and a receiver thread share it
  st = ucp_worker_create(endpoint->context, &worker_params, &endpoint->worker);
  if (st != UCS_OK) return fail(why, RGPU_UCX_FAILED, "ucp_worker_create: %s", ucs_status_string(st));
  st = ucp_worker_get_efd(endpoint->worker, &endpoint->worker_fd);
  if (st != UCS_OK) return fail(why, RGPU_UCX_FAILED, "ucp_worker_get_efd: %s", ucs_status_string(st));
  endpoint->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (endpoint->wake_fd < 0) return fail(why, RGPU_UCX_FAILED, "eventfd: %s", std::strerror(errno));
  ucp_am_handler_param_t handler{};
  handler.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
  handler.id = kAckMessage;
  handler.cb = on_ack;
  handler.arg = endpoint;
  st = ucp_worker_set_am_recv_handler(endpoint->worker, &handler);
  if (st != UCS_OK) return fail(why, RGPU_UCX_FAILED, "ucp_worker_set_am_recv_handler: %s", ucs_status_string(st));
  return RGPU_UCX_OK;
}

// Finishes UCX's wire-up before the connection is used. UCP connects an endpoint in messages both
// workers must progress; a socket's peer needs no such thing to take a small send, and rgpu's ends do
// not always receive while the other sends (a client sends its first call and waits). So each end
// sends the other one byte over UCX and receives the other's, then says so on the lifeline and keeps
// progressing until the peer says the same.
int wire_up(rgpu_ucx_endpoint* endpoint, int timeout_ms, rgpu_ucx_message* why) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  uint8_t hello = kHello;
  uint8_t peer_hello = 0;
  size_t length = 0;
  ucp_request_param_t param{};
  void* sending = ucp_stream_send_nbx(endpoint->ep, &hello, 1, &param);
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_STREAM_RECV_FLAG_WAITALL;
  void* receiving = ucp_stream_recv_nbx(endpoint->ep, &peer_hello, 1, &length, &param);
  ucs_status_t sent = UCS_PTR_IS_ERR(sending) ? UCS_PTR_STATUS(sending) : UCS_OK;
  ucs_status_t received = UCS_PTR_IS_ERR(receiving) ? UCS_PTR_STATUS(receiving) : UCS_OK;
  while ((UCS_PTR_IS_PTR(sending) || UCS_PTR_IS_PTR(receiving)) && Clock::now() < deadline) {
    ucp_worker_progress(endpoint->worker);
    for (void** request : {&sending, &receiving}) {
      if (!UCS_PTR_IS_PTR(*request)) continue;
      const ucs_status_t st = ucp_request_check_status(*request);
      if (st == UCS_INPROGRESS) continue;
      (request == &sending ? sent : received) = st;
      ucp_request_free(*request);
      *request = nullptr;
    }
  }
  for (void* request : {sending, receiving})
    if (UCS_PTR_IS_PTR(request)) ucp_request_free(request);  // released when the abort completes it
  if (UCS_PTR_IS_PTR(sending) || UCS_PTR_IS_PTR(receiving))
    return fail(why, RGPU_UCX_CLOSED, "wire-up: the peer did not answer over UCX in time");
  if (sent != UCS_OK || received != UCS_OK)
    return fail(why, RGPU_UCX_FAILED, "wire-up over UCX failed: %s", ucs_status_string(sent != UCS_OK ? sent : received));
  if (peer_hello != kHello)
    return fail(why, RGPU_UCX_PROTOCOL, "the peer speaks another rgpu UCX protocol (wire-up byte %#x; another build?)",
                peer_hello);
  uint8_t ready = 'W';
  if (!transfer_all(endpoint->lifeline, &ready, 1, true, deadline))
    return fail(why, RGPU_UCX_CLOSED, "wire-up: %s", std::strerror(errno));
  for (;;) {
    while (ucp_worker_progress(endpoint->worker) != 0) {
    }
    pollfd wait{endpoint->lifeline, POLLIN, 0};
    if (::poll(&wait, 1, 1) == 1) break;
    if (Clock::now() >= deadline) return fail(why, RGPU_UCX_CLOSED, "wire-up: the peer did not finish in time");
  }
  if (!transfer_all(endpoint->lifeline, &ready, 1, false, deadline) || ready != 'W')
    return fail(why, RGPU_UCX_CLOSED, "wire-up: the peer went away");
  return RGPU_UCX_OK;
}

rgpu_ucx_endpoint* open_endpoint(int lifeline_fd, int accepting, int timeout_ms, int spin_us, size_t rma_min,
                                 rgpu_ucx_message* why) {
  auto* endpoint = new rgpu_ucx_endpoint;
  endpoint->lifeline = lifeline_fd;
  endpoint->spin_us = spin_us;
  endpoint->rma_min = rma_min;
  std::vector<uint8_t> peer;
  if (make_worker(endpoint, why) != RGPU_UCX_OK || swap_addresses(endpoint, accepting != 0, timeout_ms, peer, why) != RGPU_UCX_OK) {
    free_endpoint(endpoint);
    return nullptr;
  }
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  params.address = reinterpret_cast<const ucp_address_t*>(peer.data());
  // The lifeline, not UCX, tells when the peer goes: UCX 1.13's shared-memory transports have no
  // peer-failure handling, and asking for it (UCP_ERR_HANDLING_MODE_PEER) leaves them out.
  params.err_mode = UCP_ERR_HANDLING_MODE_NONE;
  const ucs_status_t st = ucp_ep_create(endpoint->worker, &params, &endpoint->ep);
  if (st != UCS_OK) {
    fail(why, RGPU_UCX_FAILED, "ucp_ep_create: %s", ucs_status_string(st));
    free_endpoint(endpoint);
    return nullptr;
  }
  if (wire_up(endpoint, timeout_ms, why) != RGPU_UCX_OK) {
    endpoint->abort_endpoint();
    free_endpoint(endpoint);
    return nullptr;
  }
  return endpoint;
}

// Sends `count` iovecs (`total` bytes) through the stream and waits until UCX no longer needs them.
int stream_send(rgpu_ucx_endpoint* endpoint, const iovec* iov, size_t count, uint64_t total, rgpu_ucx_message* why) {
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_iov();
  void* request;
  {
    std::lock_guard<std::mutex> lock(endpoint->ep_mu);
    if (!endpoint->ep) return fail(why, RGPU_UCX_CLOSED, "send: the connection is closed");
    request = ucp_stream_send_nbx(endpoint->ep, iov, count, &param);
  }
  const ucs_status_t st = endpoint->finish_posted(request);
  if (st == UCS_OK) endpoint->sent.fetch_add(total, std::memory_order_relaxed);
  return endpoint->result(st, "send", why);
}

// Maps `segment` for the peer to read and makes its remote record.
int map_segment(rgpu_ucx_endpoint* endpoint, const iovec& segment, rgpu_ucx_endpoint::Outgoing& out,
                rgpu_ucx_message* why) {
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  params.address = segment.iov_base;
  params.length = segment.iov_len;
  ucs_status_t st = ucp_mem_map(endpoint->context, &params, &out.memh);
  if (st != UCS_OK) {
    out.memh = nullptr;
    return fail(why, RGPU_UCX_FAILED, "ucp_mem_map of %zu bytes: %s", segment.iov_len, ucs_status_string(st));
  }
  st = ucp_rkey_pack(endpoint->context, out.memh, &out.rkey, &out.rkey_size);
  if (st != UCS_OK || out.rkey_size == 0 || out.rkey_size > kMaxRkey) {
    if (st == UCS_OK) ucp_rkey_buffer_release(out.rkey);
    out.rkey = nullptr;
    return fail(why, RGPU_UCX_FAILED, "ucp_rkey_pack: %s (%zu bytes)", ucs_status_string(st), out.rkey_size);
  }
  out.head = RecordHead{kRemote, static_cast<uint32_t>(out.rkey_size), segment.iov_len};
  out.region = RemoteRegion{reinterpret_cast<uintptr_t>(segment.iov_base), ++endpoint->remote_records};
  return RGPU_UCX_OK;
}

void release_outgoing(rgpu_ucx_endpoint* endpoint) {
  for (rgpu_ucx_endpoint::Outgoing& out : endpoint->outgoing) {
    if (out.rkey) ucp_rkey_buffer_release(out.rkey);
    if (out.memh) ucp_mem_unmap(endpoint->context, out.memh);
  }
  endpoint->outgoing.clear();
}

// The segments in order: runs of small ones as inline records, each of at least rma_min bytes as a
// remote record; returns once the peer has read the remote ones (their acknowledgements).
int send_segments(rgpu_ucx_endpoint* endpoint, const iovec* segments, size_t count, rgpu_ucx_message* why) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) total += segments[i].iov_len;
  if (total == 0) return RGPU_UCX_OK;
  if (endpoint->shut_down.load(std::memory_order_acquire)) return fail(why, RGPU_UCX_CLOSED, "send: the connection was shut down");
  endpoint->check_lifeline();
  if (endpoint->peer_gone.load(std::memory_order_acquire))
    return fail(why, RGPU_UCX_CLOSED, "send: the peer closed the connection");
  std::vector<iovec>& iov = endpoint->send_iov;
  iov.clear();
  iov.reserve(3 * count + 1);
  endpoint->inline_heads.clear();
  endpoint->inline_heads.reserve(count);  // pointers into both stay put: no growth below
  endpoint->outgoing.clear();
  endpoint->outgoing.reserve(count);
  uint64_t stream_bytes = 0;
  RecordHead* run = nullptr;  // the inline record being filled
  int result = RGPU_UCX_OK;
  for (size_t i = 0; i < count && result == RGPU_UCX_OK; ++i) {
    const iovec& segment = segments[i];
    if (segment.iov_len == 0) continue;
    if (endpoint->rma_min > 0 && segment.iov_len >= endpoint->rma_min) {
      run = nullptr;
      rgpu_ucx_endpoint::Outgoing& out = endpoint->outgoing.emplace_back();
      result = map_segment(endpoint, segment, out, why);
      if (result != RGPU_UCX_OK) break;
      iov.push_back(iovec{&out.head, sizeof out.head});
      iov.push_back(iovec{&out.region, sizeof out.region});
      iov.push_back(iovec{out.rkey, out.rkey_size});
      stream_bytes += sizeof out.head + sizeof out.region + out.rkey_size;
      continue;
    }
    if (!run) {
      run = &endpoint->inline_heads.emplace_back(RecordHead{kInline, 0, 0});
      iov.push_back(iovec{run, sizeof *run});
      stream_bytes += sizeof *run;
    }
    run->length += segment.iov_len;
    iov.push_back(segment);
    stream_bytes += segment.iov_len;
  }
  if (result == RGPU_UCX_OK) result = stream_send(endpoint, iov.data(), iov.size(), stream_bytes, why);
  if (result == RGPU_UCX_OK && !endpoint->outgoing.empty()) {
    const uint64_t last = endpoint->outgoing.back().region.id;
    endpoint->busy_waits.fetch_add(1, std::memory_order_acq_rel);
    const ucs_status_t st = endpoint->wait_until(rgpu_ucx_endpoint::Waiting::kAck, [&] {
      return endpoint->acknowledged.load(std::memory_order_acquire) >= last ? UCS_OK : UCS_INPROGRESS;
    });
    endpoint->busy_waits.fetch_sub(1, std::memory_order_acq_rel);
    result = endpoint->result(st, "send (the peer reading it by RMA)", why);
  }
  release_outgoing(endpoint);
  return result;
}

// Receives at most `capacity` bytes of the stream (all of them with `all`), counting them.
int stream_receive(rgpu_ucx_endpoint* endpoint, void* dst, size_t capacity, bool all, size_t* got,
                   rgpu_ucx_message* why) {
  ucp_request_param_t param{};
  if (all) {
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_STREAM_RECV_FLAG_WAITALL;
  }
  size_t length = 0;
  void* request;
  {
    std::lock_guard<std::mutex> lock(endpoint->ep_mu);
    if (!endpoint->ep) return fail(why, RGPU_UCX_CLOSED, "receive: the connection is closed");
    request = ucp_stream_recv_nbx(endpoint->ep, dst, capacity, &length, &param);
  }
  ucs_status_t st = UCS_PTR_STATUS(request);
  if (UCS_PTR_IS_PTR(request)) {
    st = endpoint->wait(request, rgpu_ucx_endpoint::Waiting::kReceive, &length);
    ucp_request_free(request);
  }
  if (st != UCS_OK) return endpoint->result(st, "receive", why);
  endpoint->received.fetch_add(length, std::memory_order_release);
  *got = length;
  return RGPU_UCX_OK;
}

int stream_receive_all(rgpu_ucx_endpoint* endpoint, void* dst, size_t n, rgpu_ucx_message* why) {
  for (size_t done = 0; done < n;) {
    size_t got = 0;
    RGPU_UCX_TRY(stream_receive(endpoint, static_cast<uint8_t*>(dst) + done, n - done, true, &got, why));
    done += got;
  }
  return RGPU_UCX_OK;
}

// Reads the next record's head (and a remote one's region and rkey).
int next_record(rgpu_ucx_endpoint* endpoint, rgpu_ucx_message* why) {
  rgpu_ucx_endpoint::Incoming& in = endpoint->incoming;
  RecordHead head{};
  RGPU_UCX_TRY(stream_receive_all(endpoint, &head, sizeof head, why));
  if (head.kind == kInline && head.length > 0 && head.rkey_length == 0) {
    in.kind = kInline;
    in.left = head.length;
    return RGPU_UCX_OK;
  }
  if (head.kind != kRemote || head.length == 0 || head.rkey_length == 0 || head.rkey_length > kMaxRkey)
    return fail(why, RGPU_UCX_PROTOCOL, "the peer sent no rgpu UCX record (kind %#x, %llu bytes, rkey of %u)", head.kind,
                static_cast<unsigned long long>(head.length), head.rkey_length);
  RemoteRegion region{};
  RGPU_UCX_TRY(stream_receive_all(endpoint, &region, sizeof region, why));
  endpoint->rkey_buffer.resize(head.rkey_length);
  RGPU_UCX_TRY(stream_receive_all(endpoint, endpoint->rkey_buffer.data(), head.rkey_length, why));
  ucs_status_t st;
  {
    std::lock_guard<std::mutex> lock(endpoint->ep_mu);
    if (!endpoint->ep) return fail(why, RGPU_UCX_CLOSED, "receive: the connection is closed");
    st = ucp_ep_rkey_unpack(endpoint->ep, endpoint->rkey_buffer.data(), &in.rkey);
  }
  if (st != UCS_OK) {
    in.rkey = nullptr;
    return fail(why, RGPU_UCX_PROTOCOL, "the peer's rkey does not unpack: %s", ucs_status_string(st));
  }
  in.kind = kRemote;
  in.left = head.length;
  in.address = region.address;
  in.id = region.id;
  return RGPU_UCX_OK;
}

// Reads `n` bytes of the current remote record into `dst` by get.
int read_remote(rgpu_ucx_endpoint* endpoint, void* dst, size_t n, rgpu_ucx_message* why) {
  rgpu_ucx_endpoint::Incoming& in = endpoint->incoming;
  ucp_request_param_t param{};
  void* request;
  {
    std::lock_guard<std::mutex> lock(endpoint->ep_mu);
    if (!endpoint->ep) return fail(why, RGPU_UCX_CLOSED, "receive: the connection is closed");
    request = ucp_get_nbx(endpoint->ep, dst, n, in.address, in.rkey, &param);
  }
  return endpoint->result(endpoint->finish_posted(request), "RMA read", why);
}

// Tells the peer it may reuse the memory of remote record `id`.
int acknowledge(rgpu_ucx_endpoint* endpoint, uint64_t id, rgpu_ucx_message* why) {
  endpoint->ack_header = id;
  ucp_request_param_t param{};
  void* request;
  {
    std::lock_guard<std::mutex> lock(endpoint->ep_mu);
    if (!endpoint->ep) return fail(why, RGPU_UCX_CLOSED, "receive: the connection is closed");
    request = ucp_am_send_nbx(endpoint->ep, kAckMessage, &endpoint->ack_header, sizeof endpoint->ack_header, nullptr, 0,
                              &param);
  }
  ucs_status_t st = UCS_PTR_STATUS(request);
  if (UCS_PTR_IS_PTR(request)) {
    st = endpoint->wait(request, rgpu_ucx_endpoint::Waiting::kSend, nullptr);
    ucp_request_free(request);
  }
  return endpoint->result(st, "acknowledging an RMA read", why);
}

int receive_some(rgpu_ucx_endpoint* endpoint, void* dst, size_t capacity, size_t* got, rgpu_ucx_message* why) {
  *got = 0;
  if (endpoint->shut_down.load(std::memory_order_acquire))
    return fail(why, RGPU_UCX_CLOSED, "receive: the connection was shut down");
  endpoint->check_lifeline();
  if (endpoint->nothing_more_to_receive(0, Clock::now())) return fail(why, RGPU_UCX_CLOSED, "receive: the peer closed the connection");
  if (capacity == 0) return RGPU_UCX_OK;
  rgpu_ucx_endpoint::Incoming& in = endpoint->incoming;
  if (in.left == 0) RGPU_UCX_TRY(next_record(endpoint, why));
  const size_t want = static_cast<size_t>(std::min<uint64_t>(capacity, in.left));
  if (in.kind == kInline) {
    RGPU_UCX_TRY(stream_receive(endpoint, dst, want, false, got, why));
    in.left -= *got;
    return RGPU_UCX_OK;
  }
  RGPU_UCX_TRY(read_remote(endpoint, dst, want, why));
  in.address += want;
  in.left -= want;
  *got = want;
  if (in.left > 0) return RGPU_UCX_OK;
  ucp_rkey_destroy(in.rkey);
  in.rkey = nullptr;
  return acknowledge(endpoint, in.id, why);
}

void shutdown_endpoint(rgpu_ucx_endpoint* endpoint) {
  endpoint->shut_down.store(true, std::memory_order_seq_cst);
  endpoint->wake();
}

// How long a closing end waits for its last sends to leave. UCP's flush over TCP completes only once
// the peer's worker has progressed; an rgpu peer always has a thread receiving, so this bound is
// reached only by a peer that stopped reading (and by tests that close both ends in one thread).
constexpr std::chrono::milliseconds kFlushTimeout{250};

void close_endpoint(rgpu_ucx_endpoint* endpoint) {
  endpoint->check_lifeline();
  const bool healthy = !endpoint->shut_down.load() && !endpoint->peer_gone.load() && endpoint->ep;
  if (healthy) {
    // Flushed: every byte sent is with the peer's transport before the peer hears the count.
    ucp_request_param_t param{};
    void* request = ucp_ep_close_nbx(endpoint->ep, &param);
    endpoint->ep = nullptr;
    const auto deadline = Clock::now() + kFlushTimeout;
    if (UCS_PTR_IS_PTR(request)) {
      while (ucp_request_check_status(request) == UCS_INPROGRESS && Clock::now() < deadline &&
             !endpoint->peer_gone.load(std::memory_order_acquire)) {
        ucp_worker_progress(endpoint->worker);
        endpoint->check_lifeline();
      }
      ucp_request_free(request);
    }
    const uint64_t count = endpoint->sent.load();
    (void)!::send(endpoint->lifeline, &count, sizeof count, MSG_NOSIGNAL | MSG_DONTWAIT);
  } else {
    endpoint->abort_endpoint();
  }
  free_endpoint(endpoint);
}

const rgpu_ucx_ops kOps = {RGPU_UCX_PLUGIN_ABI, open_endpoint, send_segments, receive_some, shutdown_endpoint,
                           close_endpoint};

}  // namespace

extern "C" __attribute__((visibility("default"))) const rgpu_ucx_ops* rgpu_ucx_plugin(void) { return &kOps; }
