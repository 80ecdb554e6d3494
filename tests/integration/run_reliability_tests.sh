#!/usr/bin/env bash
# Reliability: what unauthenticated peers cost rgpud, and what becomes of sessions when rgpud dies.
#
# Usage: run_reliability_tests.sh <bin-dir> <programs-dir> [backend]
#   as run_daemon_tests.sh. RGPU_TEST_IDLE (default 10000) sets the size of the flood.
set -uo pipefail

BIN=$1
PROGS=$2
BACKEND=${3:-emulated}
FLOOD=${RGPU_TEST_IDLE:-10000}
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# 1. A flood of idle connections forks no worker, and a real client still gets in while it lasts.
start_server --backend "$BACKEND" || exit 1
RGPUD=${PIDS[-1]}
"$PROGS/idle_connections" "127.0.0.1:$PORT" "$FLOOD" 60 >"$WORK/flood.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 600); do [[ -s $WORK/flood.out ]] && break; sleep 0.05; done
held=$(sed -n 's/^holding \([0-9]*\) idle.*/\1/p' "$WORK/flood.out")
[[ -n $held && $held -ge 2048 ]]
check "the flood holds ${held:-0} idle connections (asked for $FLOOD)" $? "$(cat "$WORK/flood.out")"
workers=$(pgrep -P "$RGPUD" | wc -l)
[[ $workers == 0 ]]
check "${held:-0} idle connections: no worker forked" $? "$workers children: $(pgrep -a -P "$RGPUD")"
fds=$(ls /proc/"$RGPUD"/fd | wc -l)
[[ $fds -lt 1200 ]]
check "rgpud holds $fds descriptors, not one per idle connection" $?
# A second flood arrives while the real client connects.
"$PROGS/idle_connections" "127.0.0.1:$PORT" "$FLOOD" 60 >"$WORK/flood2.out" 2>&1 &
PIDS+=($!)
start=$(now_ms)
client timeout 30 "$BIN/rgpu" ls >"$WORK/ls.out" 2>&1
rc=$?
took=$(($(now_ms) - start))
echo "   (a real client's \`rgpu ls\` during the flood took $took ms)"
check "during the flood a real client connects and is served" $rc "$(cat "$WORK/ls.out")"
client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour.out" 2>&1
check "during the flood a CUDA program runs through rgpu run" $? "$(grep -v '^ok' "$WORK/tour.out" | head)"
grep -q "dropped: rgpud has [0-9]* handshakes pending\|dropped: its address has [0-9]* handshakes pending" "$LOG"
check "rgpud says it drops pending handshakes past its bound" $? "$(tail -5 "$LOG")"
[[ $(grep -c "connection from .* dropped" "$LOG") -lt 10 ]]
check "the flood does not flood rgpud's log" $? "$(grep -c "connection from" "$LOG") lines"
kill "${PIDS[-1]}" "${PIDS[-2]}" 2>/dev/null

# 2. rgpud killed: its workers end with it, and their clients hear why at once.
(
  [[ -n ${RGPU_TEST_PRELOAD:-} ]] && export LD_PRELOAD=$RGPU_TEST_PRELOAD
  exec "$BIN/rgpu" run -- "$PROGS/hold_memory" 64 >"$WORK/hold.out" 2>"$WORK/hold.err"
) &
holder=$!
PIDS+=($holder)
for _ in $(seq 400); do grep -q holding "$WORK/hold.out" && break; sleep 0.05; done
grep -q "holding 64 MiB" "$WORK/hold.out"
check "a client holds a session" $? "$(cat "$WORK/hold.out" "$WORK/hold.err")"
workers=$(pgrep -P "$RGPUD")
[[ -n $workers ]]
check "its session has a worker" $?
kill -9 "$RGPUD"
wait_log "$WORK/hold.err" "lost the session with rgpud"
check "rgpud killed: the client says it lost its session" $? "$(cat "$WORK/hold.err")"
alive=""
for _ in $(seq 100); do
  alive=""
  for w in $workers; do kill -0 "$w" 2>/dev/null && alive+=" $w"; done
  [[ -z $alive ]] && break
  sleep 0.05
done
[[ -z $alive ]]
check "rgpud killed: no worker outlives it" $? "still alive:$alive"
kill -9 $holder 2>/dev/null

# 3. A restarted rgpud on the same port serves again.
"$BIN/rgpud" --listen "127.0.0.1:$PORT" --backend "$BACKEND" >"$WORK/again.log" 2>&1 &
PIDS+=($!)
wait_log "$WORK/again.log" "listening on"
client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/again.out" 2>&1
check "a restarted rgpud serves on the same port" $? "$(grep -v '^ok' "$WORK/again.out" | head; tail -3 "$WORK/again.log")"

finish
