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

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
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

  // What the lifeline said: the peer's count of bytes sent (its last word), or that it is gone.
  std::mutex lifeline_mu;
  uint8_t count_bytes[8] = {};
  size_t count_have = 0;
  std::atomic<bool> peer_gone{false};
  std::atomic<bool> peer_count_known{false};
  uint64_t peer_sent = 0;

  std::atomic<uint64_t> sent{0};
  std::atomic<uint64_t> received{0};

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
    // Re-checked after announcing the sleep: a completion from here on writes the eventfd.
    if (!finished() && !shut_down.load(std::memory_order_seq_cst) && ucp_worker_arm(worker) == UCS_OK) {
      pollfd fds[3] = {{worker_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}, {lifeline, POLLIN, 0}};
      // Once the peer is gone its lifeline reads end-of-file for ever: no use waiting on it.
      const nfds_t count = peer_gone.load(std::memory_order_acquire) ? 2 : 3;
      (void)::poll(fds, count, 1000);
      if (fds[1].revents & POLLIN) {
        uint64_t drained;
        (void)!::read(wake_fd, &drained, sizeof drained);
      }
    }
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }

  // Waits for `request` (a receive's when `receiving`) and returns its status, with the length a
  // receive got. A shutdown, or a peer gone (for a receive: once nothing more can come), closes the
  // endpoint and, if that does not finish the request, gives up on it: UCS_ERR_CANCELED.
  ucs_status_t wait(void* request, bool receiving, size_t* length) {
    auto status = [&] {
      return receiving ? ucp_stream_recv_request_test(request, length) : ucp_request_check_status(request);
    };
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
      const bool peer_done =
          receiving ? nothing_more_to_receive(idle_rounds, last_news) : peer_gone.load(std::memory_order_acquire);
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
      if (peer_gone.load(std::memory_order_acquire)) continue;  // draining what it sent: no sleep
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
// UCX's own configuration (UCX_TLS, UCX_NET_DEVICES ...) picks the transports: with none set it
// takes the best it finds, InfiniBand/RoCE verbs (rc, ud, dc) where a device exists, else TCP and
// shared memory.
int make_worker(rgpu_ucx_endpoint* endpoint, rgpu_ucx_message* why) {
  ucp_config_t* config = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
  if (st != UCS_OK) return fail(why, RGPU_UCX_FAILED, "ucp_config_read: %s", ucs_status_string(st));
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_STREAM | UCP_FEATURE_WAKEUP;
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
  return RGPU_UCX_OK;
}

// Finishes UCX's wire-up before the connection is used. UCP connects an endpoint in messages both
// workers must progress; a socket's peer needs no such thing to take a small send, and rgpu's ends do
// not always receive while the other sends (a client sends its first call and waits). So each end
// sends the other one byte over UCX and receives the other's, then says so on the lifeline and keeps
// progressing until the peer says the same.
int wire_up(rgpu_ucx_endpoint* endpoint, int timeout_ms, rgpu_ucx_message* why) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  uint8_t hello = 'H';
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
  if (sent != UCS_OK || received != UCS_OK || peer_hello != 'H')
    return fail(why, RGPU_UCX_FAILED, "wire-up over UCX failed: %s", ucs_status_string(sent != UCS_OK ? sent : received));
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

rgpu_ucx_endpoint* open_endpoint(int lifeline_fd, int accepting, int timeout_ms, int spin_us, rgpu_ucx_message* why) {
  auto* endpoint = new rgpu_ucx_endpoint;
  endpoint->lifeline = lifeline_fd;
  endpoint->spin_us = spin_us;
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

int send_segments(rgpu_ucx_endpoint* endpoint, const iovec* segments, size_t count, rgpu_ucx_message* why) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) total += segments[i].iov_len;
  if (total == 0) return RGPU_UCX_OK;
  if (endpoint->shut_down.load(std::memory_order_acquire)) return fail(why, RGPU_UCX_CLOSED, "send: the connection was shut down");
  endpoint->check_lifeline();
  if (endpoint->peer_gone.load(std::memory_order_acquire))
    return fail(why, RGPU_UCX_CLOSED, "send: the peer closed the connection");
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_iov();
  void* request;
  {
    std::lock_guard<std::mutex> lock(endpoint->ep_mu);
    if (!endpoint->ep) return fail(why, RGPU_UCX_CLOSED, "send: the connection is closed");
    request = ucp_stream_send_nbx(endpoint->ep, segments, count, &param);
  }
  ucs_status_t st = UCS_PTR_STATUS(request);
  if (UCS_PTR_IS_PTR(request)) {
    st = endpoint->wait(request, /*receiving=*/false, nullptr);
    ucp_request_free(request);
  }
  if (st == UCS_OK) endpoint->sent.fetch_add(total, std::memory_order_relaxed);
  return endpoint->result(st, "send", why);
}

int receive_some(rgpu_ucx_endpoint* endpoint, void* dst, size_t capacity, size_t* got, rgpu_ucx_message* why) {
  *got = 0;
  if (endpoint->shut_down.load(std::memory_order_acquire))
    return fail(why, RGPU_UCX_CLOSED, "receive: the connection was shut down");
  endpoint->check_lifeline();
  if (endpoint->nothing_more_to_receive(0, Clock::now())) return fail(why, RGPU_UCX_CLOSED, "receive: the peer closed the connection");
  ucp_request_param_t param{};
  size_t length = 0;
  void* request;
  {
    std::lock_guard<std::mutex> lock(endpoint->ep_mu);
    if (!endpoint->ep) return fail(why, RGPU_UCX_CLOSED, "receive: the connection is closed");
    request = ucp_stream_recv_nbx(endpoint->ep, dst, capacity, &length, &param);
  }
  ucs_status_t st = UCS_PTR_STATUS(request);
  if (UCS_PTR_IS_PTR(request)) {
    st = endpoint->wait(request, /*receiving=*/true, &length);
    ucp_request_free(request);
  }
  if (st != UCS_OK) return endpoint->result(st, "receive", why);
  endpoint->received.fetch_add(length, std::memory_order_release);
  *got = length;
  return RGPU_UCX_OK;
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
