// The start-up device probe (see device_inventory.h).
#include "server/daemon/device_inventory.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/wire/codec.h"
#include "server/backends/backend.h"

namespace rgpu::server {
namespace {

constexpr size_t kMaxInventory = 1 << 20;

// In the child: the devices, or the backend's error, as one encoded message on `fd`.
[[noreturn]] void report(const std::string& backend_name, int fd) {
  std::unique_ptr<Backend> backend = backend_name == "emulated" ? make_emulated_backend() : make_cuda_backend();
  Status st = backend->init();
  wire::Encoder e;
  e.put<uint8_t>(st.is_ok());
  if (!st.is_ok()) {
    std::string why = st.message().substr(0, st.message().find('\n'));
    e.put_bytes(why.data(), why.size());
  } else {
    std::vector<DeviceSummary> devices = backend->devices();
    e.put<uint32_t>(static_cast<uint32_t>(devices.size()));
    for (const DeviceSummary& d : devices) {
      e.put_bytes(d.name.data(), d.name.size());
      e.put<uint64_t>(d.total_memory);
    }
  }
  auto bytes = e.payload();
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) off += static_cast<size_t>(n);
  }
  _exit(st.is_ok() ? 0 : 1);
}

}  // namespace

Result<std::vector<pool::GpuInfo>> probe_devices(const std::string& backend) {
  int fds[2];
  if (pipe(fds) != 0) return RGPU_ERROR(kIo, std::string("device probe: pipe: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return RGPU_ERROR(kIo, std::string("device probe: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    report(backend, fds[1]);
  }
  close(fds[1]);
  std::vector<uint8_t> bytes;
  uint8_t buf[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
    if (bytes.size() > kMaxInventory) break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  wire::Decoder d(bytes);
  uint8_t ok = d.get<uint8_t>();
  if (!d.ok()) return RGPU_ERROR(kUnavailable, "the " + backend + " backend's device probe ended without an answer");
  if (!ok) return RGPU_ERROR(kUnavailable, "the " + backend + " backend failed to start: " + std::string(d.get_string()));
  std::vector<pool::GpuInfo> gpus;
  uint32_t n = d.get<uint32_t>();
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    pool::GpuInfo g;
    g.name = d.get_string();
    g.total_bytes = d.get<uint64_t>();
    gpus.push_back(std::move(g));
  }
  if (!d.ok() || !d.at_end()) return RGPU_ERROR(kInternal, "the device probe's answer is malformed");
  return gpus;
}

}  // namespace rgpu::server
