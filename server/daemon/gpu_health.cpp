// The GPUs' health probe (see gpu_health.h).
#include "server/daemon/gpu_health.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "common/log.h"
#include "gen/cudart/cudart_api.h"
#include "gen/nvml/nvml_api.h"
#include "server/backends/backend.h"

extern char** environ;

namespace rgpu::server {

int print_gpu_health(const std::string& backend_name, size_t gpus) {
  std::unique_ptr<Backend> backend = backend_name == "emulated" ? make_emulated_backend() : make_cuda_backend();
  std::string out;
  // The driver not starting at all (cuInit fails) is every GPU's failure.
  const bool driver = backend->prepare().is_ok();
  if (driver) backend->load_nvml();
  const gen::nvml::Api& nvml = backend->nvml();
  const bool can_tell = driver && nvml.nvmlInit_v2 && nvml.nvmlDeviceGetHandleByPciBusId_v2 &&
                        nvml.nvmlDeviceGetMemoryInfo && nvml.nvmlInit_v2() == NVML_SUCCESS;
  for (size_t i = 0; i < gpus; ++i) {
    bool healthy = driver && !can_tell;  // no NVML: it cannot tell, so it does not accuse
    if (can_tell) {
      char bus[32] = {};
      nvmlDevice_t device = nullptr;
      nvmlMemory_t memory{};
      healthy = backend->cudart().cudaDeviceGetPCIBusId(bus, sizeof bus, static_cast<int>(i)) == cudaSuccess &&
                nvml.nvmlDeviceGetHandleByPciBusId_v2(bus, &device) == NVML_SUCCESS &&
                nvml.nvmlDeviceGetMemoryInfo(device, &memory) == NVML_SUCCESS;
    }
    out += std::string(i ? " " : "") + (healthy ? "1" : "0");
  }
  std::printf("%s\n", out.c_str());
  return 0;
}

Result<std::vector<bool>> probe_gpu_health(ForkGate::Hold& hold, const std::string& backend, size_t gpus) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return RGPU_ERROR(kIo, std::string("GPU health: pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  const std::string count = std::to_string(gpus);
  char* argv[] = {const_cast<char*>("rgpud"), const_cast<char*>("--gpu-health"), const_cast<char*>(backend.c_str()),
                  const_cast<char*>(count.c_str()), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return RGPU_ERROR(kIo, std::string("GPU health: cannot run the probe: ") + std::strerror(rc));
  }
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fds[0], POLLIN, 0};
    if (left.count() <= 0 || hold.released([&] { return ::poll(&p, 1, static_cast<int>(left.count())); }) == 0) {
      kill(pid, SIGKILL);
      text.clear();
      break;
    }
    char buf[256];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (hold.released([&] { return waitpid(pid, &status, 0); }) < 0 && errno == EINTR) {
  }
  std::istringstream in(text);
  std::vector<bool> healthy;
  int v = 0;
  while (in >> v) healthy.push_back(v == 1);
  if (healthy.size() != gpus) return RGPU_ERROR(kUnavailable, "GPU health: the probe gave no answer");
  return healthy;
}

void watch_gpu_health(ForkGate::Hold& hold, std::string backend, size_t gpus, std::chrono::seconds interval,
                      PoolService* pool) {
  for (;;) {
    hold.released([&] { std::this_thread::sleep_for(interval); });
    auto healthy = probe_gpu_health(hold, backend, gpus);
    if (!healthy.is_ok()) {
      RGPU_LOG_WARN("%s; the GPUs' health stays as it was", healthy.status().message().c_str());
      continue;
    }
    pool->set_gpu_health(std::move(*healthy));
  }
}

}  // namespace rgpu::server
