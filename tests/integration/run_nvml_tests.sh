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

RGPU_EMULATED_DEVICES=2 RGPU_EMULATED_MEMORY_MB=1024 start_daemon --emulate || exit 1
export RGPU_SERVER=127.0.0.1:$PORT

# 1. Count, names, UUIDs, memory, utilization, error cases, an unsupported export.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/nvml_tour" >"$WORK/tour.out" 2>"$WORK/tour.err"
rc=$?
[[ $rc == 0 ]] && grep -q "^ok: nvml_tour$" "$WORK/tour.out"
check "nvml_tour through rgpu run" $? "$(grep -v '^ok' "$WORK/tour.out" | head; head "$WORK/tour.err")"
grep -q "nvmlDeviceGetTemperature is not supported by rgpu" "$WORK/tour.err"
check "an unsupported NVML function is named on stderr" $? "$(head "$WORK/tour.err")"

# 2. The same with the shims preloaded.
check_no_preload "$PROGS/nvml_tour"

# 3. Init fetches the snapshot in one round trip; count, handles and identities cost none.
check_round_trips "NVML identities make one round trip" 1 "^ok: nvml_tour identity$" "$PROGS/nvml_tour" identity

# 4. No server: as if no driver were loaded.
RGPU_SERVER=127.0.0.1:1 client timeout 60 "$BIN/rgpu" run -- "$PROGS/nvml_tour" no_server >"$WORK/ns.out" 2>&1
check "no server: NVML_ERROR_DRIVER_NOT_LOADED" $? "$(head "$WORK/ns.out")"

finish
