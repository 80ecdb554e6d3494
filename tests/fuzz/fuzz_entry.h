// What every fuzz target's entry does with one input: run a decoder family's check and abort,
// with the reason, when the run did what it never may. The same entry links with libFuzzer
// (scripts/fuzz.sh, clang) or with replay_main.cpp (CTest, any compiler).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

namespace rgpu::fuzz {

inline void require_invariant(const std::string& violation) {
  if (violation.empty()) return;
  std::fprintf(stderr, "invariant violated: %s\n", violation.c_str());
  std::abort();
}

}  // namespace rgpu::fuzz

// Defines the libFuzzer entry of a target whose check is `violation_of(std::span<const uint8_t>)`.
#define RGPU_FUZZ_ENTRY(violation_of)                                            \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {      \
    rgpu::fuzz::require_invariant(violation_of(std::span<const uint8_t>(data, size))); \
    return 0;                                                                    \
  }
