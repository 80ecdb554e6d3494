// Reads what the emulated backend needs from a cubin (ELF64, little-endian): the data objects of
// its symbol table (a __device__ / __constant__ variable's size and initial bytes), section sizes
// (a kernel's static shared memory is the size of .nv.shared.<kernel>) and each kernel's
// __launch_bounds__ (EIATTR_MAX_THREADS in .nv.info.<kernel>) and register count (EIATTR_REGCOUNT
// in .nv.info). Every offset is bounds-checked: a
// corrupt image is an error, never a read past its end.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>

#include "common/status.h"

namespace rgpu::server::emulated {

struct ElfObject {
  uint64_t size = 0;
  std::span<const uint8_t> initial;  // the initial bytes; empty when zero-filled (.nv.global)
};

struct ElfSymbols {
  std::unordered_map<std::string, ElfObject> objects;  // by symbol name
  std::unordered_map<std::string, uint64_t> section_sizes;
  std::unordered_map<std::string, uint32_t> max_threads;  // by kernel, where __launch_bounds__ set it
  std::unordered_map<std::string, uint32_t> registers;    // per thread, by kernel (EIATTR_REGCOUNT)
};

// The spans in the result point into `image`.
Result<ElfSymbols> read_elf_symbols(std::span<const uint8_t> image);

}  // namespace rgpu::server::emulated
