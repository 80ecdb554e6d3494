#!/usr/bin/env bash
# The same-host transport end to end: rgpud listening on loopback TCP and a Unix socket at once,
# CUDA programs (built with nvcc -cudart shared) through `rgpu run` with RGPU_SERVER=unix:PATH,
# copies through shared memory (pinned memory shared, pageable staged) and, with sharing off, striped
# over the socket, the pool view's pid from the kernel, clients killed idle and
# mid-copy, the token, and the socket file's life (removed at exit, a stale one replaced, a
# non-socket refused); the call pipe through shared-memory rings, or (RGPU_SHM_PIPE=0) the socket. run_fault_tests.sh --unix injects the server's faults over the socket.
#
# Usage: run_unix_tests.sh <bin-dir> <programs-dir> [backend]   (as run_daemon_tests.sh)
set -uo pipefail

BIN=$1
PROGS=$2
BACKEND=${3:-emulated}
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

SOCK=$WORK/rgpud.sock
start_daemon --backend "$BACKEND" --listen "unix:$SOCK" || exit 1
RGPUD=${PIDS[-1]}
check_daemon_log "rgpud says it listens on TCP and the Unix socket" "listening on 127\.0\.0\.1:$PORT and unix:$SOCK "
[[ -S $SOCK ]]
check "the socket file exists" $?
export RGPU_SERVER=unix:$SOCK

# 1. Programs over the Unix socket: the API tour, large copies through shared staging, and (sharing
# off) on the pipe and striped.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour.out" 2>&1
check "api_tour through rgpu run over the Unix socket" $? "$(grep -v '^ok' "$WORK/tour.out" | head -20)"
client timeout 120 "$BIN/rgpu" run -- "$PROGS/big_copies" >"$WORK/big0.out" 2>&1
check "large copies through shared staging over the Unix socket" $? "$(tail -3 "$WORK/big0.out")"
export RGPU_SHARED_MEMORY=0
RGPU_STRIPES=1 client timeout 120 "$BIN/rgpu" run -- "$PROGS/big_copies" >"$WORK/big1.out" 2>&1
check "large copies on the pipe over the Unix socket" $? "$(tail -3 "$WORK/big1.out")"
RGPU_STRIPES=4 RGPU_STRIPE_MIN_MB=1 client timeout 120 "$BIN/rgpu" run -- "$PROGS/big_copies" >"$WORK/big4.out" 2>&1
rc=$?
[[ $rc == 0 ]] && ! grep -q "not be striped\|stripe connection failed" "$WORK/big4.out"
check "large copies striped over 4 Unix-socket connections" $? "$(tail -3 "$WORK/big4.out")"
unset RGPU_SHARED_MEMORY
# (Its call pipe over shared memory: "on shm, paired over unix pid=...".)
grep -Eq "session [0-9]* start: .* on (shm, paired over )?unix pid=[0-9]* uid=$(id -u) gid=$(id -g) \(" "$LOG"
check "the daemon's log names a Unix client by its credentials" $? "$(grep "session" "$LOG" | tail -2)"

# 1'. The call pipe itself: through shared-memory rings by default (transports/shm/README.md), on
# the socket with RGPU_SHM_PIPE=0 on either end. ctest runs this whole script a second time with
# RGPU_SHM_PIPE=0 (integration_unix_emulated_socket_pipe), so every program above also ran there.
if [[ ${RGPU_SHM_PIPE:-1} != 0 ]]; then
  grep -q "call pipe over shared memory (2 rings of 4096 KiB) with unix" "$LOG"
  check "rgpud's log says the Unix sessions' call pipes went through shared memory" $? "$(grep "call pipe" "$LOG" | tail -2)"
  RGPU_LOG=debug client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour_info.out" 2>&1
  rc=$?
  [[ $rc == 0 ]] && grep -q "call pipe over shared memory" "$WORK/tour_info.out"
  check "the client says so at RGPU_LOG=debug" $? "rc $rc: $(grep -i "pipe\|error" "$WORK/tour_info.out" | head -3)"
  RGPU_SHM_PIPE=0 client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour_off.out" 2>&1
  check "RGPU_SHM_PIPE=0 on the client: the API tour on the socket" $? "$(grep -v '^ok' "$WORK/tour_off.out" | head -5)"
  RGPU_SHM_PIPE=0 "$BIN/rgpud" --backend "$BACKEND" --listen "unix:$WORK/noshm.sock" >"$WORK/noshm.log" 2>&1 &
  PIDS+=($!)
  wait_log "$WORK/noshm.log" "listening on"
  RGPU_SERVER=unix:$WORK/noshm.sock client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour_noshm.out" 2>&1
  rc=$?
  [[ $rc == 0 ]] && grep -q "stays on the socket: RGPU_SHM_PIPE=0 on rgpud" "$WORK/noshm.log"
  check "RGPU_SHM_PIPE=0 on rgpud: it declines, says so, and the API tour runs on the socket" $? \
    "rc $rc: $(grep -v '^ok' "$WORK/tour_noshm.out" | head -5; grep "pipe" "$WORK/noshm.log" | tail -2)"
  RGPU_SERVER=127.0.0.1:$PORT RGPU_LOG=debug client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour_tcp.out" 2>&1
  rc=$?
  [[ $rc == 0 ]] && ! grep -q "call pipe over shared memory\\|stays on the socket" "$WORK/tour_tcp.out"
  check "a TCP client is unchanged: no shared-memory pipe" $? "rc $rc: $(grep "call pipe" "$WORK/tour_tcp.out" | head -3)"
else
  ! grep -q "call pipe over shared memory" "$LOG"
  check "RGPU_SHM_PIPE=0: no session's call pipe went through shared memory" $? "$(grep "call pipe" "$LOG" | tail -2)"
fi

# 1a. External memory and semaphores: their descriptors reach the session over the socket, and are
# refused over TCP (external_resources.cu says what each check is).
client timeout 60 "$BIN/rgpu" run -- "$PROGS/external_resources" >"$WORK/external.out" 2>&1
check "external memory and semaphores over the Unix socket" $? "$(grep -v '^ok' "$WORK/external.out" | head -5)"
RGPU_SERVER=127.0.0.1:$PORT client timeout 60 "$BIN/rgpu" run -- "$PROGS/external_resources" tcp >"$WORK/external_tcp.out" 2>&1
check "external memory and semaphores refused over loopback TCP" $? "$(grep -v '^ok' "$WORK/external_tcp.out" | head -5)"

# 1a'. A memory pool shared between two processes (pool_sharing.cu forks its importer): over the Unix
# socket, and over TCP (the descriptor is relayed on the server, whatever the clients ride).
client timeout 60 "$BIN/rgpu" run -- "$PROGS/pool_sharing" >"$WORK/pools.out" 2>&1
check "a pool shared between two processes over the Unix socket" $? "$(grep -v '^ok' "$WORK/pools.out" | head -5)"
RGPU_SERVER=127.0.0.1:$PORT client timeout 60 "$BIN/rgpu" run -- "$PROGS/pool_sharing" >"$WORK/pools_tcp.out" 2>&1
check "a pool shared between two processes over loopback TCP" $? "$(grep -v '^ok' "$WORK/pools_tcp.out" | head -5)"

# 1a''. A child forked after its parent used CUDA: its calls fail as CUDA's do there, it exits
# cleanly, and the parent's session, whose rings (or socket) the child inherited, goes on.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/fork_child" >"$WORK/fork.out" 2>"$WORK/fork.err"
rc=$?
[[ $rc == 0 ]] && grep -q "^ok: fork_child$" "$WORK/fork.out" && grep -q "start the child with exec" "$WORK/fork.err"
check "a forked child is refused and its parent goes on over the Unix socket" $? "$(cat "$WORK/fork.out" "$WORK/fork.err" | head -8)"
RGPU_SERVER=127.0.0.1:$PORT client timeout 60 "$BIN/rgpu" run -- "$PROGS/fork_child" >"$WORK/fork_tcp.out" 2>&1
check "a forked child is refused and its parent goes on over loopback TCP" $? "$(head -8 "$WORK/fork_tcp.out")"

# 1b. Pinned memory shared with the session (client/runtime/shared_host.h) and pageable copies
# staged through shared chunks (staged_copy.h): copies come back right at every size and offset,
# sync and async, and none of their bytes crosses the socket (the session's traffic, from its end
# line: the program moves about 3 GiB; copies below 1 MiB of pageable memory still ride the socket).
# Again with chunks of 1 MiB, two of them: many turns of the ring. With sharing off, or refused by
# rgpud, they take the socket and come back right as well; the refusal is said once.
ends() { grep -c "session [0-9]* end (" "$1"; }
# Runs PROGRAM ARGS... against rgpud's log $1 and prints "IN OUT" (MiB) of the session it made.
traffic_of() {
  local log=$1 before
  shift
  before=$(ends "$log")
  client timeout 120 "$BIN/rgpu" run -- "$@" >"$WORK/traffic.out" 2>&1 || { cat "$WORK/traffic.out"; return 1; }
  for _ in $(seq 200); do (($(ends "$log") > before)) && break; sleep 0.05; done
  sed -n 's/.*session [0-9]* end (.* calls, \([0-9.]*\) MiB in, \([0-9.]*\) MiB out.*/\1 \2/p' "$log" | tail -1
}
read -r in out < <(traffic_of "$LOG" "$PROGS/shared_copies")
grep -q "ok: shared_copies" "$WORK/traffic.out" && [[ -n $in ]] && awk -v i="$in" -v o="$out" 'BEGIN { exit !(i < 8 && o < 8) }'
check "copies through shared memory: right, and off the socket ($in MiB in, $out MiB out)" $? "$(tail -5 "$WORK/traffic.out")"
# Its stream synchronisations behind copies into shared pinned memory are answered through a word of
# a shared page (client/runtime/stream_sync.cpp): the bytes it checks right after are there.
RGPU_STATS=1 client timeout 120 "$BIN/rgpu" run -- "$PROGS/shared_copies" >"$WORK/signals.out" 2>&1
signalled=$(sed -n 's/.*; \([0-9]*\) of the round trips were stream waits answered through shared memory$/\1/p' "$WORK/signals.out")
grep -q "ok: shared_copies" "$WORK/signals.out" && [[ -n $signalled ]] && ((signalled > 0))
check "stream waits answered through shared memory (${signalled:-none} of them), the bytes there after each" $? \
  "$(tail -5 "$WORK/signals.out")"
# The counted program (round_trips.cu: 9 round trips over TCP) makes one more here, the sharing of
# the signal page, and its stream and event synchronisations and 4-byte D2H copy are answered
# through it (a watch long enough that no busy machine runs it out).
RGPU_STATS=1 RGPU_REPLY_POLL_US=200000 client timeout 60 "$BIN/rgpu" run -- "$PROGS/round_trips" >"$WORK/signal_rt.out" 2>&1
grep -q "^ok: round_trips" "$WORK/signal_rt.out" &&
  grep -q ", 10 round trips, .*; 3 of the round trips were stream waits answered through shared memory$" "$WORK/signal_rt.out"
check "a stream and an event synchronisation and a 4-byte D2H copy answered through shared memory" $? \
  "$(tail -3 "$WORK/signal_rt.out")"
RGPU_STREAM_SIGNALS=0 RGPU_STATS=1 client timeout 60 "$BIN/rgpu" run -- "$PROGS/round_trips" >"$WORK/signal_off.out" 2>&1
grep -q "^ok: round_trips" "$WORK/signal_off.out" &&
  grep -q ", 9 round trips, .*; 0 of the round trips were stream waits answered through shared memory$" "$WORK/signal_off.out"
check "RGPU_STREAM_SIGNALS=0: all three answered by replies, 9 round trips" $? "$(tail -3 "$WORK/signal_off.out")"
# A compute-sliced session's gate must see each wait: the first signal is told "never", and the
# rest of its waits go straight to their calls (one signal more than with signals off, and the page).
RGPU_COMPUTE=50 RGPU_STATS=1 RGPU_REPLY_POLL_US=200000 client timeout 60 "$BIN/rgpu" run -- "$PROGS/round_trips" \
  >"$WORK/signal_gated.out" 2>&1
grep -q "^ok: round_trips" "$WORK/signal_gated.out" &&
  grep -q ", 11 round trips, .*; 0 of the round trips were stream waits answered through shared memory$" "$WORK/signal_gated.out"
check "a compute-sliced session: one signal told never, then its waits are calls (11 round trips)" $? \
  "$(tail -3 "$WORK/signal_gated.out")"
read -r in out < <(RGPU_STAGING_CHUNK_MB=1 RGPU_STAGING_CHUNKS=2 traffic_of "$LOG" "$PROGS/shared_copies")
grep -q "ok: shared_copies" "$WORK/traffic.out" && [[ -n $in ]] && awk -v i="$in" -v o="$out" 'BEGIN { exit !(i < 8 && o < 8) }'
check "the same through a ring of two 1 MiB chunks ($in MiB in, $out MiB out)" $? "$(tail -5 "$WORK/traffic.out")"
read -r in out < <(RGPU_SHARED_MEMORY=0 traffic_of "$LOG" "$PROGS/shared_copies")
grep -q "ok: shared_copies" "$WORK/traffic.out" && [[ -n $in ]] && awk -v i="$in" 'BEGIN { exit !(i > 400) }'
check "RGPU_SHARED_MEMORY=0: the same copies through the socket ($in MiB in)" $? "$(tail -5 "$WORK/traffic.out")"
RGPU_ACCEPT_SHARED_MEMORY=0 "$BIN/rgpud" --backend "$BACKEND" --listen "unix:$WORK/noshare.sock" >"$WORK/noshare.log" 2>&1 &
PIDS+=($!)
wait_log "$WORK/noshare.log" "listening on"
read -r in out < <(RGPU_SERVER=unix:$WORK/noshare.sock traffic_of "$WORK/noshare.log" "$PROGS/shared_copies")
grep -q "ok: shared_copies" "$WORK/traffic.out" && [[ $(grep -c "pinned memory is not shared with rgpud" "$WORK/traffic.out") == 1 ]] &&
  [[ -n $in ]] && awk -v i="$in" 'BEGIN { exit !(i > 400) }'
check "rgpud refusing shared memory: one line says so, and the copies go through the socket ($in MiB in)" $? \
  "$(tail -5 "$WORK/traffic.out")"
# 1b, continued. Mapped memory in shared pinned memory is the client's own pages (shared_host.h): native
# semantics, and per synchronisation no read-back call (10 more rounds, 30 more calls: two device
# writes and the synchronisation; with a mirror, a read-back each would make it 40; a session's
# total varies by a call or so between runs, around its start and end). The synchronisation is the
# call itself here (RGPU_STREAM_SIGNALS=0): a stream signal whose watch runs out on a busy machine
# is followed by that call, one more.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/mapped_memory" shared >"$WORK/mapped_shared.out" 2>&1
check "mapped memory in shared pages behaves as natively (mapped_memory shared)" $? \
  "$(grep -v '^ok' "$WORK/mapped_shared.out" | head -10)"
calls_of() {
  local before
  before=$(ends "$LOG")
  RGPU_STREAM_SIGNALS=0 client timeout 60 "$BIN/rgpu" run -- "$PROGS/mapped_memory" sync_rounds "$1" >"$WORK/rounds.out" 2>&1 ||
    return 1
  for _ in $(seq 200); do (($(ends "$LOG") > before)) && break; sleep 0.05; done
  sed -n 's/.*session [0-9]* end (.*, \([0-9]*\) calls, .*/\1/p' "$LOG" | tail -1
}
c10=$(calls_of 10) && c20=$(calls_of 20) && [[ -n $c10 && -n $c20 ]] && (( c20 - c10 > 25 && c20 - c10 < 35 ))
check "mapped memory in shared pages needs no read-back ($c10 calls for 10 rounds, ${c20:-} for 20)" $? \
  "$(tail -3 "$WORK/rounds.out")"
# Over TCP nothing is shared, and the program holds there too.
RGPU_SERVER=127.0.0.1:$PORT client timeout 120 "$BIN/rgpu" run -- "$PROGS/shared_copies" >"$WORK/tcp.out" 2>&1
check "the same program over loopback TCP" $? "$(tail -5 "$WORK/tcp.out")"

# 1c. RGPU_SERVER unset: the client takes rgpud's socket at RGPU_UNIX_SOCKET when one is there, and
# shares its memory over it.
read -r in out < <(
  unset RGPU_SERVER
  export RGPU_UNIX_SOCKET=$SOCK
  traffic_of "$LOG" "$PROGS/shared_copies"
)
grep -q "ok: shared_copies" "$WORK/traffic.out" && [[ -n $in ]] && awk -v i="$in" -v o="$out" 'BEGIN { exit !(i < 8 && o < 8) }'
check "RGPU_SERVER unset: the client finds rgpud's Unix socket and shares memory over it ($in MiB in, $out MiB out)" $? \
  "$(tail -5 "$WORK/traffic.out")"

RGPU_SERVER=unix:$WORK/nobody.sock client timeout 60 "$BIN/rgpu" run -- "$PROGS/no_server" >"$WORK/none.out" 2>&1
rc=$?
[[ $rc == 0 ]] && grep -q "cannot connect to unix:$WORK/nobody.sock" "$WORK/none.out"
check "no socket file: CUDA's no-device answers and one line naming the address" $? "rc $rc: $(head -5 "$WORK/none.out")"

# 2. A client holding memory: `rgpu ls` and `rgpu pool` over the socket show its session with the
# pid the kernel gave rgpud; killed, its session ends and the memory is freed.
(
  [[ -n ${RGPU_TEST_PRELOAD:-} ]] && export LD_PRELOAD=$RGPU_TEST_PRELOAD
  exec "$BIN/rgpu" run -- "$PROGS/hold_memory" 1024 >"$WORK/hold.out" 2>&1
) &
holder=$!
for _ in $(seq 400); do grep -q holding "$WORK/hold.out" && break; sleep 0.05; done
grep -q "holding 1024 MiB" "$WORK/hold.out"
check "a client over the Unix socket holds 1024 MiB" $? "$(cat "$WORK/hold.out")"
client timeout 20 "$BIN/rgpu" pool --json >"$WORK/pool.json" 2>&1
python3 - "$WORK/pool.json" "$holder" <<'PY'
import json, sys
view = json.load(open(sys.argv[1]))
pids = [s["pid"] for s in view["sessions"]]
sys.exit(0 if pids == [int(sys.argv[2])] else 1)
PY
check "rgpu pool over the Unix socket shows the session with the client's pid" $? "$(head -c 600 "$WORK/pool.json")"
client timeout 20 "$BIN/rgpu" ls >"$WORK/ls.out" 2>&1
grep -q ":$holder " "$WORK/ls.out"
check "rgpu ls over the Unix socket lists the session" $? "$(cat "$WORK/ls.out")"
{ kill -9 $holder && wait $holder; } 2>/dev/null
wait_log "$LOG" "end (client disconnected).*freed 1024.0 MiB in 1 allocations"
check "a killed Unix-socket client: its session ended and its 1024 MiB were freed" $? "$(tail -3 "$LOG")"

# 2b. A client killed in the middle of its copies (mid-call, with frames half sent): the session ends,
# as a disconnection or as a frame cut short ("... was shut down (receive after N of M bytes)"),
# whichever the kill interrupted.
ended() { grep -c "session [0-9]* end (" "$LOG"; }
# killed_mid_copy WHAT ARGS...: copy_loop ARGS... killed in the middle of its copies ends its session.
killed_mid_copy() {
  local what=$1 ended_before copier
  shift
  ended_before=$(ended)
  (
    [[ -n ${RGPU_TEST_PRELOAD:-} ]] && export LD_PRELOAD=$RGPU_TEST_PRELOAD
    exec "$BIN/rgpu" run -- "$PROGS/copy_loop" "$@" >"$WORK/copy.out" 2>&1
  ) &
  copier=$!
  wait_log "$WORK/copy.out" copying 20
  sleep 0.3
  { kill -9 $copier && wait $copier; } 2>/dev/null
  for _ in $(seq 200); do (($(ended) > ended_before)) && break; sleep 0.05; done
  (($(ended) > ended_before))
  check "$what: its session ends" $? "$(tail -3 "$LOG")"
}
killed_mid_copy "a Unix-socket client killed mid-copy (pageable memory, staged)" 60 16384
# With its buffers pinned and shared; then the next client's pinned copies work.
killed_mid_copy "a client killed mid-copy of shared pinned memory" 60 65536 pinned
client timeout 60 "$BIN/rgpu" run -- "$PROGS/copy_loop" 0 4096 pinned >"$WORK/copy2.out" 2>&1
check "and the next client's pinned copies come back right" $? "$(tail -3 "$WORK/copy2.out")"

# 3. The socket file's life: rgpud removes it when stopped; a file left by a killed rgpud is
# replaced by the next; a path that is not a socket is refused and left alone.
kill "$RGPUD"
wait "$RGPUD" 2>/dev/null
[[ ! -e $SOCK ]]
check "a stopped rgpud removed its socket file" $?
start_daemon --backend "$BACKEND" --listen "unix:$SOCK" || exit 1
kill -9 "${PIDS[-1]}"
wait "${PIDS[-1]}" 2>/dev/null
[[ -S $SOCK ]]
check "a killed rgpud leaves its socket file" $?
start_daemon --backend "$BACKEND" --listen "unix:$SOCK" || exit 1
check_daemon_log "the next rgpud replaces the stale file" "removing a stale socket file"
client timeout 20 "$BIN/rgpu" ls >"$WORK/ls2.out" 2>&1
check "and serves on it" $? "$(cat "$WORK/ls2.out")"
echo "not a socket" >"$WORK/file"
timeout 10 "$BIN/rgpud" --backend "$BACKEND" --listen "unix:$WORK/file" >"$WORK/file.out" 2>&1
rc=$?
[[ $rc == 1 ]] && grep -q "exists and is not a socket" "$WORK/file.out" && [[ $(cat "$WORK/file") == "not a socket" ]]
check "a path that is not a socket is refused and left alone" $? "rc $rc: $(cat "$WORK/file.out")"

# 4. The token is required over the Unix socket as over loopback TCP, when one is configured.
RGPU_TOKEN=secret "$BIN/rgpud" --backend "$BACKEND" --listen "unix:$WORK/tok.sock" >"$WORK/tok.log" 2>&1 &
PIDS+=($!)
wait_log "$WORK/tok.log" "listening on"
RGPU_SERVER=unix:$WORK/tok.sock RGPU_TOKEN=wrong client timeout 10 "$BIN/rgpu" ls >"$WORK/tok.out" 2>&1
rc=$?
[[ $rc != 0 ]] && grep -q "RGPU_TOKEN" "$WORK/tok.out"
check "a wrong token over the Unix socket is refused" $? "rc $rc: $(cat "$WORK/tok.out")"
RGPU_SERVER=unix:$WORK/tok.sock RGPU_TOKEN=secret client timeout 10 "$BIN/rgpu" ls >"$WORK/tok2.out" 2>&1
check "the right token over the Unix socket is taken" $? "$(cat "$WORK/tok2.out")"

finish
