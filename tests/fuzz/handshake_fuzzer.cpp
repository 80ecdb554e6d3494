// libFuzzer entry: the first input byte picks the target, the rest is what the peer sends.
// Built only with clang; run e.g. `handshake_fuzzer -max_total_time=60`.
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using rgpu::fuzz::Target;
  if (size == 0) return 0;
  static constexpr Target kTargets[] = {Target::kServerWithToken, Target::kServerWithoutToken, Target::kClient,
                                        Target::kFrameReader};
  const Target target = kTargets[data[0] % std::size(kTargets)];
  const rgpu::fuzz::Run run = rgpu::fuzz::run_target(target, {data + 1, size - 1});
  const std::string violation = rgpu::fuzz::invariant_violation(run);
  if (!violation.empty()) {
    std::fprintf(stderr, "invariant violated: %s\n", violation.c_str());
    std::abort();
  }
  return 0;
}
