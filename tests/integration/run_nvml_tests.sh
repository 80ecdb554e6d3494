#!/usr/bin/env bash
# NVML through the libnvidia-ml.so.1 shim against rgpud --emulate (two 1 GiB devices): the
# emulated devices as NVML shows them, through `rgpu run` and `rgpu run --no-preload`; the snapshot's
# one round trip; no server.
#
# Usage: run_nvml_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

RGPU_EMULATED_DEVICES=2 RGPU_EMULATED_MEMORY_MB=1024 start_server --emulate || exit 1

# 1. Count, names, UUIDs, memory, utilization, error cases, an unsupported export.
check_tour "$PROGS/nvml_tour"
check_tour_stderr "an unsupported NVML function is named on stderr" \
  "nvmlDeviceGetTemperature is not supported by rgpu"

# 2. The same with the shims preloaded.
check_no_preload "$PROGS/nvml_tour"

# 3. Init fetches the snapshot in one round trip; count, handles and identities cost none.
check_round_trips "NVML identities make one round trip" 1 "^ok: nvml_tour identity$" "$PROGS/nvml_tour" identity

# 4. No server: as if no driver were loaded.
check_no_server "no server: NVML_ERROR_DRIVER_NOT_LOADED" "$PROGS/nvml_tour" no_server

finish
