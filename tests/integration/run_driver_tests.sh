#!/usr/bin/env bash
# The driver API through the libcuda.so.1 shim against rgpud --emulate (two devices): the tour
# through `rgpu run` and `rgpu run --no-preload`; launches cost no round trip; no server.
#
# Usage: run_driver_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

RGPU_EMULATED_DEVICES=2 RGPU_EMULATED_MEMORY_MB=1024 start_server --emulate || exit 1

# 1. Devices, contexts, cuGetProcAddress, memory, streams, events, a PTX module and its launches.
check_tour "$PROGS/driver_tour"
check_tour_stderr "an unsupported driver function is named on stderr" "cuArrayCreate_v2 is not supported by rgpu"
grep -qx "ok: a context pushed and popped, a kernel launched with extra at exit" "$WORK/tour.out"
check "a context pushed and a kernel launched by a static destructor at exit" $?

# 2. The same through LD_LIBRARY_PATH alone.
check_no_preload "$PROGS/driver_tour"

# 3. Module load, allocations, the device snapshot and the final synchronisation are the round
#    trips; the 100 launches are not.
check_round_trips "100 driver launches make no round trip" 5 "^ok: driver_tour launches$" "$PROGS/driver_tour" launches

# 4. No server: no device.
check_no_server "no server: cuInit answers CUDA_ERROR_NO_DEVICE" "$PROGS/driver_tour" no_server

finish
