#!/usr/bin/env bash
# cuBLAS through the shims against rgpud --emulate: results of the emulated CPU reference, the
# not-supported paths, both shims through `rgpu run --preload`, and the round trips of handle
# settings (none: they are mirrored on the client).
#
# Usage: run_cublas_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_daemon --emulate || exit 1
export RGPU_SERVER=127.0.0.1:$PORT

# 1. Results, pointer modes, getters, not-supported answers.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/cublas_tour" >"$WORK/tour.out" 2>"$WORK/tour.err"
rc=$?
[[ $rc == 0 ]] && grep -q "^ok: cublas_tour$" "$WORK/tour.out"
check "cublas_tour through rgpu run" $? "$(grep -v '^ok' "$WORK/tour.out" | head; head "$WORK/tour.err")"
grep -q "cublasSsymm_v2 is not supported by rgpu" "$WORK/tour.err"
check "an unforwarded cuBLAS function is named on stderr" $? "$(head "$WORK/tour.err")"
grep -q "cublasDdot_v2 is not available on this backend" "$LOG"
check "a function the emulated backend lacks is named in rgpud's log" $?

# 2. The same through LD_PRELOAD of both shims (how programs that pin their libraries run). Not
# under the sanitizers: there the ASan runtime must come first in LD_PRELOAD, and rgpu puts the
# shims first.
if [[ -n ${RGPU_TEST_PRELOAD:-} ]]; then
  echo "skip: cublas_tour through rgpu run --preload (sanitizer build)"
else
  timeout 60 "$BIN/rgpu" run --preload -- "$PROGS/cublas_tour" >"$WORK/pre.out" 2>&1
  check "cublas_tour through rgpu run --preload" $? "$(grep -v '^ok' "$WORK/pre.out" | head)"
fi

# 3. Creation, 150 setters and 150 getters cost no round trip; the final synchronize costs one.
RGPU_STATS=1 client timeout 60 "$BIN/rgpu" run -- "$PROGS/cublas_tour" settings >"$WORK/st.out" 2>"$WORK/st.err"
rc=$?
[[ $rc == 0 ]] && grep -q "^ok: cublas_tour settings$" "$WORK/st.out" && grep -q ", 1 round trips$" "$WORK/st.err"
check "cuBLAS handle settings make no round trip" $? "$(cat "$WORK/st.out" "$WORK/st.err" | head)"

finish
