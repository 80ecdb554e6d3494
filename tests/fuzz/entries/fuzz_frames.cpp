// libFuzzer target: a frame reader loop over any bytes (headers, limits, control messages).
#include "tests/fuzz/fuzz_entry.h"
#include "tests/fuzz/fuzz_targets.h"

RGPU_FUZZ_ENTRY(rgpu::fuzz::frames_violation)
