// libFuzzer target: a module image a client uploads, through every reader rgpud has.
#include "tests/fuzz/fuzz_entry.h"
#include "tests/fuzz/image_target.h"

RGPU_FUZZ_ENTRY(rgpu::fuzz::image_violation)
