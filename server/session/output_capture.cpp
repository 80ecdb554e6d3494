// stdout capture for device printf (see output_capture.h).
#include "server/session/output_capture.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rgpu::server {

Result<std::unique_ptr<OutputCapture>> OutputCapture::start() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return RGPU_ERROR(kIo, std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  if (dup2(fds[1], 1) < 0) return RGPU_ERROR(kIo, std::string("dup2: ") + std::strerror(errno));
  close(fds[1]);
  // Unbuffered: the driver's printf output must reach the pipe before the call that flushed it returns.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  std::unique_ptr<OutputCapture> c(new OutputCapture());
  c->read_fd_ = fds[0];
  c->thread_ = std::thread([p = c.get()] { p->drain_loop(); });
  return c;
}

OutputCapture::~OutputCapture() {
  // The worker exits with _exit; the thread is detached rather than joined across a blocked poll.
  if (thread_.joinable()) thread_.detach();
}

// Reads under the lock: bytes the drain thread has read are in buffered_ before take() can look,
// so a sync call's printf output never slips past its reply into the next one.
void OutputCapture::drain_available() {
  char buf[65536];
  std::lock_guard<std::mutex> lock(mu_);
  for (;;) {
    ssize_t n = read(read_fd_, buf, sizeof buf);
    if (n <= 0) return;
    buffered_.append(buf, static_cast<size_t>(n));
  }
}

void OutputCapture::drain_loop() {
  for (;;) {
    pollfd p{read_fd_, POLLIN, 0};
    int r = poll(&p, 1, -1);
    if (r < 0 && errno != EINTR) return;
    if (p.revents & (POLLHUP | POLLERR)) return;
    drain_available();
  }
}

std::string OutputCapture::take() {
  drain_available();  // what the call just flushed may still sit in the pipe
  std::lock_guard<std::mutex> lock(mu_);  // not held across drain_available: a plain mutex
  std::string out;
  out.swap(buffered_);
  return out;
}

}  // namespace rgpu::server
