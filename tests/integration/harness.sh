# The integration scripts' common part, sourced by run_*_tests.sh: a scratch folder, daemons that
# are stopped on exit, checks that are counted, and the client wrapper for sanitizer builds.
#   check NAME STATUS [DETAIL]   counts "ok: NAME" (STATUS 0) or "FAIL: NAME DETAIL"
#   client CMD...                runs a client program (the ASan runtime preloaded under sanitizers)
#   start_daemon [ARGS...]       starts "$BIN/rgpud" on a free loopback port with ARGS; sets PORT and LOG
#   wait_log FILE PATTERN        waits (bounded) until FILE matches PATTERN
#   finish                       prints "N passed, N failed" and sets the exit status
# The sourcing script sets BIN (the folder with rgpud and rgpu) first.
WORK=$(mktemp -d)
PIDS=()
passed=0
failed=0

cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

check() {
  if [[ $2 == 0 ]]; then
    echo "ok: $1"
    passed=$((passed + 1))
  else
    echo "FAIL: $1 ${3:-}"
    failed=$((failed + 1))
  fi
}

# Under a sanitizer build the ASan runtime is preloaded so that the sanitized shims can load.
client() {
  if [[ -n ${RGPU_TEST_PRELOAD:-} ]]; then LD_PRELOAD="$RGPU_TEST_PRELOAD ${LD_PRELOAD:-}" "$@"; else "$@"; fi
}

start_daemon() {
  LOG=$WORK/rgpud.$RANDOM.log
  "$BIN/rgpud" --listen 127.0.0.1:0 "$@" >"$LOG" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do
    PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$LOG")
    [[ -n $PORT ]] && return 0
    sleep 0.05
  done
  echo "rgpud did not start:"
  cat "$LOG"
  return 1
}

wait_log() {
  for _ in $(seq 200); do
    grep -q "$2" "$1" && return 0
    sleep 0.05
  done
  return 1
}

finish() {
  echo "$passed passed, $failed failed"
  [[ $failed == 0 ]]
}
