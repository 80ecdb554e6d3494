// One image through the CUDA backend's checks, the emulated backend's reader and the fatbin reader.
#include "tests/fuzz/image_target.h"

#include <algorithm>
#include <vector>

#include "common/fatbin/fatbin.h"
#include "common/log.h"
#include "server/backends/cuda/module_image.h"
#include "server/backends/emulated/emulated_module.h"

namespace rgpu::fuzz {
namespace {

constexpr uint32_t kArch = 90;  // the H200's, as the emulated device reports

bool within(std::span<const uint8_t> part, std::span<const uint8_t> whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

std::string cuda_backend_violation(std::span<const uint8_t> image) {
  std::vector<uint8_t> storage;
  server::cuda::PreparedImage prepared;
  const cudaError_t e = server::cuda::prepare_module_image(image, storage, &prepared);
  if (e != cudaSuccess && e != cudaErrorInvalidKernelImage)
    return "prepare_module_image answered " + std::to_string(e);
  if (e == cudaSuccess && prepared.kind == server::cuda::ModuleImageKind::kPtx) {
    // cuModuleLoadData reads PTX up to its NUL: there must be one inside what it is given.
    const auto* text = static_cast<const uint8_t*>(prepared.data);
    const std::span<const uint8_t> given = text == storage.data() ? std::span<const uint8_t>(storage) : image;
    if (std::find(given.begin(), given.end(), uint8_t{0}) == given.end()) return "PTX handed on without a NUL";
  }
  return {};
}

std::string emulated_backend_violation(std::span<const uint8_t> image) {
  server::emulated::ModuleImage module;
  const cudaError_t e = server::emulated::read_module_image(image, kArch, &module);
  if (e != cudaSuccess && e != cudaErrorInvalidKernelImage && e != cudaErrorInvalidPtx &&
      e != cudaErrorNoKernelImageForDevice)
    return "read_module_image answered " + std::to_string(e);
  return {};
}

std::string fatbin_reader_violation(std::span<const uint8_t> image) {
  Result<fatbin::Container> container = fatbin::parse_container(image);
  if (!container.is_ok()) return container.status().message().empty() ? "a container error without a message" : std::string();
  for (const fatbin::Entry& entry : container.value().entries)
    if (!within(entry.header, image) || !within(entry.payload, image)) return "an entry reaches outside the image";
  // What select_for_arch builds is sent to the driver as the module: it must be a container too.
  const std::vector<uint8_t> selected = fatbin::select_for_arch(container.value(), kArch);
  Result<fatbin::Container> reread = fatbin::parse_container(selected);
  if (!reread.is_ok()) return "select_for_arch built an unreadable container: " + reread.status().message();
  if (reread.value().entries.size() > container.value().entries.size())
    return "select_for_arch kept more entries than there were";
  (void)fatbin::kernel_params(container.value());  // a clean error or layouts, either is fine
  return {};
}

}  // namespace

std::string image_violation(std::span<const uint8_t> image) {
  static const bool quiet = (log_set_level(LogLevel::kError), true);  // every rejection is logged as a warning
  (void)quiet;
  std::string violation = cuda_backend_violation(image);
  if (violation.empty()) violation = emulated_backend_violation(image);
  if (violation.empty()) violation = fatbin_reader_violation(image);
  return violation;
}

}  // namespace rgpu::fuzz
