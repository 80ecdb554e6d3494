#!/usr/bin/env bash
# cuFFT through the shim against rgpud --emulate: plans, transforms of device memory and of one-GPU
# descriptors, a plan destroyed at exit, the not-available path, and the shims through
# `rgpu run --no-preload`.
#
# Usage: run_cufft_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

check_tour "$PROGS/cufft_tour"
grep -qx "ok: a plan destroyed at exit, then refused" "$WORK/tour.out"
check "a plan destroyed by a static destructor at exit (calls after the thread's buffers are gone)" $?
check_daemon_log "a function the emulated backend lacks is named in rgpud's log" \
  "cufftEstimate1d is not available on this backend"
check_no_preload "$PROGS/cufft_tour"

finish
