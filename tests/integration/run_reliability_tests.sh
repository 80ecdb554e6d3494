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

# The cut-network part, run by the main part in a user and network namespace of its own: rgpud
# there, a client in a namespace nested in it, joined by a veth pair whose link the test takes down.
if [[ ${4:-} == --cut-network ]]; then
  veth_pair
  RGPU_TOKEN=cut start_daemon --backend "$BACKEND" || exit 1
  background "$WORK/cut_hold.out" "$WORK/cut_hold.err" nsenter -t "$NESTED" -n \
    env RGPU_SERVER="$DAEMON_HOST:$PORT" RGPU_TOKEN=cut "$BIN/rgpu" run -- "$PROGS/hold_memory" 64
  for _ in $(seq 400); do grep -q holding "$WORK/cut_hold.out" && break; sleep 0.05; done
  grep -q "holding 64 MiB" "$WORK/cut_hold.out"
  check "a client across a veth link holds a session" $? "$(cat "$WORK/cut_hold.out" "$WORK/cut_hold.err"; tail -3 "$LOG")"
  grep -q "start: .* on tls 10\.211\.0\.2:" "$LOG"
  check "a client from another address speaks TLS by default (RGPU_TLS=auto)" $? "$(grep start: "$LOG")"
  start=$(now_ms)
  ip link set rgpu-srv down
  wait_log "$LOG" "end (the client stopped answering" 30
  rc=$?
  echo "   (rgpud freed the cut-off session after $(($(now_ms) - start)) ms)"
  check "network cut: rgpud frees the vanished client's session" $rc "$(tail -3 "$LOG")"
  wait_log "$WORK/cut_hold.err" "lost the session with rgpud" 30
  check "network cut: the client says it lost its server" $? "$(cat "$WORK/cut_hold.err")"
  finish
  exit
fi

# 1. A flood of idle connections forks no worker, and a real client still gets in while it lasts.
start_server --backend "$BACKEND" || exit 1
RGPUD=${PIDS[-1]}
"$PROGS/idle_connections" "127.0.0.1:$PORT" "$FLOOD" 60 >"$WORK/flood.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 600); do [[ -s $WORK/flood.out ]] && break; sleep 0.05; done
held=$(sed -n 's/^holding \([0-9]*\) idle.*/\1/p' "$WORK/flood.out")
[[ -n $held && $held -ge 2048 ]]
check "the flood holds ${held:-0} idle connections (asked for $FLOOD)" $? "$(cat "$WORK/flood.out")"
workers=$(session_workers "$RGPUD" | wc -l)
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
background "$WORK/hold.out" "$WORK/hold.err" "$BIN/rgpu" run -- "$PROGS/hold_memory" 64
holder=$BG
for _ in $(seq 400); do grep -q holding "$WORK/hold.out" && break; sleep 0.05; done
grep -q "holding 64 MiB" "$WORK/hold.out"
check "a client holds a session" $? "$(cat "$WORK/hold.out" "$WORK/hold.err")"
workers=$(session_workers "$RGPUD")
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
RGPUD=$!
PIDS+=($RGPUD)
wait_log "$WORK/again.log" "listening on"
client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/again.out" 2>&1
check "a restarted rgpud serves on the same port" $? "$(grep -v '^ok' "$WORK/again.out" | head; tail -3 "$WORK/again.log")"

# 4. TLS: a daemon that takes TLS only serves a client over it, through the worker it forks with
# the session the handshake loop began; big copies come back byte for byte (not striped: stripes
# are plain TCP only), the server proving the token back; a plain TCP client is told how to connect.
RGPU_TOKEN=tls-token start_daemon --backend "$BACKEND" --tls on || exit 1
export RGPU_TOKEN=tls-token
TLS_SERVER=127.0.0.1:$PORT
RGPU_SERVER=$TLS_SERVER RGPU_TLS=on RGPU_STRIPE_MIN_MB=1 \
  client timeout 120 "$BIN/rgpu" run -- "$PROGS/big_copies" >"$WORK/tls_big.out" 2>&1
check "TLS: big copies through rgpud come back byte for byte" $? "$(tail -3 "$WORK/tls_big.out"; tail -3 "$LOG")"
! grep -q "not be striped" "$WORK/tls_big.out"
check "TLS: the client does not try to stripe" $? "$(grep striped "$WORK/tls_big.out")"
RGPU_SERVER=$TLS_SERVER RGPU_TLS=on client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tls_tour.out" 2>&1
check "TLS: a CUDA program runs over TLS" $? "$(grep -v '^ok' "$WORK/tls_tour.out" | head)"
RGPU_SERVER=$TLS_SERVER RGPU_TLS=on RGPU_TOKEN=wrong client timeout 60 "$BIN/rgpu" ls >"$WORK/tls_wrong.out" 2>&1
[[ $? != 0 ]] && grep -q "does not match" "$WORK/tls_wrong.out"
check "TLS: a wrong token is refused" $? "$(cat "$WORK/tls_wrong.out")"
RGPU_SERVER=$TLS_SERVER RGPU_TLS=off client timeout 60 "$BIN/rgpu" ls >"$WORK/tls_plain.out" 2>&1
[[ $? != 0 ]] && grep -q "takes TLS only" "$WORK/tls_plain.out"
check "TLS: a plain TCP client is refused, told to use RGPU_TLS=on" $? "$(cat "$WORK/tls_plain.out")"
unset RGPU_TOKEN

# Starts keep_calling SECONDS in the background ($caller), waits until it calls, and sets $worker
# to its session's worker.
start_caller() {
  local before; before=$(session_workers "$RGPUD" | sort)
  client "$BIN/rgpu" run -- "$PROGS/keep_calling" "$1" >"$WORK/calls.out" 2>"$WORK/calls.err" &
  caller=$!
  PIDS+=($caller)
  for _ in $(seq 400); do grep -q calling "$WORK/calls.out" && break; sleep 0.05; done
  worker=$(comm -13 <(echo "$before") <(session_workers "$RGPUD" | sort) | head -1)
}

# Waits (bounded) for $caller to end; sets $took (ms) and $rc.
wait_caller() {
  local start; start=$(now_ms)
  for _ in $(seq 600); do kill -0 "$caller" 2>/dev/null || break; sleep 0.05; done
  took=$(($(now_ms) - start))
  wait "$caller"
  rc=$?
}

# 4. A hung server (its worker stopped): the client says so within RGPU_PEER_TIMEOUT_S (5 s), and
# the call waiting and every later one fail as CUDA's "devices unavailable".
start_caller 120
[[ -n $worker ]]
check "a calling client's worker is found" $? "$(cat "$WORK/calls.out" "$WORK/calls.err")"
kill -STOP "$worker"
wait_caller
echo "   (the client gave up on its stopped server after $took ms)"
[[ $rc == 3 ]] && grep -q "a call failed after .*cudaErrorDevicesUnavailable" "$WORK/calls.out" &&
  [[ $(grep -c "lost the session with rgpud" "$WORK/calls.err") == 1 ]] &&
  grep -q "not even a heartbeat" "$WORK/calls.err"
check "a stopped server: the client's calls fail as devices unavailable, with one line saying why" $? \
  "rc $rc: $(cat "$WORK/calls.out" "$WORK/calls.err")"
kill -9 "$worker" 2>/dev/null

# 5. A pause shorter than the timeout is no failure.
start_caller 6
kill -STOP "$worker"
sleep 2
kill -CONT "$worker"
wait_caller
[[ $rc == 0 ]] && grep -q "every call succeeded" "$WORK/calls.out"
check "a server paused for 2 s: the session goes on" $? "rc $rc: $(cat "$WORK/calls.out" "$WORK/calls.err")"

# 6. A legitimately long kernel never trips liveness: 60 s on a GPU; the emulated backend's kernels
# do not run, so there a daemon whose kernels each keep the device busy 12 s (over twice the 5 s
# timeout; RGPU_EMULATED_KERNEL_MS) stands in.
long_s=60
if [[ $BACKEND == emulated ]]; then
  long_s=12
  RGPU_EMULATED_KERNEL_MS=12000 start_server --backend "$BACKEND" || exit 1
fi
client timeout 120 "$BIN/rgpu" run -- "$PROGS/keep_calling" 1 $long_s >"$WORK/long.out" 2>"$WORK/long.err"
rc=$?
# (Success by name on a GPU; the emulated backend has no error names: "cudaError 0".)
took_s=$(sed -En "s/^a $long_s s kernel ended after ([0-9]+)\..* s: (cudaSuccess|cudaError 0)$/\1/p" "$WORK/long.out")
[[ $rc == 0 && -n $took_s ]] && ((took_s >= long_s - 1))
check "a $long_s s kernel: the session holds for the whole kernel" $? "rc $rc: $(cat "$WORK/long.out" "$WORK/long.err")"

# 6b. A session whose copy waits for its turn behind another tenant's long kernel: the worker
# reads no more of the copy meanwhile, so the client's data waits for a window that stays shut.
# Its server still sends heartbeats, so the client waits on: an unanswered send is not a vanished
# peer when the peer still talks (the H200 soak lost such a session as "acknowledged nothing").
# Here the wait is 8 s (a kernel of the emulated backend's kernel time, on a GPU a spinning one)
# against a timeout of 2 s.
cat >"$WORK/turns.yaml" <<YAML
tenants:
  - {name: spinner, token: tok-spinner, compute: 50, compute_limit: 100}
  - {name: copier, token: tok-copier, compute: 50, compute_limit: 100}
YAML
export RGPU_PEER_TIMEOUT_S=2
RGPU_EMULATED_KERNEL_MS=8000 start_server --backend "$BACKEND" --config "$WORK/turns.yaml" || exit 1
RGPU_TOKEN=tok-copier client timeout 60 "$BIN/rgpu" run -- "$PROGS/copy_loop" 12 16384 >"$WORK/copier.out" 2>&1 &
copier=$!
PIDS+=($copier)
wait_log "$WORK/copier.out" copying 20
RGPU_TOKEN=tok-spinner client timeout 60 "$BIN/rgpu" run -- "$PROGS/keep_calling" 1 8 >"$WORK/spinner.out" 2>&1
wait "$copier"
rc=$?
[[ $rc == 0 ]] && grep -q "every copy came back right" "$WORK/copier.out"
check "a copy that waits 8 s for its turn (its window shut, heartbeats coming): the session holds" $? \
  "rc $rc: $(cat "$WORK/copier.out"; cat "$WORK/spinner.out")"
unset RGPU_PEER_TIMEOUT_S

# 7. A cut network, both ways, inside network namespaces this test makes (skipped where the host
# has no `ip` or allows no unprivileged namespaces).
if command -v ip >/dev/null && unshare -rn true 2>/dev/null; then
  in_namespaces -rn "$BIN" "$PROGS" "$BACKEND" --cut-network
else
  echo "   (skipped: a cut network needs iproute2's ip and unprivileged network namespaces, which this host lacks)"
fi

finish
