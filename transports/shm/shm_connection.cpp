// ShmConnection and upgrade(): a session's bytes through shared-memory rings, its Unix socket kept
// as the lifeline (see shm_connection.h and README.md).
#include "transports/shm/shm_connection.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "common/config.h"
#include "common/log.h"
#include "common/spin.h"
#include "transports/descriptor_passing.h"

namespace rgpu::transport::shm {
namespace {

using Clock = std::chrono::steady_clock;

const Tunable kShmPipe{"RGPU_SHM_PIPE", "1",
                       "0 keeps a Unix-socket session's call pipe on the socket (either end: the client does not "
                       "offer shared memory, rgpud declines it); 1: the pipe goes through shared-memory rings"};
const Tunable kShmRing{"RGPU_SHM_RING_KB", "4096",
                       "size of each of the two shared-memory rings of a Unix-socket session (client), in KiB: a "
                       "power of two from 64 to 65536"};
const Tunable kShmSpin{"RGPU_SHM_SPIN_US", "30",
                       "how long a shared-memory pipe's receive (or a send waiting for room) spins before it sleeps "
                       "on its futex, in microseconds (on fewer than 4 CPUs it yields the CPU while it spins)"};

// The offer (connecting end -> accepting end) and the answer, on the lifeline socket.
constexpr uint32_t kOfferMagic = 0x4d534752;   // "RGSM"
constexpr uint32_t kAnswerMagic = 0x41534752;  // "RGSA"
constexpr uint16_t kVersion = 1;
struct Offer {
  uint32_t magic = kOfferMagic;
  uint16_t version = kVersion;
  uint16_t has_memory = 0;  // 1: a memfd rides with the offer's first byte
  uint32_t ring_bytes = 0;
  uint32_t reserved = 0;
};
struct Answer {
  uint32_t magic = kAnswerMagic;
  uint32_t accepted = 0;
  uint32_t reason_len = 0;  // a reason for declining follows, at most kMaxReason bytes
  uint32_t reserved = 0;
};
static_assert(sizeof(Offer) == 16 && sizeof(Answer) == 16);
constexpr uint32_t kMaxReason = 1024;
// How long the accepting end waits for the offer, as UCX's address swap does.
constexpr int kOfferTimeoutMs = 10'000;
// What one drain of the lifeline reads at a time (marker bytes, each with its descriptor).
constexpr size_t kMarkerBatch = 16;
constexpr uint8_t kDescriptorMarker = 'D';

uint32_t ring_size_asked() {
  const int64_t kb = kShmRing.get_int();
  const uint64_t bytes = kb > 0 ? static_cast<uint64_t>(kb) << 10 : 0;
  if (valid_ring_bytes(bytes)) return static_cast<uint32_t>(bytes);
  RGPU_LOG_WARN("RGPU_SHM_RING_KB=%lld is not a power of two from 64 to 65536: using 4096",
                static_cast<long long>(kb));
  return 4u << 20;
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// The connecting end's memory: a sealed memfd of mapping_bytes(ring), mapped, its control blocks made.
struct Memory {
  int fd = -1;
  void* map = nullptr;
  size_t bytes = 0;
  std::string why;  // what failed, when fd < 0
};

Memory create_memory(uint32_t ring) {
  Memory m;
  m.bytes = mapping_bytes(ring);
  m.fd = ::memfd_create("rgpu-shm-pipe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (m.fd < 0) return m.why = errno_text("memfd_create"), m;
  auto fail = [&](const char* what) {
    m.why = errno_text(what);
    ::close(m.fd);
    m.fd = -1;
    return m;
  };
  if (::ftruncate(m.fd, static_cast<off_t>(m.bytes)) != 0) return fail("ftruncate");
  // The peer maps the file and must not have it shrunk under its mapping (SIGBUS).
  if (::fcntl(m.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) return fail("sealing the memfd");
  void* map = ::mmap(nullptr, m.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, m.fd, 0);
  if (map == MAP_FAILED) return fail("mmap");
  m.map = map;
  for (int i = 0; i < 2; ++i) new (static_cast<uint8_t*>(map) + i * kControlBytes) RingControl();
  return m;
}

// The accepting end checks the file it was handed before it maps it: a regular file of exactly the
// offered size, sealed against shrinking and growing.
Result<void*> map_offered(int fd, uint32_t ring) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return RGPU_ERROR(kInvalidArgument, errno_text("fstat"));
  if (!S_ISREG(st.st_mode)) return RGPU_ERROR(kInvalidArgument, "the offered descriptor is not a memory file");
  if (static_cast<uint64_t>(st.st_size) != mapping_bytes(ring))
    return RGPU_ERROR(kInvalidArgument, "the offered file has " + std::to_string(st.st_size) + " bytes, not " +
                                            std::to_string(mapping_bytes(ring)));
  const int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
    return RGPU_ERROR(kInvalidArgument, "the offered file is not sealed against resizing");
  void* map = ::mmap(nullptr, mapping_bytes(ring), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (map == MAP_FAILED) return RGPU_ERROR(kInvalidArgument, errno_text("mmap"));
  return map;
}

Status send_answer(Connection& lifeline, bool accepted, const std::string& reason) {
  Answer a;
  a.accepted = accepted ? 1 : 0;
  const std::string text = reason.substr(0, kMaxReason);
  a.reason_len = static_cast<uint32_t>(text.size());
  iovec v[2] = {{&a, sizeof a}, {const_cast<char*>(text.data()), text.size()}};
  return lifeline.send_bytes({v, text.empty() ? size_t{1} : size_t{2}});
}

}  // namespace

bool shm_pipe_enabled() { return kShmPipe.get_bool(); }

ShmConnection::ShmConnection(void* mapping, size_t mapping_bytes, uint32_t ring_bytes, bool accepting,
                             std::unique_ptr<Connection> lifeline)
    : mapping_(mapping),
      mapping_bytes_(mapping_bytes),
      ring_bytes_(ring_bytes),
      lifeline_(std::move(lifeline)),
      fd_(lifeline_->descriptor()),
      peer_("shm, paired over " + lifeline_->peer()),
      last_empty_(Clock::now().time_since_epoch().count()) {
  auto* base = static_cast<uint8_t*>(mapping);
  auto control = [&](int i) { return std::launder(reinterpret_cast<RingControl*>(base + i * kControlBytes)); };
  uint8_t* data0 = base + 2 * kControlBytes;
  uint8_t* data1 = data0 + ring_bytes;
  // Direction 0: connecting end -> accepting end.
  if (accepting) {
    in_ = RingConsumer(control(0), data0, ring_bytes);
    out_ = RingProducer(control(1), data1, ring_bytes);
  } else {
    out_ = RingProducer(control(0), data0, ring_bytes);
    in_ = RingConsumer(control(1), data1, ring_bytes);
  }
  wait_.stop = &stop_;
  wait_.spin = std::chrono::microseconds(std::clamp<int64_t>(kShmSpin.get_int(), 0, 1'000'000));
  wait_.yield = !polling_pays();
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  watcher_ = std::thread([this] { watch_lifeline(); });
}

ShmConnection::~ShmConnection() {
  uint64_t one = 1;
  if (wake_fd_ >= 0 && ::write(wake_fd_, &one, sizeof one) != sizeof one) stop_and_wake();
  if (watcher_.joinable()) watcher_.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
  ::munmap(mapping_, mapping_bytes_);
  for (int fd : descriptors_) ::close(fd);
  // Then the lifeline closes: the peer's watcher sees it.
}

void ShmConnection::watch_lifeline() {
  // Only the socket's end is of interest here (POLLRDHUP; POLLHUP and POLLERR come anyway): the
  // marker bytes of descriptors wait there for take_descriptor().
  pollfd fds[2] = {{fd_, POLLRDHUP, 0}, {wake_fd_, POLLIN, 0}};
  const nfds_t n = wake_fd_ >= 0 ? 2 : 1;
  for (;;) {
    const int rc = ::poll(fds, n, -1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc > 0 && n == 2 && fds[1].revents) return;  // the destructor
    if (rc < 0 || fds[0].revents) break;
  }
  peer_gone_.store(true, std::memory_order_release);
  stop_and_wake();
}

void ShmConnection::stop_and_wake() {
  stop_.store(true, std::memory_order_release);
  in_.wake_self();
  out_.wake_self();
}

Status ShmConnection::failure(const char* what, uint64_t done, uint64_t want) const {
  const std::string progress = " after " + std::to_string(done) + " of " + std::to_string(want) + " bytes";
  if (shut_down_.load(std::memory_order_acquire))
    return Status(Code::kClosed, "connection " + peer_ + " was shut down (" + what + progress + ")");
  if (corrupt_.load(std::memory_order_acquire))
    return Status(Code::kProtocol, "peer " + peer_ + " broke the shared ring's indices (" + what + progress + ")");
  return Status(Code::kClosed, "peer " + peer_ + " closed the connection (" + what + progress + ")");
}

Status ShmConnection::send_bytes(std::span<const iovec> segments) {
  uint64_t total = 0;
  for (const iovec& s : segments) total += s.iov_len;
  if (stop_.load(std::memory_order_acquire) || corrupt_.load(std::memory_order_relaxed))
    return failure("sending", 0, total).at(__FILE__, __LINE__);
  // A frame larger than the ring streams through it: published in quarters, so the reader starts
  // on the first while the rest is written.
  const uint64_t publish_every = ring_bytes_ / 4;
  uint64_t done = 0;
  for (const iovec& s : segments) {
    const auto* p = static_cast<const uint8_t*>(s.iov_base);
    size_t left = s.iov_len;
    while (left > 0) {
      size_t copied = 0;
      if (!out_.write_some(p, left, &copied)) {
        corrupt_.store(true, std::memory_order_release);
        return failure("sending", done, total).at(__FILE__, __LINE__);
      }
      p += copied;
      left -= copied;
      done += copied;
      if (copied > 0) {
        if (out_.unpublished() >= publish_every) out_.publish();
        continue;
      }
      out_.publish();  // the reader may be waiting for these to make room
      const WaitResult r = out_.wait_for_room(wait_);
      if (r == WaitResult::kCorrupt) corrupt_.store(true, std::memory_order_release);
      if (r != WaitResult::kReady) return failure("sending", done, total).at(__FILE__, __LINE__);
    }
  }
  out_.publish();
  return Status::ok();
}

void ShmConnection::stamp_empty() { last_empty_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed); }

Status ShmConnection::recv_exact(void* dst, size_t n) {
  auto* out = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < n) {
    const size_t got = in_.read_some(out ? out + done : nullptr, n - done);
    if (got > 0) {
      done += got;
      continue;
    }
    if (shut_down_.load(std::memory_order_acquire)) return failure("receiving", done, n).at(__FILE__, __LINE__);
    const int64_t now = in_.available();
    if (now > 0) continue;
    if (now == 0) {
      stamp_empty();
      const WaitResult r = in_.wait_for_data(wait_, std::chrono::milliseconds(-1));
      if (r == WaitResult::kReady) continue;
      if (r == WaitResult::kStopped && !shut_down_.load(std::memory_order_acquire) && in_.available() > 0)
        continue;  // the peer went after its last bytes: they are read first
      if (r != WaitResult::kCorrupt) return failure("receiving", done, n).at(__FILE__, __LINE__);
    }
    corrupt_.store(true, std::memory_order_release);
    return failure("receiving", done, n).at(__FILE__, __LINE__);
  }
  return Status::ok();
}

Status ShmConnection::skip(uint64_t n) {
  while (n > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, uint64_t{1} << 30));
    RGPU_TRY(recv_exact(nullptr, chunk));
    n -= chunk;
  }
  return Status::ok();
}

void ShmConnection::shutdown() {
  shut_down_.store(true, std::memory_order_release);
  stop_and_wake();
  lifeline_->shutdown();  // the peer's watcher sees it
}

bool ShmConnection::input_pending() { return in_.available() != 0; }

bool ShmConnection::wait_input(std::chrono::milliseconds timeout) {
  if (in_.available() != 0) return true;
  return in_.wait_for_data(wait_, timeout) != WaitResult::kTimedOut;
}

int ShmConnection::descriptor() const { return fd_; }

Status ShmConnection::send_bytes_with_descriptor(std::span<const iovec> segments, int fd) {
  if (stop_.load(std::memory_order_acquire)) return failure("sending a descriptor", 0, 1).at(__FILE__, __LINE__);
  // The descriptor goes first, on the socket, with one marker byte: it is in the peer's socket
  // before these bytes are in the ring, so the peer has it once it has read them.
  uint8_t marker = kDescriptorMarker;
  iovec v{&marker, 1};
  if (send_with_descriptor(fd_, {&v, 1}, fd) != 1) {
    const Code code = errno == EPIPE || errno == ECONNRESET ? Code::kClosed : Code::kIo;
    return Status(code, "sending a descriptor on " + peer_ + " failed: " + std::strerror(errno)).at(__FILE__, __LINE__);
  }
  return send_bytes(segments);
}

int ShmConnection::take_descriptor() {
  std::lock_guard<std::mutex> lock(descriptors_mu_);
  auto hold = [&](int fd) {
    if (descriptors_.size() < kMaxHeldDescriptors) {
      descriptors_.push_back(fd);
    } else {
      ::close(fd);
    }
  };
  // Any the socket connection read ahead with its last bytes (the offer's answer) come first.
  for (int fd; (fd = lifeline_->take_descriptor()) >= 0;) hold(fd);
  for (;;) {
    uint8_t markers[kMarkerBatch];
    iovec v{markers, sizeof markers};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMarkerBatch)];
    msghdr m{};
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    const ssize_t got = ::recvmsg(fd_, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int fd = -1;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        hold(fd);
      }
    }
  }
  if (descriptors_.empty()) return -1;
  const int fd = descriptors_.front();
  descriptors_.pop_front();
  return fd;
}

std::optional<PeerSilence> ShmConnection::peer_silence() const {
  PeerSilence silence;
  if (in_.pending()) return silence;
  const Clock::time_point last{Clock::duration(last_empty_.load(std::memory_order_relaxed))};
  silence.since_data = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - last);
  return silence;
}

Result<std::unique_ptr<Connection>> upgrade(std::unique_ptr<Connection> lifeline, bool accepting) {
  if (lifeline->encrypted() || lifeline->descriptor() < 0)
    return RGPU_ERROR(kInvalidArgument, "connection " + lifeline->peer() + " is not a Unix socket shared memory can pair over");
  if (!accepting) {
    const uint32_t ring = ring_size_asked();
    Memory memory = create_memory(ring);
    Offer offer;
    offer.ring_bytes = ring;
    offer.has_memory = memory.fd >= 0 ? 1 : 0;
    iovec v{&offer, sizeof offer};
    Status sent = memory.fd >= 0 ? lifeline->send_bytes_with_descriptor({&v, 1}, memory.fd) : lifeline->send_bytes({&v, 1});
    if (memory.fd >= 0) ::close(memory.fd);  // the mapping stays
    Answer answer;
    if (sent.is_ok()) sent = lifeline->recv_exact(&answer, sizeof answer);
    std::string reason;
    if (sent.is_ok() && answer.magic != kAnswerMagic) sent = RGPU_ERROR(kProtocol, "rgpud answered the shared-memory offer with garbage");
    if (sent.is_ok() && answer.reason_len > kMaxReason) sent = RGPU_ERROR(kProtocol, "rgpud's reason is too long");
    if (sent.is_ok() && answer.reason_len) {
      reason.resize(answer.reason_len);
      sent = lifeline->recv_exact(reason.data(), reason.size());
    }
    if (!sent.is_ok() || !answer.accepted || !memory.map) {
      if (memory.map) ::munmap(memory.map, memory.bytes);
      RGPU_TRY(std::move(sent));
      if (!memory.map) {
        RGPU_LOG_WARN("the call pipe stays on the socket: no shared memory for it (%s)", memory.why.c_str());
      } else {
        // Debug only: a client's info lines would land on every program's stderr.
        RGPU_LOG_DEBUG("the call pipe stays on the socket: rgpud declined shared memory (%s)", reason.c_str());
      }
      return lifeline;
    }
    RGPU_LOG_DEBUG("call pipe over shared memory (2 rings of %u KiB) with %s", ring >> 10, lifeline->peer().c_str());
    return std::unique_ptr<Connection>(new ShmConnection(memory.map, memory.bytes, ring, false, std::move(lifeline)));
  }

  // The accepting end: the offer, within a bound (a connecting end that offers nothing is broken).
  if (!lifeline->input_pending()) {
    pollfd p{lifeline->descriptor(), POLLIN, 0};
    int rc;
    do rc = ::poll(&p, 1, kOfferTimeoutMs);
    while (rc < 0 && errno == EINTR);
    if (rc == 0) return RGPU_ERROR(kUnavailable, "no shared-memory offer from " + lifeline->peer() + " within 10 s");
  }
  Offer offer;
  RGPU_TRY(lifeline->recv_exact(&offer, sizeof offer));
  int fd = lifeline->take_descriptor();
  for (int extra; (extra = lifeline->take_descriptor()) >= 0;) ::close(extra);
  struct CloseFd {
    int& fd;
    ~CloseFd() {
      if (fd >= 0) ::close(fd);
    }
  } close_fd{fd};
  if (offer.magic != kOfferMagic) return RGPU_ERROR(kProtocol, "peer " + lifeline->peer() + " sent no shared-memory offer");
  std::string declined;
  void* map = nullptr;
  if (!shm_pipe_enabled()) {
    declined = "RGPU_SHM_PIPE=0 on rgpud";
  } else if (offer.version != kVersion) {
    declined = "offer version " + std::to_string(offer.version) + ", rgpud speaks " + std::to_string(kVersion);
  } else if (!offer.has_memory || fd < 0) {
    declined = "the client offered no memory";
  } else if (!valid_ring_bytes(offer.ring_bytes)) {
    declined = "ring of " + std::to_string(offer.ring_bytes) + " bytes: not a power of two from 64 KiB to 64 MiB";
  } else {
    Result<void*> mapped = map_offered(fd, offer.ring_bytes);
    if (mapped.is_ok()) map = *mapped;
    else declined = mapped.status().message();
  }
  if (!map) {
    RGPU_LOG_INFO("the call pipe of %s stays on the socket: %s", lifeline->peer().c_str(), declined.c_str());
    RGPU_TRY(send_answer(*lifeline, false, declined));
    return lifeline;
  }
  if (Status st = send_answer(*lifeline, true, {}); !st.is_ok()) {
    ::munmap(map, mapping_bytes(offer.ring_bytes));
    return st;
  }
  RGPU_LOG_INFO("call pipe over shared memory (2 rings of %u KiB) with %s", offer.ring_bytes >> 10,
                lifeline->peer().c_str());
  return std::unique_ptr<Connection>(
      new ShmConnection(map, mapping_bytes(offer.ring_bytes), offer.ring_bytes, true, std::move(lifeline)));
}

}  // namespace rgpu::transport::shm
