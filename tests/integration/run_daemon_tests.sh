#!/usr/bin/env bash
# Daemon-level integration tests: real CUDA programs (built with nvcc -cudart shared) run through
# the client shim against a real rgpud on loopback.
#
# Usage: run_daemon_tests.sh <bin-dir> <programs-dir> [backend]
#   <bin-dir> holds rgpud and rgpu (with ../lib/rgpu/libcudart.so.13 beside it); backend is
#   "emulated" (default, CI) or "cuda" (a GPU host). Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
BACKEND=${3:-emulated}
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

export RGPU_MODULE_CACHE=$WORK/modules
start_server --backend "$BACKEND" || exit 1

# 1. A program that touches every runtime path, through `rgpu run`.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour.out" 2>&1
rc=$?
check "api_tour through rgpu run" $rc "$(grep -v '^ok' "$WORK/tour.out" | head -20)"
grep -qx "ok: a kernel launched, memory copied and freed at exit" "$WORK/tour.out"
check "a kernel launched by a static destructor at exit (after the thread's launch configurations are gone)" $?

# 1a. Mapped (zero-copy) host memory: exposure, the exchange of changes both ways, conflicts.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/mapped_memory" >"$WORK/mapped.out" 2>&1
check "mapped host memory (mapped_memory)" $? "$(grep -v '^ok' "$WORK/mapped.out" | head -20)"
# Two allocations read back after each synchronisation: 3 round trips of setup (2 exposures and
# cudaMalloc), then 1 a round: the two reads travel behind the synchronisation, no wait of their own.
for rounds in 1 10; do
  check_round_trips "mapped memory's read-backs cost no round trip of their own ($rounds rounds)" $((3 + rounds)) \
    "^ok: mapped_memory sync_rounds$" "$PROGS/mapped_memory" sync_rounds $rounds
done
# 1b. Graphs built node by node (kernel, host and empty nodes; ids, order, refusals).
client timeout 60 "$BIN/rgpu" run -- "$PROGS/graph_nodes_tour" >"$WORK/graph_nodes.out" 2>&1
check "graph_nodes_tour through rgpu run" $? "$(grep -v '^ok' "$WORK/graph_nodes.out" | head -20)"

# 1b. The driver's error log (cudaLogs*) and async notifications' handles; no slice, no budget.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/error_logs" >"$WORK/error_logs.out" 2>&1
check "error logs and async notifications (error_logs)" $? "$(grep -v '^ok' "$WORK/error_logs.out" | head -20)"

# 1b. Module upload by key: a miss (empty cache) makes the client send the image, which the server
# caches; the next client's module then loads from the cache.
ls "$RGPU_MODULE_CACHE"/*.bin >/dev/null 2>&1
check "the uploaded module is in the server's cache" $?
rm -f "$RGPU_MODULE_CACHE"/*.bin
RGPU_MODULE_BY_KEY_KB=0 client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour2.out" 2>&1
check "module offered by key, cache miss: the image follows" $? "$(grep -v '^ok' "$WORK/tour2.out" | head)"
RGPU_MODULE_BY_KEY_KB=0 client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour3.out" 2>&1
check "module offered by key, cache hit" $? "$(grep -v '^ok' "$WORK/tour3.out" | head)"

# 1c. Round trips: what CUDA answers without the GPU costs no traffic, async work does not wait
# (the expected 9 are listed in round_trips.cu); RGPU_SYNC=1 makes every call wait.
check_round_trips "a representative program makes exactly 9 round trips" 9 "^ok: round_trips" "$PROGS/round_trips"
RGPU_TRACE_WAITS=1 client timeout 60 "$BIN/rgpu" run -- "$PROGS/round_trips" >"$WORK/trace.out" 2>"$WORK/trace.err"
[[ $(grep -c "waits for the server$" "$WORK/trace.err") == 9 ]] &&
  grep -q "^rgpu: cudaStreamSynchronize waits for the server$" "$WORK/trace.err" &&
  grep -q "^rgpu: cudaEventSynchronize waits for the server$" "$WORK/trace.err" &&
  grep -q "^rgpu: rgpu's module upload waits for the server$" "$WORK/trace.err"
check "RGPU_TRACE_WAITS=1 names each of the 9 round trips" $? "$(head -12 "$WORK/trace.err")"
RGPU_SYNC=1 RGPU_STATS=1 client timeout 60 "$BIN/rgpu" run -- "$PROGS/round_trips" >"$WORK/rts.out" 2>"$WORK/rts.err"
rc=$?
[[ $rc == 0 ]] && grep -q "rgpu: 0 calls sent without waiting" "$WORK/rts.err"
check "RGPU_SYNC=1: no call goes without waiting" $? "$(cat "$WORK/rts.out" "$WORK/rts.err" | head)"

# 1c'. Scratch memory a library allocates and frees each step: a freed block comes back to the next
# cudaMalloc of its size without a round trip (7 in all, listed in freed_blocks.cu); what CUDA's
# cudaFree promises still holds, in a 256 MiB slice that kept blocks must not fill.
check_round_trips "per-step scratch cudaMalloc after the first step costs no round trip" 7 \
  "^ok: freed_blocks steps$" "$PROGS/freed_blocks" steps
RGPU_MEMORY=256M client timeout 60 "$BIN/rgpu" run -- "$PROGS/freed_blocks" semantics >"$WORK/freed.out" 2>&1
check "freed blocks kept for reuse: freed to the program, to cudaMemGetInfo and to a cudaMalloc that needs them" $? \
  "$(grep -v '^ok' "$WORK/freed.out" | head -20)"
RGPU_KEEP_FREED_MB=0 check_round_trips "RGPU_KEEP_FREED_MB=0 keeps none: a round trip per cudaMalloc" $((7 + 298)) \
  "^ok: freed_blocks steps$" "$PROGS/freed_blocks" steps

# 1d. Large copies, byte for byte: streamed through the staging ring on the pipe, and striped.
RGPU_STRIPES=1 client timeout 120 "$BIN/rgpu" run -- "$PROGS/big_copies" >"$WORK/big1.out" 2>&1
check "large copies on the pipe" $? "$(tail -3 "$WORK/big1.out")"
RGPU_STRIPES=4 RGPU_STRIPE_MIN_MB=1 client timeout 120 "$BIN/rgpu" run -- "$PROGS/big_copies" >"$WORK/big4.out" 2>&1
rc=$?
[[ $rc == 0 ]] && ! grep -q "not be striped\|stripe connection failed" "$WORK/big4.out"
check "large copies striped over 4 connections" $? "$(tail -3 "$WORK/big4.out")"

# 1e. Async D2H copies behind a 2 s kernel: the session answers meanwhile, and every byte has landed
# when the stream's event, the stream or the device is synchronised, on the pipe and striped (the
# emulated backend's kernels do not run: a daemon whose kernels keep the device busy 2 s stands in);
# host functions and stream callbacks behind copies, all issued before the first of them runs (the
# emulated backend defers them to a thread of its own behind a busy device, as the driver does), each
# find their copy landed.
first_port=$PORT first_log=$LOG
if [[ $BACKEND == emulated ]]; then
  RGPU_EMULATED_KERNEL_MS=2000 start_daemon --backend "$BACKEND" || exit 1
fi
for stripes in 1 4; do
  RGPU_SERVER=$DAEMON_HOST:$PORT RGPU_STRIPES=$stripes RGPU_STRIPE_MIN_MB=1 client timeout 120 "$BIN/rgpu" run -- \
    "$PROGS/async_landings" 2 >"$WORK/landings$stripes.out" 2>&1
  rc=$?
  [[ $rc == 0 ]] && ! grep -q "not be striped\|stripe connection failed" "$WORK/landings$stripes.out"
  check "async D2H copies behind a long kernel, and host functions behind them (RGPU_STRIPES=$stripes)" $? "$(tail -3 "$WORK/landings$stripes.out")"
done
if [[ $BACKEND == emulated ]]; then
  # The same daemon's 2 s kernels: cudaFree's synchronisation, which a kept block's free skips,
  # happens when a cudaMalloc takes the block back (client/runtime/freed_blocks.h).
  RGPU_SERVER=$DAEMON_HOST:$PORT client timeout 60 "$BIN/rgpu" run -- "$PROGS/freed_blocks" reuse >"$WORK/reuse.out" 2>&1
  check "a cudaMalloc taking back a block freed under a running kernel returns it once the kernel ended" $? \
    "$(grep -v '^ok' "$WORK/reuse.out" | head -5)"
  kill "${PIDS[-1]}" 2>/dev/null
  PORT=$first_port LOG=$first_log
fi

# 1f. The pool bench's spin worker started after its window (its session queued, or a slow
# start-up; --epoch 0 puts the window long in the past) says so and fails, printing no bins.
WORKER=$BIN/../libexec/rgpu/rgpu-bench-worker
if [[ -x $WORKER ]]; then
  client timeout 60 "$BIN/rgpu" run -- "$WORKER" spin --kernel-us 1000 --sync-every 8 --duration 1 --epoch 0 \
    >"$WORK/late.out" 2>"$WORK/late.err"
  rc=$?
  [[ $rc == 1 ]] && grep -q "past its 1000 ms window" "$WORK/late.err" && ! grep -q "^bins" "$WORK/late.out"
  check "a spin worker that starts after its window says so" $? "(rc $rc) $(tail -3 "$WORK/late.err")"
fi

# 2. No server: one clear line and CUDA's no-device answers, at once.
RGPU_SERVER=127.0.0.1:1 client timeout 10 "$BIN/rgpu" run -- "$PROGS/no_server" >"$WORK/none.out" 2>"$WORK/none.err"
rc=$?
check "no server: cudaErrorNoDevice" $rc "$(cat "$WORK/none.out")"
[[ $(grep -c 'rgpu: no GPU available' "$WORK/none.err") == 1 ]]
check "no server: exactly one message" $? "$(cat "$WORK/none.err")"

# 2b. A port that accepts but never answers (no rgpud there): the client gives up, no hang.
if command -v python3 >/dev/null; then
  python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); print(s.getsockname()[1], flush=True)
c,_=s.accept(); time.sleep(30)' >"$WORK/silent.port" &
  PIDS+=($!)
  for _ in $(seq 100); do [[ -s $WORK/silent.port ]] && break; sleep 0.05; done
  RGPU_SERVER=127.0.0.1:$(cat "$WORK/silent.port") RGPU_HANDSHAKE_TIMEOUT_S=1 client timeout 20 \
    "$BIN/rgpu" run -- "$PROGS/no_server" >"$WORK/silent.out" 2>"$WORK/silent.err"
  rc=$?
  [[ $rc == 0 ]] && grep -q "no handshake" "$WORK/silent.err"
  check "a silent server: no-device answers after the handshake timeout" $? "$(cat "$WORK/silent.err")"
fi

# 3. A client killed mid-run: its session ends and its memory is freed.
before=""
[[ $BACKEND == cuda ]] && before=$(client timeout 30 "$BIN/rgpu" run -- "$PROGS/mem_info")
# The subshell execs rgpu, which execs the program: $! is the client process itself.
(
  [[ -n ${RGPU_TEST_PRELOAD:-} ]] && export LD_PRELOAD=$RGPU_TEST_PRELOAD
  exec "$BIN/rgpu" run -- "$PROGS/hold_memory" 1024 >"$WORK/hold.out" 2>&1
) &
holder=$!
for _ in $(seq 400); do grep -q holding "$WORK/hold.out" && break; sleep 0.05; done
grep -q "holding 1024 MiB" "$WORK/hold.out"
check "client holds 1024 MiB" $? "$(cat "$WORK/hold.out")"
# Other tenants work meanwhile, and one tenant's GPU fault touches nobody else.
client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/beside.out" 2>&1
check "another client works beside the one holding memory" $? "$(grep -v '^ok' "$WORK/beside.out" | head)"
if [[ $BACKEND == cuda ]]; then
  client timeout 60 "$BIN/rgpu" run -- "$PROGS/illegal_access" >"$WORK/fault.out" 2>&1
  grep -q "cudaErrorIllegalAddress" "$WORK/fault.out"
  check "a client's illegal address is reported to that client" $? "$(cat "$WORK/fault.out")"
  client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/after_fault.out" 2>&1
  check "after another tenant's fault, a new client works" $? "$(grep -v '^ok' "$WORK/after_fault.out" | head)"
  kill -0 $holder 2>/dev/null && ! grep -q "session [0-9]* end.*freed 1024.0 MiB" "$LOG"
  check "the holding client's session survived the other tenant's fault" $?
fi
{ kill -9 $holder && wait $holder; } 2>/dev/null
wait_log "$LOG" "end (client disconnected).*freed 1024.0 MiB in 1 allocations"
check "killed client: session ended and its 1024 MiB were freed" $? "$(tail -3 "$LOG")"
if [[ $BACKEND == cuda ]]; then
  sleep 0.5
  after=$(client timeout 30 "$BIN/rgpu" run -- "$PROGS/mem_info")
  [[ -n $before && -n $after && $((before - after)) -lt 64 && $((after - before)) -lt 64 ]]
  check "killed client: device free memory back ($before MiB before, $after MiB after)" $?
fi

# 4. Tokens: a daemon with a token refuses a client without it, with a message that says why.
RGPU_TOKEN=secret "$BIN/rgpud" --listen 127.0.0.1:0 --backend "$BACKEND" >"$WORK/tok.log" 2>&1 &
PIDS+=($!)
wait_log "$WORK/tok.log" "listening on"
TPORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/tok.log")
RGPU_SERVER=127.0.0.1:$TPORT RGPU_TOKEN=wrong timeout 10 "$BIN/rgpu" ls >"$WORK/tok.out" 2>&1
[[ $? != 0 ]] && grep -q "RGPU_TOKEN" "$WORK/tok.out"
check "wrong token refused with a message naming RGPU_TOKEN" $? "$(cat "$WORK/tok.out")"
RGPU_SERVER=127.0.0.1:$TPORT RGPU_TOKEN=secret timeout 10 "$BIN/rgpu" ls >"$WORK/tok2.out" 2>&1
check "right token accepted" $? "$(cat "$WORK/tok2.out")"

# 5. Off loopback, the daemon refuses to start without a token.
timeout 10 env -u RGPU_TOKEN "$BIN/rgpud" --listen 0.0.0.0:0 --backend "$BACKEND" >"$WORK/open.out" 2>&1
rc=$?
[[ $rc != 0 ]] && grep -q "without a token" "$WORK/open.out"
check "no token off loopback: refuses to start" $? "$(cat "$WORK/open.out")"

# 6. Two devices behind one session (the emulated backend can offer several).
if [[ $BACKEND == emulated ]]; then
  RGPU_EMULATED_DEVICES=2 "$BIN/rgpud" --listen 127.0.0.1:0 --backend emulated >"$WORK/two.log" 2>&1 &
  PIDS+=($!)
  wait_log "$WORK/two.log" "listening on"
  DPORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/two.log")
  RGPU_SERVER=127.0.0.1:$DPORT client timeout 60 "$BIN/rgpu" run -- "$PROGS/two_devices" >"$WORK/two.out" 2>&1
  check "each thread's device reaches the server" $? "$(cat "$WORK/two.out")"
fi

# 7. The daemon survived all of it.
kill -0 "${PIDS[0]}" 2>/dev/null
check "rgpud still serving" $?

finish
