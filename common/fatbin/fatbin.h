// The fatbin container that nvcc embeds in host binaries, read without any NVIDIA library.
// Layout facts (DESIGN.md, CUDA 13): wrapper (24 bytes, magic 0x466243B1, version 1 or 2 for
// -rdc, pointer to the container); container header (16 bytes, magic 0xBA55ED50, u16 version,
// u16 header size, u64 payload size); then entries, each with its own header (u16 kind 1 PTX /
// 2 ELF, u32 header size at 4, u64 payload size at 8 (padded to 8), u32 exact compressed size at
// 16, u32 arch at 28, u64 flags at 40 with 0x2000 LZ4 and 0x8000 zstd, u64 uncompressed size at
// 56). README.md in this folder has the details verified on nvcc 13.
//
// Every read is bounds-checked against a caller-given limit: a truncated or corrupt fatbin yields
// a Status that says what is wrong, never a crash.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rgpu::fatbin {

inline constexpr uint32_t kWrapperMagic = 0x466243B1;
inline constexpr uint32_t kContainerMagic = 0xBA55ED50;

enum class EntryKind : uint16_t { kPtx = 1, kElf = 2 };
enum class Compression { kNone, kLz4, kZstd };

struct Entry {
  EntryKind kind;
  uint32_t arch;  // e.g. 90 for sm_90 / compute_90
  Compression compression;
  uint64_t uncompressed_size;        // what decompress() yields (the stored size if uncompressed)
  std::span<const uint8_t> header;   // the entry's own header bytes (kept to rebuild a container)
  std::span<const uint8_t> payload;  // as stored: the exact compressed bytes (without the padding
                                     // to 8 that follows them), or the whole stored payload
};

struct Container {
  std::span<const uint8_t> bytes;  // the whole container, header included
  std::vector<Entry> entries;
};

// Reads a container that starts at `data` (at most data.size() bytes are touched). Entries of
// kinds other than PTX and ELF (8, LTO IR from -dlto) are walked over and left out of `entries`.
Result<Container> parse_container(std::span<const uint8_t> data);

// Reads the containers that a registration wrapper (the pointer given to __cudaRegisterFatBinary)
// refers to: one for version 1; for version 2 (-rdc) the device-linked container first (the
// loadable one), then each of the NULL-terminated list of prelinked (relocatable) containers.
// `readable` bounds how far into memory the container may be read (it lives in the host binary's
// mapped image; callers pass a conservative bound found from /proc/self/maps).
Result<std::vector<Container>> parse_wrapper(const void* wrapper,
                                             size_t (*readable)(const void* p));

// The payload, decompressed if needed.
Result<std::vector<uint8_t>> decompress(const Entry& entry);

// Whether a module image (a container, an ELF or PTX text) may call device printf: true when an
// entry names vprintf, or when the image or an entry cannot be read (assumed to print).
bool may_print(std::span<const uint8_t> image);

// A new container holding only the entries useful to a GPU of compute capability `arch`
// (e.g. 90): the best ELF with arch <= `arch` of the same major family, and the newest PTX with
// arch <= `arch` as a JIT fallback. Returns the full container when nothing matches.
std::vector<uint8_t> select_for_arch(const Container& c, uint32_t arch);

// SHA-256 of a module image: the key of rgpud's module cache (shared by tenants, so not forgeable).
using ContentHash = std::array<uint8_t, 32>;
ContentHash content_hash(std::span<const uint8_t> bytes);
std::string to_hex(const ContentHash& h);

// Kernel parameter layout read from the image itself (for the emulated backend, which has no
// cuFuncGetParamInfo): from an ELF's .nv.info.<kernel> EIATTR_KPARAM_INFO, or from PTX .entry
// declarations.
struct KernelParams {
  std::string name;
  struct Param {
    uint32_t offset;
    uint32_t size;
  };
  std::vector<Param> params;
};
// From the container's newest ELF entry, else its newest PTX entry (all come from one source).
Result<std::vector<KernelParams>> kernel_params(const Container& c);
// The same from one decompressed ELF image (kernels: .symtab functions marked as CUDA entries) or
// from PTX text.
Result<std::vector<KernelParams>> kernel_params_from_elf(std::span<const uint8_t> image);
Result<std::vector<KernelParams>> kernel_params_from_ptx(std::string_view ptx);

}  // namespace rgpu::fatbin
