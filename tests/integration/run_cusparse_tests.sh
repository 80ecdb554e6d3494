#!/usr/bin/env bash
# cuSPARSE through the shim against rgpud --emulate: a handle and its settings, descriptors made
# without a round trip and read back, SpMV of device memory with host and device scalars, the
# not-supported and not-available paths, and the shims through `rgpu run --no-preload`.
#
# Usage: run_cusparse_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

check_tour "$PROGS/cusparse_tour"
check_tour_stderr "an unforwarded cuSPARSE function is named on stderr" "cusparseAxpby is not supported by rgpu"
check_daemon_log "a function the emulated backend lacks is named in rgpud's log" \
  "cusparseSpMM_bufferSize is not available on this backend"
check_no_preload "$PROGS/cusparse_tour"

finish
