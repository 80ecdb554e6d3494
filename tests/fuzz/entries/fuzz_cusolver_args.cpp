// libFuzzer target: one call's arguments through cuSOLVER's server dispatch.
#include "tests/fuzz/dispatch_target.h"
#include "tests/fuzz/fuzz_entry.h"

namespace {
std::string violation(std::span<const uint8_t> input) {
  return rgpu::fuzz::dispatch_violation(rgpu::fuzz::Library::kCusolver, input);
}
}  // namespace

RGPU_FUZZ_ENTRY(violation)
