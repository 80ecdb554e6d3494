#!/usr/bin/env bash
# Fault injection: a server stopped or killed in the middle of a copy, a network cut or degraded
# under one, a full disk for the module cache, no host memory for the worker's staging. Each ends in
# a clear error or a recovered session, never a hang (every wait is bounded), a crash, a leak (no
# worker left, rgpud's descriptors back) or wrong data delivered as success (the copy programs check
# every byte).
#
# Usage: run_fault_tests.sh <bin-dir> <programs-dir> [backend] [--unix]   as run_daemon_tests.sh;
# --unix: the clients reach rgpud through its Unix socket (the network's faults, TCP's, are left out).
set -uo pipefail

BIN=$1
PROGS=$2
BACKEND=${3:-emulated}
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# Both ends give up on a silent peer after 2 s rather than 5: the faults' waits stay short.
export RGPU_PEER_TIMEOUT_S=2
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Starts a client CMD... in the background ($client, output in $WORK/c.out and c.err), waits until
# it prints READY and sets $worker to the worker rgpud ($RGPUD) forked for it.
start_client() {
  local ready=$1 before
  shift
  before=$(session_workers "$RGPUD" | sort)
  background "$WORK/c.out" "$WORK/c.err" "$@"
  client=$BG
  wait_log "$WORK/c.out" "$ready" 20
  worker=$(comm -13 <(echo "$before") <(session_workers "$RGPUD" | sort) | head -1)
}

# Waits at most 20 s for $client to end (a hang is killed and reads as rc 124); sets $rc and $took (ms).
wait_client() {
  local start hung=0; start=$(now_ms)
  for _ in $(seq 400); do kill -0 "$client" 2>/dev/null || break; sleep 0.05; done
  took=$(($(now_ms) - start))
  kill -0 "$client" 2>/dev/null && hung=1 && kill -9 "$client"
  wait "$client"
  rc=$?
  ((hung)) && rc=124
}

# The client's copies failed with a clear error: exit 3, a CUDA error named, one line saying why.
check_clear_error() {
  [[ $rc == 3 ]] && grep -q "a copy failed after .*: cuda" "$WORK/c.out" &&
    [[ $(grep -c "lost the session with rgpud" "$WORK/c.err") == 1 ]]
  check "$1" $? "rc $rc: $(cat "$WORK/c.out" "$WORK/c.err")"
}

check_recovered() {
  [[ $rc == 0 ]] && grep -q "every copy came back right" "$WORK/c.out"
  check "$1" $? "rc $rc: $(cat "$WORK/c.out" "$WORK/c.err")"
}

# Nothing of the ended sessions is left: rgpud ($RGPUD) has no worker and, within 10 s, holds the
# $FDS descriptors it held before them.
check_no_leak() {
  local fds=""
  for _ in $(seq 200); do
    fds=$(ls /proc/"$RGPUD"/fd | wc -l)
    [[ -z $(session_workers "$RGPUD") && $fds == "$FDS" ]] && break
    sleep 0.05
  done
  [[ -z $(session_workers "$RGPUD") && $fds == "$FDS" ]]
  check "$1: no worker left, rgpud's descriptors back to $FDS" $? \
    "workers: $(session_workers "$RGPUD"); $fds descriptors: $(find /proc/"$RGPUD"/fd -mindepth 1 -printf '%l ' 2>/dev/null)"
}

# A new client's copies come back right (CMD... before `rgpu run`: how to reach rgpud).
check_new_client() {
  local name=$1
  shift
  client timeout 60 "$@" "$BIN/rgpu" run -- "$PROGS/copy_loop" 0 4096 >"$WORK/new.out" 2>&1
  check "$name: a new client's copies come back right" $? "$(cat "$WORK/new.out")"
}

# Whether process PID has ended (a zombie that its new parent has yet to reap counts as ended).
ended() { [[ ! -e /proc/$1 ]] || grep -q '^State:.Z' /proc/"$1"/status 2>/dev/null; }

# Random milliseconds in [0, $1) as seconds, for sleep.
random_s() { printf '0.%03d' $((RANDOM % $1)); }

# Starts rgpud (on PORT if set) and notes its process and descriptors once it serves.
UNIX_SOCK=""
[[ ${4:-} == --unix ]] && UNIX_SOCK=$WORK/rgpud.sock
serve() {
  local also=()
  [[ -n $UNIX_SOCK ]] && also=(--listen "unix:$UNIX_SOCK")  # a killed rgpud's file: the next replaces it
  if [[ -n ${PORT:-} ]]; then
    LOG=$WORK/rgpud.$RANDOM.log
    "$BIN/rgpud" --listen "$DAEMON_HOST:$PORT" "${also[@]}" --backend "$BACKEND" >"$LOG" 2>&1 &
    PIDS+=($!)
    wait_log "$LOG" "listening on" || { echo "rgpud did not start:"; cat "$LOG"; exit 1; }
  else
    start_server --backend "$BACKEND" "${also[@]}" || exit 1
  fi
  [[ -n $UNIX_SOCK ]] && export RGPU_SERVER=unix:$UNIX_SOCK
  RGPUD=${PIDS[-1]}
  FDS=$(ls /proc/"$RGPUD"/fd | wc -l)
}

# The network part, in a user and network namespace of its own: rgpud on one side of a veth pair,
# its clients in a nested namespace on the other.
if [[ ${4:-} == --network ]]; then
  veth_pair
  export RGPU_TOKEN=faults
  serve
  to_rgpud=(nsenter -t "$NESTED" -n)

  # 1. The link cut at a random moment of a copy loop: a clear error, the session freed.
  start_client copying "${to_rgpud[@]}" "$BIN/rgpu" run -- "$PROGS/copy_loop" 60 16384
  sleep "$(random_s 300)"
  ip link set rgpu-srv down
  wait_client
  echo "   (the client gave up $took ms after the cut)"
  check_clear_error "network cut mid-copy: the client's copies fail, with one line saying why"
  wait_log "$LOG" "acknowledged nothing for .*ending the session" 10
  check "network cut mid-copy: rgpud ends the session" $? "$(tail -3 "$LOG")"
  check_no_leak "network cut mid-copy"
  # Back up, with the neighbours the cut made unreachable forgotten.
  ip link set rgpu-srv up
  ip neigh flush dev rgpu-srv
  "${to_rgpud[@]}" ip neigh flush dev rgpu-cli
  for _ in $(seq 100); do ip -o link show rgpu-srv | grep -q "state UP" && break; sleep 0.05; done
  check_new_client "network back" "${to_rgpud[@]}"

  # 2. A 30 s kernel under the cut: the sync fails within the timeout, it does not wait for the
  # kernel. The emulated backend's kernels do not run: there a daemon whose kernels each keep the
  # device busy 30 s stands in (RGPU_EMULATED_KERNEL_MS).
  if [[ $BACKEND == emulated ]]; then
    kill "$RGPUD"
    wait "$RGPUD"
    RGPU_EMULATED_KERNEL_MS=30000 serve
  fi
  background "$WORK/c.out" "$WORK/c.err" "${to_rgpud[@]}" "$BIN/rgpu" run -- "$PROGS/keep_calling" 1 30
  client=$BG
  sleep 2
  ip link set rgpu-srv down
  wait_client
  [[ $rc == 1 ]] && grep -q "a 30 s kernel ended after .*: cudaErrorDevicesUnavailable" "$WORK/c.out"
  check "network cut mid-kernel: the sync fails within the timeout" $? "rc $rc: $(cat "$WORK/c.out" "$WORK/c.err")"
  wait_log "$LOG" "acknowledged nothing for .*ending the session" 10
  check "network cut mid-kernel: rgpud ends the session" $? "$(tail -3 "$LOG")"
  check_no_leak "network cut mid-kernel"
  ip link set rgpu-srv up

  # 3. 200 ms of delay and 5 % loss (100 ms and 2.5 % each way): slow, and every byte right. At
  # about 50 KB/s (TCP under that loss) the copy is small. Both ends keep liveness's default (5 s),
  # which such a link must not trip.
  if tc qdisc add dev rgpu-srv root netem delay 100ms loss 2.5% 2>"$WORK/netem.err" &&
    "${to_rgpud[@]}" tc qdisc add dev rgpu-cli root netem delay 100ms loss 2.5% 2>>"$WORK/netem.err"; then
    kill "$RGPUD"
    wait "$RGPUD"
    RGPU_PEER_TIMEOUT_S=5 serve
    start=$(now_ms)
    client timeout 120 "${to_rgpud[@]}" env RGPU_PEER_TIMEOUT_S=5 "$BIN/rgpu" run -- "$PROGS/copy_loop" 0 256 \
      >"$WORK/lossy.out" 2>&1
    rc=$?
    echo "   (256 KiB there and back over the lossy link took $(($(now_ms) - start)) ms)"
    [[ $rc == 0 ]] && grep -q "every copy came back right" "$WORK/lossy.out"
    check "200 ms delay and 5 % loss: the copies come back right" $? "rc $rc: $(cat "$WORK/lossy.out")"
  else
    echo "   (skipped: tc netem delay and loss: $(head -1 "$WORK/netem.err") (this kernel has no sch_netem?))"
  fi
  finish
  exit
fi

# The full-disk part, in a user and mount namespace of its own: the module cache on a full 256 KiB
# tmpfs. The modules (api_tour's fatbins, driver_tour's PTX of under 1 KiB, which a stream buffers
# whole) are offered by key, so that the image follows: it is served uncached, and no entry is left
# empty or cut short.
if [[ ${4:-} == --full-disk ]]; then
  cache=$WORK/modules
  mkdir "$cache"
  mount -t tmpfs -o size=256k tmpfs "$cache" || { check "a tmpfs for the module cache" 1; finish; exit; }
  dd if=/dev/zero of="$cache/filler" bs=4k >/dev/null 2>&1
  export RGPU_MODULE_CACHE=$cache RGPU_MODULE_BY_KEY_KB=0 RGPU_EMULATED_DEVICES=2  # driver_tour's two
  serve
  for room in "a full disk" "room again"; do
    [[ $room == "room again" ]] && rm "$cache/filler"
    client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour.out" 2>&1
    check "$room: api_tour's modules load and it passes" $? "$(grep -v '^ok' "$WORK/tour.out" | head)"
    check_tour "$PROGS/driver_tour"
  done
  # Each entry the second round made is whole: it hashes to its name.
  entries=$(find "$cache" -name '*.bin*')
  bad=0
  [[ $(wc -w <<<"$entries") -ge 2 ]] || bad=1
  for e in $entries; do [[ $(sha256sum <"$e" | cut -c1-64).bin == $(basename "$e") ]] || bad=1; done
  check "a full disk left no entry empty or cut short; with room the modules are cached" $bad "$(ls -la "$cache")"
  kill -0 "$RGPUD"
  check "a full disk: rgpud still serves" $?
  kill "$RGPUD"
  wait "$RGPUD" 2>/dev/null
  umount "$cache"
  finish
  exit
fi

serve

# 1. The worker stopped mid-copy for less than the timeout (1 s of 2): the copies go on, right.
start_client copying "$BIN/rgpu" run -- "$PROGS/copy_loop" 3 16384
kill -STOP "$worker"
sleep 1
kill -CONT "$worker"
wait_client
check_recovered "the worker stopped mid-copy for 1 s: every copy comes back right"

# 2. Stopped longer (until the client gives up): a clear error; continued, the worker sees its
# client gone and ends.
start_client copying "$BIN/rgpu" run -- "$PROGS/copy_loop" 60 16384
kill -STOP "$worker"
wait_client
echo "   (the client gave up on its stopped worker after $took ms)"
check_clear_error "the worker stopped mid-copy: the client's copies fail, with one line saying why"
kill -CONT "$worker"
check_no_leak "the stopped worker continued after its client left"

# 3. rgpud itself stopped (3 s, past the timeout) under a copy loop and a client that connects
# meanwhile: the session goes on (its worker serves it), the newcomer is served once rgpud continues.
start_client copying "$BIN/rgpu" run -- "$PROGS/copy_loop" 4 16384
kill -STOP "$RGPUD"
client timeout 60 "$BIN/rgpu" run -- "$PROGS/copy_loop" 0 4096 >"$WORK/late.out" 2>&1 &
late=$!
sleep 3
kill -CONT "$RGPUD"
wait_client
check_recovered "rgpud stopped for 3 s: a session's copies go on, right"
wait "$late"
check "rgpud stopped for 3 s: a client that came meanwhile is served" $? "$(cat "$WORK/late.out")"
check_no_leak "rgpud continued"

# 4. The worker killed at random moments of copies (the pipe's, then striped ones): a clear error.
for i in 1 2 3 4; do
  stripes=()
  ((i % 2 == 0)) && stripes=(env RGPU_STRIPES=4 RGPU_STRIPE_MIN_MB=1)
  start_client copying "${stripes[@]}" "$BIN/rgpu" run -- "$PROGS/copy_loop" 60 16384
  sleep "$(random_s 500)"
  kill -9 "$worker"
  wait_client
  check_clear_error "worker killed mid-copy (${stripes[*]:-the pipe}, round $i): the copies fail, with one line saying why"
done
check_no_leak "workers killed"
check_new_client "workers killed"

# 5. rgpud killed at random moments of copies: a clear error, no worker outlives it, a new rgpud
# on the same port serves.
for i in 1 2; do
  start_client copying "$BIN/rgpu" run -- "$PROGS/copy_loop" 60 16384
  sleep "$(random_s 500)"
  kill -9 "$RGPUD"
  wait "$RGPUD" 2>/dev/null  # reaped here, so that bash does not report the kill
  wait_client
  check_clear_error "rgpud killed mid-copy (round $i): the copies fail, with one line saying why"
  for _ in $(seq 100); do ended "$worker" && break; sleep 0.05; done
  ended "$worker"
  check "rgpud killed mid-copy (round $i): its worker ends with it" $?
  serve
done
check_new_client "rgpud killed"

# 6. No host memory for the worker's staging (its address space capped just above what it uses):
# a large copy fails as out of memory, and once there is room again the session copies right.
# This rgpud's large allocations are its own mappings, which the cap refuses: glibc's threshold for
# them fixed (it would otherwise rise and serve them from room its heap already holds), and ASan's
# allocator made to answer null, as malloc does, rather than abort.
kill "$RGPUD"
wait "$RGPUD"
GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 ASAN_OPTIONS=${ASAN_OPTIONS:-}:allocator_may_return_null=1 serve
mkfifo "$WORK/cue"
exec 7<>"$WORK/cue"
# A 16 MiB copy is striped (RGPU_STRIPE_MIN_MB), and a stripe the capped worker cannot adopt is
# dropped; but under ASan (the sanitizer run preloads it) the runtime itself aborts when it cannot
# map a new thread's memory, so there this copy stays on the pipe.
stripe_min=()
[[ -n ${RGPU_TEST_PRELOAD:-} ]] && stripe_min=(env RGPU_STRIPE_MIN_MB=32)
start_client ready "${stripe_min[@]}" "$BIN/rgpu" run -- "$PROGS/copy_on_cue" 16 "$WORK/cue" 7>&-  # its only writer: this script
used=$(($(awk '/^VmSize/ {print $2}' /proc/"$worker"/status) * 1024))  # bytes: awk prints large products as floats
prlimit --pid "$worker" --as=$((used + (4 << 20))):
echo copy >&7
wait_log "$WORK/c.out" "^copy:" 20
grep -q "^copy: 2 " "$WORK/c.out"  # cudaErrorMemoryAllocation
check "no memory for staging: a 16 MiB copy fails as cudaErrorMemoryAllocation" $? "$(cat "$WORK/c.out" "$WORK/c.err"; tail -3 "$LOG")"
prlimit --pid "$worker" --as=unlimited:
echo copy >&7
for _ in $(seq 400); do [[ $(grep -c "^copy:" "$WORK/c.out") -ge 2 ]] && break; sleep 0.05; done
[[ $(grep "^copy:" "$WORK/c.out" | sed -n 2p) == "copy: 0 "* ]]
check "memory back: the session's next copy comes back right" $? "$(cat "$WORK/c.out" "$WORK/c.err")"
exec 7>&-
wait_client
check "no memory for staging: the client ends cleanly" "$rc" "$(cat "$WORK/c.err")"
check_no_leak "no memory for staging"

[[ -n $UNIX_SOCK ]] && { finish; exit; }

# 7. and 8. The network and the disk, in namespaces this test makes (skipped where the host has no
# `ip` or allows no unprivileged namespaces).
if command -v ip >/dev/null && unshare -rn true 2>/dev/null; then
  in_namespaces -rn "$BIN" "$PROGS" "$BACKEND" --network
else
  echo "   (skipped: faults of the network need iproute2's ip and unprivileged network namespaces, which this host lacks)"
fi
if unshare -rm true 2>/dev/null; then
  in_namespaces -rm "$BIN" "$PROGS" "$BACKEND" --full-disk
else
  echo "   (skipped: a full disk needs unprivileged mount namespaces (a tmpfs), which this host lacks)"
fi

finish
