#!/usr/bin/env bash
# The pool end to end against rgpud --config: tenants and their tokens, admission and placement
# over two virtual GPUs, the memory slice as the tenant's program sees it and as it is enforced,
# live changes with `rgpu pool set`, the pool view for the admin and for a tenant, and release the
# moment a client dies, memory over-commit (idle sessions swapped out and back, data intact) and the
# memory extension (memory_host).
#
# Usage: run_pool_tests.sh <bin-dir> <programs-dir> [backend]
#   backend: "emulated" (default, CI; two virtual GPUs of 2048 MiB) or "cuda" (a GPU host).
#   Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
BACKEND=${3:-emulated}
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
trap '' PIPE  # a refused tenant's program is gone: writing to its fifo must not end the script

export RGPU_MODULE_CACHE=$WORK/modules RGPU_EMULATED_DEVICES=2 RGPU_EMULATED_MEMORY_MB=2048
cat >"$WORK/pool.yaml" <<'YAML'
admin_token: admin-secret
policy:
  placement: pack
tenants:
  - name: small
    token: tok-small
    memory: 256M
    compute: 30
  - name: big
    token: tok-big
    memory: 1024M
    compute: 60
    compute_limit: 100
  - name: whole
    token: tok-whole
YAML
start_server --backend "$BACKEND" --config "$WORK/pool.yaml" || exit 1

# Tenants' programs: memory_slice, driven through a fifo; say NAME CMD sends a command and waits
# for its answer (the program's next output line).
declare -A IN OUT PID
launch_tenant() {  # NAME TOKEN [VAR=VALUE...]: returns at once (a queued session is not ready yet)
  local name=$1 token=$2
  shift 2
  mkfifo "$WORK/$name.in"
  OUT[$name]=$WORK/$name.out
  # As client() does, with exec: $! is the program itself (rgpu run execs it).
  env RGPU_TOKEN="$token" "$@" bash -c \
    '[[ -n ${RGPU_TEST_PRELOAD:-} ]] && export LD_PRELOAD="$RGPU_TEST_PRELOAD ${LD_PRELOAD:-}"; exec "$1" run -- "$2" <"$3" >"$4" 2>&1' \
    _ "$BIN/rgpu" "$PROGS/memory_slice" "$WORK/$name.in" "${OUT[$name]}" &
  PID[$name]=$!
  PIDS+=($!)
  exec {fd}>"$WORK/$name.in"
  IN[$name]=$fd
}
start_tenant() {  # NAME TOKEN [VAR=VALUE...]: and waits until its program is ready
  launch_tenant "$@"
  wait_log "${OUT[$1]}" "^ready"
}
say() {  # NAME CMD: waits for the answer's line, prints it
  local name=$1 before
  before=$(wc -l <"${OUT[$name]}")
  echo "$2" >&"${IN[$name]}"
  for _ in $(seq 200); do
    (($(wc -l <"${OUT[$name]}") > before)) && break
    sleep 0.05
  done
  tail -n 1 "${OUT[$name]}"
}
pool() { RGPU_TOKEN=admin-secret client timeout 20 "$BIN/rgpu" pool "$@"; }
# Kills tenant NAME's program, then reads the pool view into FILE until the Python expression PRED
# holds for it (v: the view as JSON). 0 when it did within 10 s.
kill_until() {  # NAME FILE PRED
  kill -9 "${PID[$1]}" 2>/dev/null
  wait "${PID[$1]}" 2>/dev/null
  for _ in $(seq 100); do
    pool --json >"$2" 2>/dev/null
    python3 -c "import json,sys; v = json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$2" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# 1. The view before any session: both GPUs, nothing reserved.
pool >"$WORK/view0" 2>&1
grep -q "Emulated\|emulated\|GPU" "$WORK/view0" && [[ $(grep -c "2048" "$WORK/view0") -ge 2 ]]
check "rgpu pool shows both virtual GPUs" $? "$(cat "$WORK/view0")"
RGPU_TOKEN=tok-small client timeout 20 "$BIN/rgpu" pool >"$WORK/denied" 2>&1
[[ $? != 0 ]] && grep -qi "admin" "$WORK/denied"
check "rgpu pool with a tenant's token is refused, naming the admin token" $? "$(cat "$WORK/denied")"

# 2. A sliced tenant sees a GPU of its slice, and an allocation past it fails as on a full GPU.
start_tenant a tok-small
line=$(say a info)
[[ $line == "info: "*"(0) total 256 MiB free "*" properties 256 MiB" ]]
check "the tenant's GPU has its slice: cudaMemGetInfo and the properties say 256 MiB" $? "$line"
# A created memory pool is no way around the slice: an allocation from it past the slice is refused
# as cudaMalloc's is, and what it holds counts against the slice (the fill below stops that much sooner).
line=$(say a "pool 512")
[[ $line == "pool 512 MiB: "*"(2)" ]]
check "an allocation from a created pool past the slice is refused (cudaErrorMemoryAllocation)" $? "$line"
line=$(say a "pool 64")
[[ $line == "pool 64 MiB: "*"(0)" ]]
check "an allocation from a created pool inside the slice succeeds" $? "$line"
line=$(say a fill)
n=$(sed -n 's/^fill: \([0-9]*\) MiB allocated, then .*(2), last error .*(2); memset after it: .*(0)$/\1/p' <<<"$line")
[[ -n $n ]] && ((n >= 186 && n <= 192))
check "1 MiB allocations are refused at the slice, less the pool's 64 MiB (cudaErrorMemoryAllocation), and the session goes on" $? "$line"

# 3. The pool view: the session, its tenant and memory, for the admin; a tenant sees only its own.
sleep 0.2
pool >"$WORK/view1" 2>&1
grep -q "small" "$WORK/view1" && grep -q "memory_slice" "$WORK/view1"
check "rgpu pool lists the session with its tenant and program" $? "$(cat "$WORK/view1")"
pool --json >"$WORK/view1.json" 2>&1
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert len(v["gpus"]) == 2 and len(v["sessions"]) == 1, v' \
  "$WORK/view1.json"
check "rgpu pool --json is JSON with both GPUs and the one session" $? "$(head -c 600 "$WORK/view1.json")"
RGPU_TOKEN=tok-big client timeout 20 "$BIN/rgpu" ls >"$WORK/ls_big" 2>&1
[[ $? == 0 ]] && ! grep -q "memory_slice" "$WORK/ls_big"
check "rgpu ls with another tenant's token shows none of this tenant's sessions" $? "$(cat "$WORK/ls_big")"
RGPU_TOKEN=tok-small client timeout 20 "$BIN/rgpu" ls >"$WORK/ls_small" 2>&1
grep -q "memory_slice" "$WORK/ls_small"
check "rgpu ls with the tenant's token shows its session" $? "$(cat "$WORK/ls_small")"

# 4. Admission: a request above the tenant's slice is refused, naming it. Placement packs: the
# second small session (30 %) joins the first on GPU 0, the big one (60 %) no longer fits there and
# takes GPU 1, and a second big one fits nowhere.
start_tenant over tok-small RGPU_MEMORY=1G
grep -q "256 MiB" "${OUT[over]}" && grep -q "^ready: 0 device" "${OUT[over]}"
check "RGPU_MEMORY above the tenant's slice is refused, naming the slice" $? "$(head -5 "${OUT[over]}")"
start_tenant a2 tok-small
start_tenant b tok-big
pool --json >"$WORK/view2.json" 2>&1
python3 - "$WORK/view2.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
gpu = {s["tenant"]: [] for s in v["sessions"]}
for s in v["sessions"]:
    gpu[s["tenant"]].append(s["gpu"])
assert gpu["small"] == [0, 0] and gpu["big"] == [1], gpu
assert all(g["compute_reserved_percent"] <= 100 for g in v["gpus"]), v["gpus"]
PY
check "pack placement: both small sessions on GPU 0, the big one on GPU 1; no GPU over 100 %" $? "$(head -c 800 "$WORK/view2.json")"
start_tenant b2 tok-big RGPU_QUEUE_TIMEOUT=0
grep -qi "free" "${OUT[b2]}" && grep -q "may not wait" "${OUT[b2]}" && grep -q "^ready: 0 device" "${OUT[b2]}"
check "a session that fits no GPU now and may not wait (RGPU_QUEUE_TIMEOUT=0) is refused, saying what is free" $? \
  "$(head -5 "${OUT[b2]}")"

# 5. Live changes: memory grows at once; a shrink below what is held is refused, saying so.
pool set small --memory 1G >"$WORK/set1" 2>&1
rc=$?
line=$(say a info)
[[ $rc == 0 && $line == "info: "*"(0) total 1024 MiB"* ]]
check "rgpu pool set TENANT --memory grows a running session's slice (cudaMemGetInfo)" $? "$(cat "$WORK/set1"; echo "$line")"
line=$(say a "alloc 256")
[[ $line == "alloc 256 MiB: "*"(0)" ]]
check "the grown slice takes a new allocation" $? "$line"
pool set small --memory 256M >"$WORK/set2" 2>&1
[[ $? != 0 ]] && grep -qi "holds" "$WORK/set2"
check "a shrink below what a session holds is refused, saying how much it holds" $? "$(cat "$WORK/set2")"
RGPU_TOKEN=tok-small client timeout 20 "$BIN/rgpu" pool set small --memory 2G >"$WORK/set3" 2>&1
[[ $? != 0 ]] && grep -qi "admin" "$WORK/set3"
check "rgpu pool set needs the admin token" $? "$(cat "$WORK/set3")"
check_daemon_log "every change is logged" "pool set"

# 6. Release: a client killed mid-session leaves the pool at once.
kill_until a2 "$WORK/view3.json" 'sum(s["tenant"] == "small" for s in v["sessions"]) == 1'
gone=$?
check "a killed client's session leaves the pool view" $gone "$(head -c 600 "$WORK/view3.json")"

# 7. Sliced sessions run whole programs through the compute gate, two at once on one GPU.
RGPU_TOKEN=tok-small client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/t1.out" 2>&1 &
t1=$!
RGPU_TOKEN=tok-small client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/t2.out" 2>&1
rc2=$?
wait $t1
rc1=$?
[[ $rc1 == 0 && $rc2 == 0 ]]
check "two sliced sessions run api_tour side by side through the compute gate" $? \
  "$(grep -v '^ok' "$WORK/t1.out" | head -5; grep -v '^ok' "$WORK/t2.out" | head -5)"

# 7a. The slice is the session's device memory budget: an allocation past it notifies
# (cudaAsyncNotificationTypeOverBudget, on a thread of the client's own).
RGPU_TOKEN=tok-small client timeout 60 "$BIN/rgpu" run -- "$PROGS/error_logs" over_budget >"$WORK/budget.out" 2>&1
check "an allocation past the slice notifies its over-budget bytes (error_logs over_budget)" $? \
  "$(grep -v '^ok' "$WORK/budget.out" | head -10)"

# 8. A whole-GPU tenant sees every GPU, whole.
RGPU_TOKEN=tok-whole client timeout 60 "$BIN/rgpu" run -- "$PROGS/mem_info" >"$WORK/whole.out" 2>&1
[[ $(cat "$WORK/whole.out") -gt 1024 ]]
check "a whole-GPU tenant's cudaMemGetInfo is the GPU's" $? "$(cat "$WORK/whole.out")"

# 9. The admission queue. GPU 0 holds small a (30 %); c (big, 60 %) joins it there, and GPU 1 has
# b (60 %): another big session fits nowhere and waits, saying so, in the pool view; one that may
# wait 1 s gives up, saying so; when b ends, the waiting one starts on GPU 1.
start_tenant c tok-big
launch_tenant q tok-big
wait_log "${OUT[q]}" "admission queue, place 1"
check "a session that does not fit waits, and its client says so: its place and what it waits for" $? \
  "$(head -3 "${OUT[q]}")"
# 3 s: long enough for both views below to see it queued on a loaded machine.
launch_tenant qt tok-big RGPU_QUEUE_TIMEOUT=3
wait_log "${OUT[qt]}" "admission queue, place 2"
pool --json >"$WORK/view4.json" 2>&1
python3 - "$WORK/view4.json" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))["queue"]
assert [e["position"] for e in q] == [1, 2] and all(e["tenant"] == "big" for e in q), q
assert q[0]["timeout_seconds"] is None and q[1]["timeout_seconds"] == 3, q
PY
check "rgpu pool --json lists the queue in order, with each one's timeout" $? "$(head -c 900 "$WORK/view4.json")"
pool >"$WORK/view4.txt" 2>&1
grep -q "2 queued" "$WORK/view4.txt" && grep -q "^QUEUED" "$WORK/view4.txt"
check "rgpu pool shows the queue" $? "$(cat "$WORK/view4.txt")"
wait_log "${OUT[qt]}" "^ready: 0 device" && grep -q "gave up" "${OUT[qt]}"
check "RGPU_QUEUE_TIMEOUT=3: the waiting session gives up after 3 s, saying why" $? "$(cat "${OUT[qt]}")"
echo quit >&"${IN[b]}"
wait "${PID[b]}" 2>/dev/null
ended=$(date +%s%N)
wait_log "${OUT[q]}" "^ready: 1 device"
rc=$?
started=$(date +%s%N)
grep -q "the session started after" "${OUT[q]}" && [[ $rc == 0 ]]
check "when capacity frees, the waiting session starts (its client's exit to the next one's ready: $(((started - ended) / 1000000)) ms, polled every 50 ms)" $? \
  "$(cat "${OUT[q]}")"
line=$(say q info)
[[ $line == "info: "*"total 1024 MiB"* ]]
check "the session that waited has its tenant's slice" $? "$line"
check_daemon_log "the daemon logs the start from the queue" "admitted from the queue"
launch_tenant q3 tok-big
wait_log "${OUT[q3]}" "admission queue, place 1"
kill_until q3 "$WORK/view5.json" 'not v["queue"]'
left=$?
check "a client killed while it waits leaves the queue" $left "$(head -c 600 "$WORK/view5.json")"

for n in "${!IN[@]}"; do { echo quit >&"${IN[$n]}"; } 2>/dev/null; done

# 10. Memory over-commit, on a daemon of its own: three 300 MiB slices promised on one 512 MiB GPU
# (memory_overcommit 2), so only one runs at a time. Each program holds 256 MiB and uses it in
# rounds with idle pauses: the idle ones are swapped out to host memory and back at their next
# call, and every program finds its data as it left it.
cat >"$WORK/overcommit.yaml" <<'YAML'
admin_token: admin-secret
policy:
  memory_overcommit: 2.0
  swap_idle_ms: 150
tenants:
  - name: turns
    token: tok-turns
    memory: 300M
    compute: 30
    compute_limit: 100
  - name: ext
    token: tok-ext
    memory: 100M
    memory_host: 512M
    compute: 10
YAML
RGPU_EMULATED_DEVICES=1 RGPU_EMULATED_MEMORY_MB=512 start_server --backend "$BACKEND" --config "$WORK/overcommit.yaml" || exit 1
RGPUD_PID=${PIDS[-1]}
for i in 1 2 3; do
  RGPU_TOKEN=tok-turns client timeout 120 "$BIN/rgpu" run -- "$PROGS/take_turns" 256 4 300 "$i" >"$WORK/turns$i.out" 2>&1 &
  TURNS[$i]=$!
done
for i in 1 2 3; do
  wait "${TURNS[$i]}"
  rc=$?
  [[ $rc == 0 ]] && grep -q "^PASS" "$WORK/turns$i.out"
  check "over-commit: program $i of three taking turns on one GPU finds its data intact every round" $? \
    "$(tail -5 "$WORK/turns$i.out")"
done
check_daemon_log "over-commit: idle sessions were swapped out to host memory" "swapped .* out to host memory"
check_daemon_log "over-commit: and brought back at their next call" "swapped .* back in from host memory"

# 11. Memory extension: tenant ext has a 100 MiB slice and 512 MiB of host memory past it; a
# program allocating 300 MiB at once runs to correct results, and the pool view shows where its
# memory lives.
RGPU_TOKEN=tok-ext client timeout 60 "$BIN/rgpu" run -- "$PROGS/take_turns" 300 3 700 7 >"$WORK/ext.out" 2>&1 &
ext=$!
wait_log "$WORK/ext.out" "^round 1"
pool --json >"$WORK/view_ext.json" 2>&1
wait "$ext"
rc=$?
[[ $rc == 0 ]] && grep -q "^PASS" "$WORK/ext.out"
check "memory_host: a program allocating 3 x its slice runs to correct results" $? "$(tail -3 "$WORK/ext.out")"
python3 - "$WORK/view_ext.json" <<'PY'
import json, sys
s = [x for x in json.load(open(sys.argv[1]))["sessions"] if x["tenant"] == "ext"]
assert s and s[0]["memory_host_bytes"] == 300 << 20, s
PY
check "memory_host: the pool view shows the session's memory on the host" $? "$(head -c 600 "$WORK/view_ext.json")"
RGPU_TOKEN=tok-ext client timeout 60 "$BIN/rgpu" run -- "$PROGS/take_turns" 700 1 0 >"$WORK/ext2.out" 2>&1
grep -q "^FAIL: cudaMalloc of 700 MiB" "$WORK/ext2.out"
check "memory_host: an allocation past the slice and the extension fails as on a full GPU" $? "$(cat "$WORK/ext2.out")"

# 12. Tenants while rgpud runs (the over-commit daemon of 10 and 11): the admin adds one (two tokens, as the device plugin does), its
# clients see its slice through either token, and once it is removed its tokens are refused.
pool tenant add live/pod-a/main token=tok-live-1 token=tok-live-2 memory=300M compute=10 >"$WORK/tadd" 2>&1
rc=$?
pool tenant list >"$WORK/tlist" 2>&1
[[ $rc == 0 ]] && grep -q "live/pod-a/main" "$WORK/tlist" && ! grep -q "tok-live" "$WORK/tlist"
check "rgpu pool tenant add makes a tenant while rgpud runs; tenant list shows it, never its tokens" $? \
  "$(cat "$WORK/tadd" "$WORK/tlist")"
for token in tok-live-1 tok-live-2; do
  RGPU_TOKEN=$token client timeout 60 "$BIN/rgpu" run -- "$PROGS/mem_info" >"$WORK/live_$token.out" 2>&1
  free=$(cat "$WORK/live_$token.out")
  [[ $free =~ ^[0-9]+$ ]] && ((free > 250 && free <= 300))
  check "a client proving the added tenant's $token sees a GPU of its 300 MiB slice (free MiB)" $? "$(cat "$WORK/live_$token.out")"
done
pool tenant add other token=tok-live-1 >"$WORK/tdup" 2>&1
[[ $? != 0 ]] && grep -q "already" "$WORK/tdup"
check "a tenant whose token another tenant has is refused" $? "$(cat "$WORK/tdup")"
pool tenant remove live/pod-a/main >"$WORK/trm" 2>&1
rc=$?
RGPU_TOKEN=tok-live-1 client timeout 60 "$BIN/rgpu" run -- "$PROGS/mem_info" >"$WORK/live_gone.out" 2>&1
[[ $rc == 0 ]] && grep -qi "token" "$WORK/live_gone.out" && ! grep -qx "300" "$WORK/live_gone.out"
check "a removed tenant's token is refused at the handshake" $? "$(cat "$WORK/trm" "$WORK/live_gone.out")"
check_daemon_log "tenant changes are logged" "tenant removed: live/pod-a/main"

# SIGHUP reads the file anew: a tenant added to it admits sessions, running sessions go on, and
# the tenant added through the control API stays.
pool tenant add kept token=tok-kept memory=64M >/dev/null 2>&1
cat >>"$WORK/overcommit.yaml" <<'YAML'
  - name: hup
    token: tok-hup
    memory: 128M
    compute: 10
YAML
kill -HUP "$RGPUD_PID"
wait_log "$LOG" "reload of .*tenant added: hup"
RGPU_TOKEN=tok-hup client timeout 60 "$BIN/rgpu" run -- "$PROGS/mem_info" >"$WORK/hup.out" 2>&1
free=$(cat "$WORK/hup.out")
[[ $free =~ ^[0-9]+$ ]] && ((free > 100 && free <= 128)) && kill -0 "$RGPUD_PID"
check "SIGHUP: a tenant added to the file admits sessions with its slice; rgpud runs on" $? "$free; $(grep -i reload "$LOG")"
pool tenant list >"$WORK/tlist2" 2>&1
grep -q "^  kept " "$WORK/tlist2" && grep -q "^  hup " "$WORK/tlist2" && grep -q "^  turns " "$WORK/tlist2"
check "SIGHUP: the tenants of the file and the one added through the control API are all there" $? "$(cat "$WORK/tlist2")"

# 13. On a host of one GPU, the session next in the queue makes its CUDA context while it waits when
# the GPU has memory no slice holds (server/pool/pool.h QueueStatus::warm), and starts on it as soon
# as its room frees.
cat >"$WORK/warm.yaml" <<'YAML'
admin_token: admin-secret
tenants:
  - name: most
    token: tok-most
    memory: 2500M
    compute: 60
YAML
RGPU_EMULATED_DEVICES=1 RGPU_EMULATED_MEMORY_MB=4096 start_server --backend "$BACKEND" --config "$WORK/warm.yaml" || exit 1
start_tenant w1 tok-most
launch_tenant w2 tok-most
wait_log "${OUT[w2]}" "admission queue, place 1" && wait_log "$LOG" "next in the queue, made its context while it waits"
check "one GPU: the session next in the queue makes its context while it waits (the GPU has 1596 MiB no slice holds)" $? \
  "$(head -3 "${OUT[w2]}"; grep -i "queue" "$LOG")"
echo quit >&"${IN[w1]}"
wait_log "${OUT[w2]}" "^ready: 1 device"
check "and starts once the session ahead of it ends" $? "$(cat "${OUT[w2]}")"
line=$(say w2 info)
[[ $line == "info: "*"total 2500 MiB"* ]]
check "the session whose context was made ahead has its tenant's slice" $? "$line"
echo quit >&"${IN[w2]}"

# 14. policy.mps: rgpud starts an MPS control daemon of its own, in a private directory, and quits
# it when it ends. A stand-in for nvidia-cuda-mps-control on PATH records its calls and runs a
# process as its daemon; rgpud runs the cuda backend here, which a host without a GPU refuses after
# the MPS start (on a GPU host it would serve: then SIGTERM ends it).
if [[ $BACKEND == emulated ]]; then
  mkdir -p "$WORK/fakebin"
  cat >"$WORK/fakebin/nvidia-cuda-mps-control" <<SH
#!/bin/sh
if [ "\$1" = -d ]; then
  echo "-d \$CUDA_MPS_PIPE_DIRECTORY \$CUDA_MPS_LOG_DIRECTORY" >>"$WORK/mps_calls"
  sleep 300 </dev/null >/dev/null 2>&1 &
  echo \$! >"\$CUDA_MPS_PIPE_DIRECTORY/nvidia-cuda-mps-control.pid"
  echo "daemon \$!" >>"$WORK/mps_calls"
  exit 0
fi
read -r command
echo "\$command \$CUDA_MPS_PIPE_DIRECTORY" >>"$WORK/mps_calls"
[ "\$command" = quit ] && kill "\$(cat "\$CUDA_MPS_PIPE_DIRECTORY/nvidia-cuda-mps-control.pid")"
exit 0
SH
  chmod +x "$WORK/fakebin/nvidia-cuda-mps-control"
  cat >"$WORK/mps.yaml" <<'YAML'
policy:
  mps: true
tenants:
  - name: a
    token: tok-a
    memory: 256M
    compute: 50
YAML
  # --foreground: timeout passes SIGTERM to rgpud alone; without it, it signals its whole process
  # group, which would end the stand-in's `quit` before it records itself.
  PATH="$WORK/fakebin:$PATH" TMPDIR="$WORK" timeout --foreground 30 "$BIN/rgpud" --config "$WORK/mps.yaml" --backend cuda \
    --listen 127.0.0.1:0 >"$WORK/mps_rgpud.log" 2>&1 &
  mps_rgpud=$!
  wait_log "$WORK/mps_rgpud.log" "listening on\|rgpud: "
  kill -TERM "$mps_rgpud" 2>/dev/null
  wait "$mps_rgpud"
  read -r _ pipe_dir log_dir <"$WORK/mps_calls"
  [[ $pipe_dir == "$WORK"/rgpud-mps.*/pipe && $log_dir == "${pipe_dir%/pipe}/log" ]]
  check "mps: rgpud starts its own MPS control daemon, pipe and log in a private directory" $? "$(cat "$WORK/mps_calls" "$WORK/mps_rgpud.log")"
  mps_daemon=$(sed -n 's/^daemon //p' "$WORK/mps_calls")
  # Ended: gone, or a zombie its new parent has not reaped yet.
  mps_state=$(sed 's/.*) //' "/proc/$mps_daemon/stat" 2>/dev/null | cut -c1)
  grep -qx "quit $pipe_dir" "$WORK/mps_calls" && [[ ! -e ${pipe_dir%/pipe} ]] && [[ -z $mps_state || $mps_state == Z ]]
  check "mps: rgpud quits it as it ends (the daemon ends) and removes the directory" $? "$(cat "$WORK/mps_calls" "$WORK/mps_rgpud.log"; ls "$WORK")"
  if ! command -v nvidia-cuda-mps-control >/dev/null; then
    timeout 30 "$BIN/rgpud" --config "$WORK/mps.yaml" --backend cuda --listen 127.0.0.1:0 >"$WORK/mps_none.log" 2>&1
    rc=$?
    [[ $rc == 1 ]] && grep -q "policy.mps is true but nvidia-cuda-mps-control cannot be run" "$WORK/mps_none.log"
    check "mps: without nvidia-cuda-mps-control rgpud refuses to start and says what to do" $? "rc $rc: $(cat "$WORK/mps_none.log")"
  fi
fi
finish
