// libFuzzer target: any text as rgpud's configuration file.
#include "tests/fuzz/fuzz_entry.h"
#include "tests/fuzz/config_target.h"

RGPU_FUZZ_ENTRY(rgpu::fuzz::config_violation)
