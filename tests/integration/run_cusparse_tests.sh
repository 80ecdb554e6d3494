#!/usr/bin/env bash
# cuSPARSE through the shim against rgpud --emulate: a handle and its settings, descriptors made
# without a round trip and read back, SpMV of device memory with host and device scalars, the
# not-supported and not-available paths, the shims through `rgpu run --no-preload`, and the round
# trips of settings, descriptors and SpMV (none).
#
# Usage: run_cusparse_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

check_tour "$PROGS/cusparse_tour"
check_tour_stderr "an unforwarded cuSPARSE function is named on stderr" "cusparseLoggerSetLevel is not supported by rgpu"
check_daemon_log "a function the emulated backend lacks is named in rgpud's log" \
  "cusparseSpMM_bufferSize is not available on this backend"
check_no_preload "$PROGS/cusparse_tour"
# 6 allocations, the first buffer size, the buffer's allocation, the synchronize and four distinct
# buffer-size questions (device scalars; another algorithm; a vector changed by a setter): the
# settings, the descriptors and SpMV wait for nothing, and a question asked before about
# descriptors made alike is answered on the client, however many rounds.
check_round_trips "1 round of settings, descriptors, buffer sizes and SpMV makes 12 round trips" 12 \
  "^ok: cusparse_tour async$" "$PROGS/cusparse_tour" async 1
check_round_trips "50 rounds make 12 round trips too" 12 "^ok: cusparse_tour async$" "$PROGS/cusparse_tour" async 50

finish
