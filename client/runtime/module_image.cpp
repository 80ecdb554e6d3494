// Reading a module image given by pointer (see module_image.h).
#include "client/runtime/module_image.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string_view>

#include "common/fatbin/fatbin.h"
#include "common/fatbin/mapped_memory.h"
#include "common/log.h"

namespace rgpu::client {
namespace {

template <typename T>
T read_at(const uint8_t* p, size_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof v);
  return v;
}

// An ELF64's extent: the furthest of its section and program header tables and section contents.
// 0 when the headers do not fit in `readable`.
size_t elf_size(const uint8_t* p, size_t readable) {
  constexpr size_t kHeader = 64;
  if (readable < kHeader || p[4] != 2 /* ELFCLASS64 */) return 0;
  auto shoff = read_at<uint64_t>(p, 0x28), phoff = read_at<uint64_t>(p, 0x20);
  uint64_t shentsize = read_at<uint16_t>(p, 0x3A), shnum = read_at<uint16_t>(p, 0x3C);
  uint64_t phentsize = read_at<uint16_t>(p, 0x36), phnum = read_at<uint16_t>(p, 0x38);
  if (shoff > readable || phoff > readable || shentsize < 0x28 || shnum * shentsize > readable - shoff ||
      phnum * phentsize > readable - phoff)
    return 0;
  uint64_t end = std::max({uint64_t{kHeader}, shoff + shnum * shentsize, phoff + phnum * phentsize});
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t* sh = p + shoff + i * shentsize;
    if (read_at<uint32_t>(sh, 4) == 8 /* SHT_NOBITS */) continue;
    uint64_t off = read_at<uint64_t>(sh, 0x18), size = read_at<uint64_t>(sh, 0x20);
    if (off > readable || size > readable - off) return 0;
    end = std::max(end, off + size);
  }
  return end;
}

cudaError_t fail(cudaError_t err, const std::string& why) {
  RGPU_LOG_WARN("module image rejected: %s", why.c_str());
  return err;
}

cudaError_t take_names(Result<std::vector<fatbin::KernelParams>> kernels, cudaError_t err, GivenImage* out) {
  if (!kernels.is_ok()) return fail(err, kernels.status().to_string());
  for (const auto& k : kernels.value()) out->kernels.push_back(k.name);
  return cudaSuccess;
}

cudaError_t read_container(std::span<const uint8_t> bytes, GivenImage* out) {
  Result<fatbin::Container> c = fatbin::parse_container(bytes);
  if (!c.is_ok()) return fail(cudaErrorInvalidKernelImage, c.status().to_string());
  out->bytes.assign(c.value().bytes.begin(), c.value().bytes.end());
  return take_names(fatbin::kernel_params(c.value()), cudaErrorInvalidKernelImage, out);
}

}  // namespace

cudaError_t read_given_image(const void* image, GivenImage* out) {
  if (!image || !out) return cudaErrorInvalidValue;
  auto* p = static_cast<const uint8_t*>(image);
  size_t readable = fatbin::readable_bytes_at(image);
  if (readable < 4) return cudaErrorInvalidValue;
  uint32_t magic = read_at<uint32_t>(p, 0);

  if (magic == fatbin::kContainerMagic) return read_container({p, readable}, out);
  if (magic == fatbin::kWrapperMagic) {
    Result<std::vector<fatbin::Container>> cs = fatbin::parse_wrapper(image, &fatbin::readable_bytes_at);
    if (!cs.is_ok() || cs.value().empty())
      return fail(cudaErrorInvalidKernelImage, cs.is_ok() ? "an empty fatbin" : cs.status().to_string());
    return read_container(cs.value().front().bytes, out);
  }
  if (std::memcmp(p, "\x7f" "ELF", 4) == 0) {
    size_t size = elf_size(p, readable);
    if (size == 0) return fail(cudaErrorInvalidKernelImage, "a truncated or inconsistent ELF image");
    out->bytes.assign(p, p + size);
    return take_names(fatbin::kernel_params_from_elf(out->bytes), cudaErrorInvalidKernelImage, out);
  }
  // PTX: text up to its NUL, which must lie within readable memory.
  const void* nul = std::memchr(p, 0, readable);
  if (!nul) return fail(cudaErrorInvalidPtx, "PTX text without its terminating NUL");
  std::string_view ptx(reinterpret_cast<const char*>(p), static_cast<size_t>(static_cast<const uint8_t*>(nul) - p));
  if (ptx.find(".version") == std::string_view::npos)
    return fail(cudaErrorInvalidKernelImage, "neither a fatbin, a cubin nor PTX");
  out->bytes.assign(p, p + ptx.size() + 1);
  return take_names(fatbin::kernel_params_from_ptx(ptx), cudaErrorInvalidPtx, out);
}

}  // namespace rgpu::client
