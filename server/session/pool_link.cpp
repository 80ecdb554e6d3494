// The worker <-> parent channel (see pool_link.h).
#include "server/session/pool_link.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>

#include "common/wire/codec.h"

namespace rgpu::server {
namespace {

constexpr uint32_t kMaxArgs = 64;

void put_string(wire::Encoder& e, const std::string& s) { e.put_bytes(s.data(), s.size()); }

}  // namespace

const char* link_kind_name(LinkKind kind) {
  switch (kind) {
    case LinkKind::kAdmit: return "Admit";
    case LinkKind::kAdmitted: return "Admitted";
    case LinkKind::kRefused: return "Refused";
    case LinkKind::kControl: return "Control";
    case LinkKind::kControlReply: return "ControlReply";
    case LinkKind::kMemory: return "Memory";
    case LinkKind::kWant: return "Want";
    case LinkKind::kGrant: return "Grant";
    case LinkKind::kRevoke: return "Revoke";
    case LinkKind::kReleased: return "Released";
    case LinkKind::kReslice: return "Reslice";
    case LinkKind::kQueued: return "Queued";
    case LinkKind::kQueueQuery: return "QueueQuery";
    case LinkKind::kHint: return "Hint";
    case LinkKind::kSwapOut: return "SwapOut";
    case LinkKind::kSwapped: return "Swapped";
    case LinkKind::kSovereign: return "Sovereign";
    case LinkKind::kTraffic: return "Traffic";
    case LinkKind::kEnded: return "Ended";
  }
  return "unknown";
}

std::vector<uint8_t> encode_link_message(const LinkMessage& m) {
  wire::Encoder e;
  e.put<uint32_t>(static_cast<uint32_t>(m.kind));
  e.put<uint32_t>(m.tenant);
  e.put<int32_t>(m.gpu);
  e.put<uint64_t>(m.memory);
  e.put<uint32_t>(m.compute);
  e.put<uint32_t>(m.compute_limit);
  e.put<int32_t>(m.priority);
  e.put<uint32_t>(m.pid);
  e.put<uint32_t>(m.position);
  e.put<int64_t>(m.timeout_ms);
  e.put<uint8_t>(static_cast<uint8_t>(m.admin | (m.json << 1) | (m.ok << 2)));
  e.put<uint64_t>(m.value);
  e.put<uint64_t>(m.host_bytes);
  for (uint64_t count : {m.calls, m.round_trips, m.bytes_in, m.bytes_out}) e.put<uint64_t>(count);
  put_string(e, m.host);
  put_string(e, m.program);
  put_string(e, m.verb);
  put_string(e, m.text);
  e.put<uint32_t>(static_cast<uint32_t>(m.args.size()));
  for (const std::string& a : m.args) put_string(e, a);
  auto p = e.payload();
  return {p.begin(), p.end()};
}

Result<LinkMessage> decode_link_message(const uint8_t* data, size_t size) {
  wire::Decoder d({data, size});
  LinkMessage m;
  const uint32_t kind = d.get<uint32_t>();
  if (kind < static_cast<uint32_t>(LinkKind::kAdmit) || kind > static_cast<uint32_t>(LinkKind::kEnded))
    return RGPU_ERROR(kProtocol, "pool link: unknown message kind " + std::to_string(kind));
  m.kind = static_cast<LinkKind>(kind);
  m.tenant = d.get<uint32_t>();
  m.gpu = d.get<int32_t>();
  m.memory = d.get<uint64_t>();
  m.compute = d.get<uint32_t>();
  m.compute_limit = d.get<uint32_t>();
  m.priority = d.get<int32_t>();
  m.pid = d.get<uint32_t>();
  m.position = d.get<uint32_t>();
  m.timeout_ms = d.get<int64_t>();
  uint8_t flags = d.get<uint8_t>();
  m.admin = flags & 1;
  m.json = flags & 2;
  m.ok = flags & 4;
  m.value = d.get<uint64_t>();
  m.host_bytes = d.get<uint64_t>();
  for (uint64_t* count : {&m.calls, &m.round_trips, &m.bytes_in, &m.bytes_out}) *count = d.get<uint64_t>();
  m.host = d.get_string();
  m.program = d.get_string();
  m.verb = d.get_string();
  m.text = d.get_string();
  uint32_t n = d.get<uint32_t>();
  if (!d.ok() || n > kMaxArgs) return RGPU_ERROR(kProtocol, std::string("pool link: malformed ") + link_kind_name(m.kind));
  for (uint32_t i = 0; i < n; ++i) m.args.emplace_back(d.get_string());
  if (!d.ok() || !d.at_end())
    return RGPU_ERROR(kProtocol, std::string("pool link: malformed ") + link_kind_name(m.kind));
  return m;
}

Result<std::pair<int, int>> PoolLink::make_pair() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    return RGPU_ERROR(kIo, std::string("pool link: socketpair: ") + std::strerror(errno));
  // A pool view can be large; the default buffer (about 200 KiB) would cap a datagram below it.
  int size = static_cast<int>(2 * kMaxLinkMessage);
  for (int fd : fds) {
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
  return std::make_pair(fds[0], fds[1]);
}

Status PoolLink::send(const LinkMessage& message) const {
  std::vector<uint8_t> bytes = encode_link_message(message);
  if (bytes.size() > kMaxLinkMessage)
    return RGPU_ERROR(kInvalidArgument, std::string("pool link: ") + link_kind_name(message.kind) + " of " +
                                            std::to_string(bytes.size()) + " bytes exceeds the limit");
  for (;;) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(bytes.size())) return Status::ok();
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) return RGPU_ERROR(kClosed, "pool link closed");
    return RGPU_ERROR(kIo, std::string("pool link: send: ") + std::strerror(errno));
  }
}

Result<LinkMessage> PoolLink::receive(std::chrono::microseconds timeout) const {
  if (timeout.count() >= 0) {
    pollfd p{fd_, POLLIN, 0};
    // ppoll: a hurried turn's holder waits in steps shorter than a millisecond (compute_gate.cpp).
    const timespec ts{static_cast<time_t>(timeout.count() / 1000000), static_cast<long>(timeout.count() % 1000000 * 1000)};
    int r;
    do r = ::ppoll(&p, 1, &ts, nullptr);
    while (r < 0 && errno == EINTR);
    if (r == 0) return RGPU_ERROR(kUnavailable, "pool link: no message in time");
  }
  thread_local std::vector<uint8_t> buf(kMaxLinkMessage + 1);  // one per thread, not one per message
  for (;;) {
    ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
    // A peer that ended with messages of ours unread resets the link instead: the same end.
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return RGPU_ERROR(kClosed, "pool link closed");
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return RGPU_ERROR(kIo, std::string("pool link: recv: ") + std::strerror(errno));
    if (static_cast<size_t>(n) > kMaxLinkMessage) return RGPU_ERROR(kProtocol, "pool link: oversized message");
    return decode_link_message(buf.data(), static_cast<size_t>(n));
  }
}

}  // namespace rgpu::server
