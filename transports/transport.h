// The transport interface: a reliable, ordered byte connection that moves frames
// (header + payload + bulk segments) with gather writes, and receives into caller-chosen memory so
// bulk data lands where it belongs without an extra copy.
//
// Each family lives in its own folder (tcp/, unix/, later shm/ and rdma/) and registers one line in
// transport.cpp. Addresses are "host:port" (TCP), "unix:PATH" (a Unix socket file) or
// "scheme://..." for other families.
//
// Threading: one thread may send while another receives. Concurrent senders must serialise
// themselves (the client's call pipe and the server's reply path each hold one send lock).
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "common/status.h"
#include "common/wire/frame.h"
#include "transports/tls/tls_session.h"

namespace rgpu::transport {

struct PeerSilence {
  std::chrono::milliseconds since_data{0};          // since the peer's last bytes arrived
  std::chrono::milliseconds unacknowledged_for{0};  // since its last acknowledgement, while ours wait for one (else 0)
};

class Connection {
 public:
  virtual ~Connection() = default;

  // Writes the segments in order, as one gather write where the family can.
  virtual Status send_bytes(std::span<const iovec> segments) = 0;
  // Reads exactly n bytes into dst (a frame header, a payload or bulk data).
  virtual Status recv_exact(void* dst, size_t n) = 0;
  // Reads and discards n bytes (bulk nobody wants, e.g. after an error).
  virtual Status skip(uint64_t n) = 0;
  // Wakes a blocked recv_exact with kClosed; both directions stop.
  virtual void shutdown() = 0;
  // For log lines: "tcp 127.0.0.1:51234", "unix pid=4242 uid=1000 gid=1000".
  virtual std::string peer() const = 0;
  // Whether a receive would find bytes now (read ahead, or waiting in the socket).
  virtual bool input_pending() { return false; }
  // Waits up to `timeout` for bytes to receive (or for the connection's end): true when a receive
  // would not block now. By default a poll of descriptor(); true at once where there is none.
  virtual bool wait_input(std::chrono::milliseconds timeout);
  // The OS descriptor, for handing the connection to another process; -1 where there is none.
  virtual int descriptor() const { return -1; }
  // Descriptors carried by the connection itself (Unix sockets, SCM_RIGHTS). send_bytes that also
  // hands the peer a duplicate of `fd` (the caller keeps its own): the peer has it among those of
  // take_descriptor() once it has read these bytes. kNotSupported where the family carries none.
  virtual Status send_bytes_with_descriptor(std::span<const iovec> segments, int fd);
  // The oldest descriptor that came with the bytes read so far, or -1; the caller owns it.
  virtual int take_descriptor() { return -1; }
  // How long the peer has been silent, as the kernel saw it (liveness.h); empty where the family
  // cannot tell.
  virtual std::optional<PeerSilence> peer_silence() const { return std::nullopt; }
  // A hint from the reader's owner: while *nonzero is not 0, a receive that finds nothing keeps
  // polling rather than sleeping, because a caller is polling for the reply it will bring (a sleep
  // would add a wake-up to that caller's wait). Families whose receives sleep in the kernel ignore it.
  virtual void spin_while(const std::atomic<uint32_t>* nonzero) { (void)nonzero; }
  // Whether a send costs about a copy of its bytes, no system call while the peer is awake (shared
  // memory): a sender then writes its frames itself rather than hand them to a writer thread, whose
  // wake-up would be the dearest part of the send (client/runtime/outbox.h).
  virtual bool sends_are_copies() const { return false; }
  // While `on`, what later sends write may wait in the connection until it is switched off, so
  // that frames sent one after another leave together (TCP: TCP_CORK; over loopback each segment
  // is a pass through the network stack on the sender's thread). Families that send no segments
  // ignore it.
  virtual void hold_sends(bool on) { (void)on; }
  // For an encrypted connection, bytes only its two ends share (tls_session.h), which the
  // handshake's proofs cover; empty for one that is not.
  virtual std::span<const uint8_t> channel_binding() const { return {}; }
  bool encrypted() const { return !channel_binding().empty(); }

  // Writes header, payload and bulk segments as one frame. The header's lengths must match.
  Status send_frame(const wire::FrameHeader& header, std::span<const uint8_t> payload, std::span<const iovec> bulk);
  // Reads the next frame header and validates it.
  Status recv_header(wire::FrameHeader& header);
};

class Listener {
 public:
  virtual ~Listener() = default;
  virtual Result<std::unique_ptr<Connection>> accept() = 0;
  virtual std::string address() const = 0;  // the bound address, with the real port if 0 was asked
  virtual bool is_loopback() const = 0;
  // The listening socket's descriptor, so a forking server can close it in children.
  virtual int native_handle() const = 0;
};

// Connects to "host:port", over TLS unless `tls` (by default RGPU_TLS) lets this one be plain TCP
// (tls_session.h); or to "unix:PATH", never encrypted (nothing on it leaves the host).
Result<std::unique_ptr<Connection>> connect(const std::string& address, tls::Mode tls);
Result<std::unique_ptr<Connection>> connect(const std::string& address);
Result<std::unique_ptr<Listener>> listen(const std::string& address);

// A connection that one process authenticated for another to serve (rgpud's handshake loop, then
// the worker it forks): the socket and, when encrypted, the TLS session over it. Dropping it closes
// the socket and frees the session without a word to the peer, so the parent can drop its copy
// while the worker serves the connection.
struct AcceptedConnection {
  AcceptedConnection(int descriptor, tls::SslPtr session) : fd(descriptor), tls(std::move(session)) {}
  AcceptedConnection(AcceptedConnection&& other) noexcept : fd(std::exchange(other.fd, -1)), tls(std::move(other.tls)) {}
  AcceptedConnection& operator=(AcceptedConnection&&) = delete;
  ~AcceptedConnection();

  int fd;
  tls::SslPtr tls;  // empty: plain TCP, or a Unix socket
};
// The connection to serve, taking the accepted one's socket and session, by the socket's family.
Result<std::unique_ptr<Connection>> adopt(AcceptedConnection&& accepted);

// Who is at the other end of an accepted socket, for a server that holds only its descriptor (the
// handshake loop), as the kernel says.
struct AcceptedPeer {
  std::string text;          // "tcp 127.0.0.1:51234" or "unix pid=4242 uid=1000 gid=1000"
  std::string origin;        // what per-peer bounds count: the IP address, or "uid 1000"
  bool local = false;        // on this host: loopback TCP, or a Unix socket
  bool unix_socket = false;  // no TLS over it: nothing it carries leaves the host
  uint32_t pid = 0;          // the peer process (Unix sockets: SO_PEERCRED); 0 where unknown
};
Result<AcceptedPeer> accepted_peer(int fd);

// A forking server calls this in each child before it adopts or opens any connection, while the
// parent's sockets are still open. Without it, parent and children register their sockets in one
// shared epoll set, keyed by descriptor number and open file: a connection one child adopted and
// handed on (a stripe, to its session's worker) stays registered there under that child's number,
// and the receiver, given the same number, was refused (EEXIST).
Status after_fork_in_child();

}  // namespace rgpu::transport
