#!/usr/bin/env bash
# cuRAND through the shim against rgpud --emulate: generators, their numbers in device memory, the
# not-supported and not-available paths, and the shims through `rgpu run --no-preload`.
#
# Usage: run_curand_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

check_tour "$PROGS/curand_tour"
check_tour_stderr "an unforwarded cuRAND function is named on stderr" "curandCreateGeneratorHost is not supported by rgpu"
check_daemon_log "a function the emulated backend lacks is named in rgpud's log" \
  "curandGenerateUniformDouble is not available on this backend"
check_daemon_log "a hand-written handler also names what the backend lacks" \
  "curandGetScrambleConstants64 is not available on this backend"
check_no_preload "$PROGS/curand_tour"

finish
