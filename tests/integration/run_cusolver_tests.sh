#!/usr/bin/env bash
# cuSOLVER through the shim against rgpud --emulate: a dense handle and its stream, LU and Cholesky
# solves and the generic API's Xgetrf with its host workspace, checked against the host; the
# not-supported and not-available paths, the shims through `rgpu run --no-preload`, and the round
# trips of settings, parameters and factorisations (none).
#
# Usage: run_cusolver_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

check_tour "$PROGS/cusolver_tour"
check_tour_stderr "an unforwarded cuSOLVER function is named on stderr" \
  "cusolverDnIRSInfosGetResidualHistory is not supported by rgpu"
check_daemon_log "a function the emulated backend lacks is named in rgpud's log" \
  "cusolverDnSgeqrf_bufferSize is not available on this backend"
check_no_preload "$PROGS/cusolver_tour"
# 8 allocations, the two buffer sizes and the synchronize: the stream, the parameters and the
# factorisations wait for nothing, however many rounds.
check_round_trips "1 round of settings, parameters and factorisations makes 11 round trips" 11 \
  "^ok: cusolver_tour async$" "$PROGS/cusolver_tour" async 1
check_round_trips "50 rounds make 11 round trips too" 11 "^ok: cusolver_tour async$" "$PROGS/cusolver_tour" async 50

finish
