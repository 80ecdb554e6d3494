// Locations of the worker, the shim and the real CUDA runtime (see locations.h).
#include "bench/cli/locations.h"

#include <filesystem>

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

}  // namespace rgpu::bench
