// The server's handshakes in one event loop (see handshake_server.h).
#include "transports/handshake_server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netinet/in.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <list>
#include <unordered_map>
#include <vector>

#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/log_event.h"
#include "transports/stream_connection.h"
#include "transports/tls/tls_context.h"

namespace rgpu::transport {

namespace asio = boost::asio;
using boost::system::error_code;
using Socket = asio::generic::stream_protocol::socket;
using Acceptor = asio::basic_socket_acceptor<asio::generic::stream_protocol>;

namespace {

// How long a failed accept (no descriptor left) waits before the next try, and how often the log
// says how many connections ended without authenticating (the first of a quiet spell at once).
constexpr std::chrono::milliseconds kAcceptRetry{100};
constexpr std::chrono::seconds kSummaryEvery{10};

}  // namespace

class HandshakeServer::Impl {
 public:
  Impl(std::span<const Listener* const> listeners, ServerIdentity identity, Limits limits,
       OnAuthenticated on_authenticated)
      : identity_(std::move(identity)), limits_(limits), on_authenticated_(std::move(on_authenticated)) {
    for (const Listener* listener : listeners) {
      // The loop's own descriptor of the listening socket, so its non-blocking mode and its
      // registration stay with this loop.
      const int fd = ::fcntl(listener->native_handle(), F_DUPFD_CLOEXEC, 3);
      const int family = fd >= 0 ? socket_family(fd) : -1;
      error_code ec;
      auto& port = ports_.emplace_back(context_);
      if (family >= 0)
        port.acceptor.assign(asio::generic::stream_protocol(family, family == AF_UNIX ? 0 : IPPROTO_TCP), fd, ec);
      if (family < 0 || ec)
        RGPU_LOG_ERROR("handshakes: cannot take the listening socket of %s (%s)", listener->address().c_str(),
                       family < 0 ? std::strerror(errno) : ec.message().c_str());
    }
  }

  void run() {
    for (Port& port : ports_) accept(port);
    context_.run();
  }
  void stop() { context_.stop(); }
  void post(std::function<void()> task) { asio::post(context_, std::move(task)); }
  void set_tokens(std::vector<std::string> tokens) { identity_.tokens = std::move(tokens); }

  Counts counts() const {
    return {authenticated_.load(), refused_.load(), left_.load(), timed_out_.load(), dropped_.load(), pending_count_.load()};
  }

 private:
  struct Pending {
    Pending(asio::io_context& context, Socket s, const ServerIdentity& identity)
        : socket(std::move(s)), deadline(context), handshake(identity) {}
    Socket socket;
    asio::steady_timer deadline;
    ServerHandshake handshake;
    wire::FrameHeader header{};
    std::vector<uint8_t> payload, reply;
    tls::SslPtr ssl;      // set once the peer's first byte asked for TLS
    AcceptedPeer who;    // who is there, as the kernel says; who.origin is what the per-address bound counts
    bool heard = false;  // its first byte has arrived
    std::string peer;    // who.text, "tls ..." once TLS starts, for log lines
    std::list<std::shared_ptr<Pending>>::iterator place;
    bool done = false;
  };
  using PendingPtr = std::shared_ptr<Pending>;

  // A listening socket with its loop's acceptor and its retry timer.
  struct Port {
    explicit Port(asio::io_context& context) : acceptor(context), retry(context) {}
    Acceptor acceptor;
    asio::steady_timer retry;
  };

  void accept(Port& port) {
    port.acceptor.async_accept([this, &port](const error_code& ec, Socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        RGPU_LOG_WARN("handshakes: accept failed (%s); trying again in %lld ms", ec.message().c_str(),
                      static_cast<long long>(kAcceptRetry.count()));
        port.retry.expires_after(kAcceptRetry);
        port.retry.async_wait([this, &port](const error_code& e) {
          if (!e) accept(port);
        });
        return;
      }
      start(std::move(socket));
      accept(port);
    });
  }

  void start(Socket socket) {
    Result<AcceptedPeer> who = accepted_peer(socket.native_handle());
    if (!who.is_ok() || !set_close_on_exec(socket.native_handle()).is_ok()) return;  // gone already
    auto p = std::make_shared<Pending>(context_, std::move(socket), identity_);
    p->who = std::move(*who);
    p->peer = p->who.text;
    make_room(p->who.origin);
    p->place = pending_.insert(pending_.end(), p);
    ++per_address_[p->who.origin];
    ++pending_count_;
    p->deadline.expires_after(limits_.timeout);
    p->deadline.async_wait([this, p](const error_code& e) {
      if (e || p->done) return;
      ++timed_out_;
      unauthenticated(p->peer, "sent no complete handshake within " + std::to_string(limits_.timeout.count()) + " ms");
      finish(p);
    });
    choose_tls(p);
  }

  // The first byte says whether the peer speaks TLS; it stays in the socket for whoever reads on.
  void choose_tls(const PendingPtr& p) {
    p->socket.async_wait(asio::socket_base::wait_read, [this, p](const error_code& ec) {
      if (p->done) return;
      if (ec) return closed(p, ec.message());
      uint8_t first = 0;
      const ssize_t n = ::recv(p->socket.native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
      if (n == 0) return closed(p, "end of file");
      if (n < 0) return errno == EAGAIN || errno == EINTR ? choose_tls(p) : closed(p, std::strerror(errno));
      p->heard = true;
      if (first == tls::kHandshakeRecord && p->who.unix_socket)
        return refuse(p, RGPU_ERROR(kAuth, "a Unix socket carries no TLS: nothing on it leaves this host"));
      if (first == tls::kHandshakeRecord) return start_tls(p);
      if (!p->who.unix_socket && !tls::plaintext_allowed(limits_.tls, p->who.local))
        return refuse(p, RGPU_ERROR(kAuth, limits_.tls == tls::Mode::kOn
                                               ? "this rgpud takes TLS only (--tls on): connect with RGPU_TLS=on"
                                               : "this rgpud takes plain TCP only from its own host: connect with TLS "
                                                 "(unset RGPU_TLS=off), or run rgpud with --tls off"));
      read_header(p);
    });
  }

  void start_tls(const PendingPtr& p) {
    error_code ec;
    p->socket.native_non_blocking(true, ec);
    Result<tls::SslPtr> ssl = ec ? Result<tls::SslPtr>(RGPU_ERROR(kIo, ec.message()))
                                 : tls::new_session(true, p->socket.native_handle());
    if (!ssl.is_ok()) return closed(p, ssl.status().message());
    p->ssl = std::move(*ssl);
    p->peer.replace(0, 3, "tls");
    tls_step(p, [p] { return SSL_do_handshake(p->ssl.get()); }, [this, p] {
      Result<tls::Binding> binding = tls::channel_binding(p->ssl.get());
      if (!binding.is_ok()) return closed(p, binding.status().message());
      p->handshake.bind_to_channel(*binding);
      read_header(p);
    });
  }

  // Runs one OpenSSL call on p's session until it succeeds, waiting for the socket as it asks, then
  // `then`; a TLS failure ends the handshake.
  void tls_step(const PendingPtr& p, std::function<int()> op, std::function<void()> then) {
    ERR_clear_error();
    const int r = op();
    if (r == 1) return then();
    const int err = SSL_get_error(p->ssl.get(), r);
    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)
      return closed(p, tls::error_text(err == SSL_ERROR_SSL ? "TLS failed" : "TLS connection lost"));
    const auto wait = err == SSL_ERROR_WANT_READ ? asio::socket_base::wait_read : asio::socket_base::wait_write;
    p->socket.async_wait(wait, [this, p, op = std::move(op), then = std::move(then)](const error_code& ec) mutable {
      if (p->done) return;
      if (ec) return closed(p, ec.message());
      tls_step(p, std::move(op), std::move(then));
    });
  }

  // Reads n bytes into `into`, through TLS where the peer speaks it, then `then`.
  void read(const PendingPtr& p, uint8_t* into, size_t n, std::function<void()> then) {
    if (!p->ssl) {
      asio::async_read(p->socket, asio::buffer(into, n), [this, p, then = std::move(then)](const error_code& ec, size_t) {
        if (p->done) return;
        if (ec) return closed(p, ec.message());
        then();
      });
      return;
    }
    if (n == 0) return then();
    auto got = std::make_shared<size_t>(0);
    tls_step(p, [p, into, n, got] { return SSL_read_ex(p->ssl.get(), into, n, got.get()); },
             [this, p, into, n, got, then = std::move(then)]() mutable {
               read(p, into + *got, n - *got, std::move(then));
             });
  }

  // Writes p->reply, then `then` (with whether it all went).
  void write(const PendingPtr& p, std::function<void(bool)> then) {
    if (!p->ssl) {
      asio::async_write(p->socket, asio::buffer(p->reply), [p, then = std::move(then)](const error_code& ec, size_t) {
        if (!p->done) then(!ec);
      });
      return;
    }
    auto written = std::make_shared<size_t>(0);
    tls_step(p, [p, written] { return SSL_write_ex(p->ssl.get(), p->reply.data(), p->reply.size(), written.get()); },
             [then] { then(true); });
  }

  void read_header(const PendingPtr& p) {
    read(p, reinterpret_cast<uint8_t*>(&p->header), sizeof p->header, [this, p] {
      Status st = p->handshake.check_header(p->header);
      if (!st.is_ok()) return refuse(p, st);
      p->payload.resize(p->header.payload_len);
      read(p, p->payload.data(), p->payload.size(), [this, p] {
        Status taken = p->handshake.take(p->payload, p->reply);
        if (!taken.is_ok()) return refuse(p, taken);
        if (p->handshake.step() == ServerHandshake::Step::kDone) return authenticated(p);
        write(p, [this, p](bool sent) {
          if (!sent) return closed(p, "the Challenge could not be sent");
          read_header(p);
        });
      });
    });
  }

  // The peer left (or broke the connection) mid-handshake.
  void closed(const PendingPtr& p, const std::string& why) {
    ++left_;
    unauthenticated(p->peer, "left before authenticating (" + why + ")");
    finish(p);
  }

  // Tells the peer why, then closes; the deadline still bounds the write.
  void refuse(const PendingPtr& p, const Status& why) {
    ++refused_;
    const std::string reason = why.message().substr(0, why.message().find('\n'));
    unauthenticated(p->peer, "refused: " + reason);
    p->reply = refused_frame(reason);
    write(p, [this, p](bool) { finish(p); });
  }

  void authenticated(const PendingPtr& p) {
    ++authenticated_;
    // The client sends nothing more before its Welcome, so nothing of its may wait in OpenSSL's
    // buffers: the worker's session starts where this one stopped.
    if (p->ssl && SSL_has_pending(p->ssl.get()))
      return refuse(p, RGPU_ERROR(kProtocol, "the client sent more than its Proof before its Welcome"));
    error_code ec;
    const int fd = p->socket.release(ec);
    // A plain connection's worker reads with blocking calls; this loop's made it non-blocking.
    if (fd >= 0) (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    ClientIdentity client = p->handshake.client();
    // Over a Unix socket the kernel names the client process; its own claim counts for nothing.
    if (p->who.pid != 0) client.pid = p->who.pid;
    const std::string peer = p->peer;
    AcceptedConnection accepted(fd, std::move(p->ssl));
    finish(p);
    if (fd < 0) {
      RGPU_LOG_WARN("handshakes: cannot hand over %s's connection: %s", peer.c_str(), ec.message().c_str());
      return;
    }
    on_authenticated_(std::move(accepted), client, peer);
  }

  void finish(const PendingPtr& p) {
    if (p->done) return;
    p->done = true;
    pending_.erase(p->place);
    if (--per_address_[p->who.origin] == 0) per_address_.erase(p->who.origin);
    --pending_count_;
    p->deadline.cancel();
    error_code ignored;
    p->socket.close(ignored);
  }

  // Drops pending handshakes until one more from `address` is within both bounds.
  void make_room(const std::string& address) {
    for (auto it = per_address_.find(address); it != per_address_.end() && it->second >= limits_.per_address;
         it = per_address_.find(address))
      drop_oldest(&address);
    while (pending_.size() >= limits_.total) drop_oldest(nullptr);
  }

  // The oldest pending handshake (of `address`, if given) that has sent nothing, else the oldest of
  // all. What the peer sent counts from when it reached the socket, not from when this loop read it:
  // under a flood the loop accepts many connections between the steps of one handshake.
  void drop_oldest(const std::string* address) {
    PendingPtr victim;
    for (const PendingPtr& p : pending_) {
      if (address && p->who.origin != *address) continue;
      if (!victim) victim = p;
      if (silent(*p)) {
        victim = p;
        break;
      }
    }
    if (!victim) return;
    ++dropped_;
    unauthenticated(victim->peer, std::string("dropped: ") + (address ? "its address has " : "rgpud has ") +
                                      std::to_string(address ? limits_.per_address : limits_.total) +
                                      " handshakes pending, the most it keeps");
    finish(victim);
  }

  // Whether the peer has sent nothing yet (one ioctl, made only when a bound is reached).
  static bool silent(Pending& p) {
    if (p.heard) return false;
    error_code ec;
    const size_t waiting = p.socket.available(ec);
    return ec || waiting == 0;  // a broken connection is as good as silent
  }

  // One log line per connection would let a flood fill the log: the first of a quiet spell is
  // logged whole, the rest are counted and summed up every kSummaryEvery.
  void unauthenticated(const std::string& peer, const std::string& what) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_logged_ >= kSummaryEvery) {
      if (unlogged_ > 0)
        log_event(LogLevel::kWarn, "handshakes_unlogged", 0, {{"connections", unlogged_}},
                  "%zu more connection(s) ended without authenticating", unlogged_);
      log_event(LogLevel::kWarn, "handshake_failed", 0, {{"peer", peer}, {"reason", what}}, "connection from %s %s",
                peer.c_str(), what.c_str());
      last_logged_ = now;
      unlogged_ = 0;
    } else {
      ++unlogged_;
    }
  }

  ServerIdentity identity_;  // its tokens change only on the loop's thread (set_tokens)
  const Limits limits_;
  const OnAuthenticated on_authenticated_;
  asio::io_context context_;
  std::list<Port> ports_;  // a list: accept handlers hold references to its elements
  std::list<PendingPtr> pending_;  // oldest first
  std::unordered_map<std::string, size_t> per_address_;
  std::atomic<size_t> authenticated_{0}, refused_{0}, left_{0}, timed_out_{0}, dropped_{0}, pending_count_{0};
  std::chrono::steady_clock::time_point last_logged_{};
  size_t unlogged_ = 0;
};

HandshakeServer::HandshakeServer(std::span<const Listener* const> listeners, ServerIdentity identity, Limits limits,
                                 OnAuthenticated on_authenticated)
    : impl_(std::make_unique<Impl>(listeners, std::move(identity), limits, std::move(on_authenticated))) {}
HandshakeServer::HandshakeServer(const Listener& listener, ServerIdentity identity, Limits limits,
                                 OnAuthenticated on_authenticated)
    : HandshakeServer(std::span<const Listener* const>(std::array{&listener}), std::move(identity), limits,
                      std::move(on_authenticated)) {}
HandshakeServer::~HandshakeServer() = default;
void HandshakeServer::run() { impl_->run(); }
void HandshakeServer::stop() { impl_->stop(); }
HandshakeServer::Counts HandshakeServer::counts() const { return impl_->counts(); }
void HandshakeServer::post(std::function<void()> task) { impl_->post(std::move(task)); }
void HandshakeServer::set_tokens(std::vector<std::string> tokens) { impl_->set_tokens(std::move(tokens)); }

}  // namespace rgpu::transport
