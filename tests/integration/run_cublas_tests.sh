#!/usr/bin/env bash
# cuBLAS through the shims against rgpud --emulate: results of the emulated CPU reference (the
# handle API and the legacy one), the not-supported paths, both shims through `rgpu run
# --no-preload`, and the round trips of handle settings (none: they are mirrored on the client)
# and of batched solves (none: their arguments are checked on the client).
#
# Usage: run_cublas_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

# 1. Results, pointer modes, getters, not-supported answers.
check_tour "$PROGS/cublas_tour"
check_tour_stderr "an unforwarded cuBLAS function is named on stderr" "cublasSrotg_v2 is not supported by rgpu"
check_daemon_log "a function the emulated backend lacks is named in rgpud's log" \
  "cublasDdot_v2 is not available on this backend"

# 2. The legacy API (cublas.h): the implicit handle, values returned, errors for cublasGetError.
check_tour "$PROGS/cublas_legacy_tour"

# 3. The same through LD_PRELOAD of both shims (how programs that pin their libraries run).
check_no_preload "$PROGS/cublas_tour"

# 4. Creation, 150 setters and 150 getters cost no round trip; the final synchronize costs one.
check_round_trips "cuBLAS handle settings make no round trip" 1 "^ok: cublas_tour settings$" "$PROGS/cublas_tour" settings

# 5. Batched solves (getrs) are checked on the client and posted: 1 or 50 of them, each with a
# refused twin, cost the same 5 round trips (4 cudaMalloc and the final synchronize).
check_round_trips "1 batched solve waits for nothing" 5 "^ok: cublas_tour solves$" "$PROGS/cublas_tour" solves 1
check_round_trips "50 batched solves wait for nothing either" 5 "^ok: cublas_tour solves$" "$PROGS/cublas_tour" solves 50

finish
