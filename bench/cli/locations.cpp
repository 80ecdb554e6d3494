// Locations of the worker, the shim and the real CUDA runtime (see locations.h).
#include "bench/cli/locations.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "common/config.h"

namespace rgpu::bench {
namespace {

const Tunable kCudaLibDir{"RGPU_CUDA_LIB_DIR", "",
                          "rgpu bench: folder of the real libcudart.so.13 for native runs (default: under /usr/local/cuda)"};

bool holds_cudart(const std::string& dir) {
  std::error_code ec;
  return !dir.empty() && std::filesystem::exists(dir + "/libcudart.so.13", ec);
}

}  // namespace

std::string own_dir() { return std::filesystem::read_symlink("/proc/self/exe").parent_path().string(); }

std::string shim_dir() {
  return (std::filesystem::path(own_dir()).parent_path().parent_path() / "lib" / "rgpu").string();
}

std::string bin_dir() { return (std::filesystem::path(own_dir()).parent_path().parent_path() / "bin").string(); }

std::string native_cudart_dir() {
  for (std::string dir : {kCudaLibDir.get(), std::string("/usr/local/cuda/lib64"),
                          std::string("/usr/local/cuda/targets/x86_64-linux/lib")})
    if (holds_cudart(dir)) return dir;
  return {};
}

bool has_gpu() {
  std::error_code ec;
  return std::filesystem::exists("/dev/nvidiactl", ec);
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

}  // namespace rgpu::bench
