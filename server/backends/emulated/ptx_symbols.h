// Reads what the emulated backend needs from PTX text when a module has no cubin for the device:
// module-scope .global/.const variables (size and initial bytes) and each .entry's static
// .shared declarations. Bounded and defensive: a declaration it cannot read is an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace rgpu::server::emulated {

struct PtxVariable {
  uint64_t size = 0;
  std::vector<uint8_t> initial;  // little-endian; shorter than size when the rest is zero
};

struct PtxSymbols {
  std::unordered_map<std::string, PtxVariable> variables;
  std::unordered_map<std::string, uint64_t> static_shared;  // bytes, by kernel
  std::unordered_map<std::string, uint32_t> max_threads;    // by kernel, from .maxntid / .reqntid
  // Variables declared in a form not read here (e.g. initialised with another symbol's address),
  // with the reason: an error only for a module that asks for them.
  std::unordered_map<std::string, std::string> unreadable;
};

Result<PtxSymbols> read_ptx_symbols(std::string_view ptx);

}  // namespace rgpu::server::emulated
