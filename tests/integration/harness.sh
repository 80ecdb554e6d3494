# The integration scripts' common part, sourced by run_*_tests.sh: a scratch folder, daemons that
# are stopped on exit, checks that are counted, and the client wrapper for sanitizer builds.
#   check NAME STATUS [DETAIL]   counts "ok: NAME" (STATUS 0) or "FAIL: NAME DETAIL"
#   client CMD...                runs a client program (the ASan runtime preloaded under sanitizers)
#   client_exec CMD...           execs CMD as client runs it: in `( client_exec CMD ) &`, $! is CMD
#   start_daemon [ARGS...]       starts "$BIN/rgpud" on a free port of $DAEMON_HOST (127.0.0.1 unless
#                                set) with ARGS; sets PORT and LOG
#   start_server [ARGS...]       start_daemon, and points this script's clients (RGPU_SERVER) at it
#   wait_log FILE PATTERN [S]    waits (at most S seconds, 10 by default) until FILE matches PATTERN
#   check_tour PROG              PROG through `rgpu run` ends with "ok: <its name>"; keeps its output
#                                in $WORK/tour.out and $WORK/tour.err
#   check_tour_stderr NAME PATTERN   the last tour's stderr matches PATTERN
#   check_daemon_log NAME PATTERN    the daemon's log ($LOG) matches PATTERN
#   check_no_server NAME PROG [ARGS...]   PROG ARGS succeeds with no server listening
#   check_no_preload PROG        PROG passes through `rgpu run --no-preload` (LD_LIBRARY_PATH alone)
#   check_round_trips NAME N OK PROG [ARGS...]
#                                PROG prints a line matching OK and makes exactly N round trips
#   in_namespaces FLAGS ARGS...  runs this script again under `unshare FLAGS` with ARGS, shows its
#                                output and adds its checks to this script's (none run: a failure)
#   veth_pair                    inside `unshare -rn`: rgpud's side, 10.211.0.1 on rgpu-srv, joined to a
#                                nested network namespace ($NESTED, a sleeping process), 10.211.0.2 on
#                                rgpu-cli; sets DAEMON_HOST to rgpud's side
#   background OUT ERR CMD...    starts the client CMD (see client) with its stdout in OUT and stderr in
#                                ERR; sets BG to its process (CMD, `rgpu run` and nsenter -n exec)
#   finish                       prints "N passed, N failed" and sets the exit status
# The sourcing script sets BIN (the folder with rgpud and rgpu) first.
WORK=$(mktemp -d)
PIDS=()
# The daemons here read only the files the tests give them (--config), never an installed
# /etc/rgpu/rgpud.yaml: an empty RGPU_CONFIG names no file.
export RGPU_CONFIG=
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

client_exec() {
  [[ -n ${RGPU_TEST_PRELOAD:-} ]] && export LD_PRELOAD="$RGPU_TEST_PRELOAD ${LD_PRELOAD:-}"
  exec "$@"
}

DAEMON_HOST=127.0.0.1
start_daemon() {
  LOG=$WORK/rgpud.$RANDOM.log
  "$BIN/rgpud" --listen "$DAEMON_HOST:0" "$@" >"$LOG" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do
    PORT=$(sed -n "s/.*listening on ${DAEMON_HOST//./\\.}:\([0-9]*\).*/\1/p" "$LOG")
    [[ -n $PORT ]] && return 0
    sleep 0.05
  done
  echo "rgpud did not start:"
  cat "$LOG"
  return 1
}

start_server() {
  start_daemon "$@" || return 1
  export RGPU_SERVER=$DAEMON_HOST:$PORT
}

wait_log() {
  for _ in $(seq $((${3:-10} * 20))); do
    grep -qs "$2" "$1" && return 0
    sleep 0.05
  done
  return 1
}

check_tour() {
  local name; name=$(basename "$1")
  client timeout 60 "$BIN/rgpu" run -- "$1" >"$WORK/tour.out" 2>"$WORK/tour.err"
  local rc=$?
  [[ $rc == 0 ]] && grep -q "^ok: $name$" "$WORK/tour.out"
  check "$name through rgpu run" $? "$(grep -v '^ok' "$WORK/tour.out" | head; head "$WORK/tour.err")"
}

check_tour_stderr() {
  grep -q "$2" "$WORK/tour.err"
  check "$1" $? "$(head "$WORK/tour.err")"
}

check_daemon_log() {
  grep -q "$2" "$LOG"
  check "$1" $?
}

# Port 1 on loopback: nothing listens there.
check_no_server() {
  local name=$1
  shift
  RGPU_SERVER=127.0.0.1:1 client timeout 60 "$BIN/rgpu" run -- "$@" >"$WORK/ns.out" 2>&1
  check "$name" $? "$(head "$WORK/ns.out")"
}

# `rgpu run` preloads the shims; programs that find the libraries by name need only its LD_LIBRARY_PATH.
check_no_preload() {
  local name; name=$(basename "$1")
  client timeout 60 "$BIN/rgpu" run --no-preload -- "$1" >"$WORK/$name.no_preload.out" 2>&1
  check "$name through rgpu run --no-preload" $? "$(grep -v '^ok' "$WORK/$name.no_preload.out" | head)"
}

# Counted by the client's RGPU_STATS=1 line at exit ("rgpu: N calls sent without waiting, M round trips, T ms waiting
# for them").
check_round_trips() {
  local name=$1 want=$2 ok=$3 out=$WORK/rt.$RANDOM
  shift 3
  RGPU_STATS=1 client timeout 60 "$BIN/rgpu" run -- "$@" >"$out.out" 2>"$out.err"
  local rc=$?
  [[ $rc == 0 ]] && grep -q "$ok" "$out.out" && grep -q ", $want round trips, " "$out.err"
  check "$name" $? "$(cat "$out.out" "$out.err" | head)"
}

in_namespaces() {
  local flags=$1 out=$WORK/ns.$RANDOM.out
  shift
  unshare "$flags" bash "$0" "$@" >"$out" 2>&1
  cat "$out"
  passed=$((passed + $(grep -c '^ok: ' "$out")))
  failed=$((failed + $(grep -c '^FAIL: ' "$out")))
  grep -q '^ok: ' "$out" || check "the part under unshare $flags ran a check" 1
}

veth_pair() {
  ip link set lo up
  ip link add rgpu-srv type veth peer name rgpu-cli
  unshare -n sleep 300 &
  NESTED=$!
  PIDS+=($NESTED)
  sleep 0.2
  ip link set rgpu-cli netns "$NESTED"
  ip addr add 10.211.0.1/24 dev rgpu-srv
  ip link set rgpu-srv up
  nsenter -t "$NESTED" -n ip addr add 10.211.0.2/24 dev rgpu-cli
  nsenter -t "$NESTED" -n ip link set rgpu-cli up
  nsenter -t "$NESTED" -n ip link set lo up
  DAEMON_HOST=10.211.0.1
}

# The session workers among rgpud $1's children, one pid a line. rgpud also runs a short-lived
# GPU health probe of itself every RGPU_GPU_HEALTH_S (`rgpud --gpu-health`): a test that took it for
# a worker would kill the probe and leave the session it meant to end running.
session_workers() {
  local pid
  for pid in $(pgrep -P "$1"); do
    grep -qa -- --gpu-health /proc/"$pid"/cmdline 2>/dev/null || echo "$pid"
  done
  return 0
}

background() {
  local out=$1 err=$2
  shift 2
  # Emptied before the fork: a wait_log right after this must not read the last client's lines
  # while the new one's redirections are not open yet.
  : >"$out"
  : >"$err"
  (client_exec "$@" >"$out" 2>"$err") &
  BG=$!
  PIDS+=($BG)
}

finish() {
  echo "$passed passed, $failed failed"
  [[ $failed == 0 ]]
}
