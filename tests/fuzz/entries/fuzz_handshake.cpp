// libFuzzer target: both sides of the handshake against a hostile peer (the first byte picks the side).
#include "tests/fuzz/fuzz_entry.h"
#include "tests/fuzz/fuzz_targets.h"

RGPU_FUZZ_ENTRY(rgpu::fuzz::handshake_violation)
