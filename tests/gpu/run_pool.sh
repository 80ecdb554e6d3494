#!/usr/bin/env bash
# The pool's checks that need the real GPU (the rest runs in CI against rgpud --emulate,
# tests/integration/run_pool_tests.sh): a 4096 MiB slice measured by nvidia-smi while a tenant
# allocates 1 MiB at a time until refused, PyTorch's view of the slice and its OutOfMemoryError,
# and how fast a killed client's slice returns to the pool.
#
# Usage: run_pool.sh <install-prefix> <log-dir>     (needs nvidia-smi; prints one table last)
set -uo pipefail
PREFIX=$(readlink -f "$1")
LOG_DIR=$2
mkdir -p "$LOG_DIR"
BIN=$PREFIX/bin
PROGS=$PREFIX/libexec/rgpu/integration
PORT=${RGPU_POOL_PORT:-47711}
SLICE_MIB=4096
export RGPU_SERVER=127.0.0.1:$PORT
rows=()
row() { rows+=("$(printf '| %s | %s | %s |' "$1" "$2" "$3")"); }

cat >"$LOG_DIR/pool.yaml" <<YAML
admin_token: admin-secret
tenants:
  - name: slice4g
    token: tok-4g
    memory: ${SLICE_MIB}M
    compute: 50
    compute_limit: 100
YAML
"$BIN/rgpud" --config "$LOG_DIR/pool.yaml" --listen "127.0.0.1:$PORT" >"$LOG_DIR/rgpud.log" 2>&1 &
RGPUD=$!
trap 'kill $RGPUD $SAMPLER 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q "listening on" "$LOG_DIR/rgpud.log" && break; sleep 0.1; done

# nvidia-smi's per-process figure, every 50 ms, for the whole run.
( while :; do
    nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null | sed "s/^/$(date +%s%N) /"
    sleep 0.05
  done ) >"$LOG_DIR/nvidia-smi.samples" &
SAMPLER=$!

worker_pid() {  # the worker of the newest session: its log lines carry its pid
  grep "session [0-9]* start" "$LOG_DIR/rgpud.log" | tail -n 1 | sed -n 's/^rgpud\[\([0-9]*\)\].*/\1/p'
}
max_for() { awk -v p="$1" -F'[ ,]+' '$2 == p && $3 > m { m = $3 } END { print m + 0 }' "$LOG_DIR/nvidia-smi.samples"; }

# 1. CUDA: fill the slice 1 MiB at a time.
# (the program holds the full slice for a second before it quits, for the sampler to see it)
{ printf 'info\nfill\ninfo\n'; sleep 1; echo quit; } |
  RGPU_TOKEN=tok-4g timeout 120 "$BIN/rgpu" run -- "$PROGS/memory_slice" >"$LOG_DIR/fill.out" 2>&1
pid=$(worker_pid)
sleep 0.3
peak=$(max_for "$pid")
fill=$(sed -n 's/^fill: \([0-9]*\) MiB allocated, then \([A-Za-z]*\) .*memset after it: \([A-Za-z]*\) .*$/\1 \2 \3/p' "$LOG_DIR/fill.out")
info=$(grep -m1 '^info' "$LOG_DIR/fill.out")
read -r n why after <<<"$fill"
ok=FAIL
[[ $info == *"total $SLICE_MIB MiB"* && $why == cudaErrorMemoryAllocation && $after == cudaSuccess && $peak -le $SLICE_MIB && $peak -ge $((SLICE_MIB - 8)) ]] && ok=pass
row "CUDA: 1 MiB allocations until refused, slice $SLICE_MIB MiB" \
    "cudaMemGetInfo total ${info#*total }; ${n:-?} MiB allocated, then ${why:-?}, session goes on: ${after:-?}; nvidia-smi peak for the worker $peak MiB" "$ok"

# 2. PyTorch: its view of the slice, its OutOfMemoryError, and work afterwards.
cat >"$LOG_DIR/torch_slice.py" <<'PY'
import torch
free, total = torch.cuda.mem_get_info()
props = torch.cuda.get_device_properties(0).total_memory
held, oom = [], False
try:
    while True:
        held.append(torch.empty(64 << 20, dtype=torch.uint8, device="cuda"))
except torch.cuda.OutOfMemoryError:
    oom = True
allocated = len(held) * 64
# As after an out-of-memory error on a full GPU: free, and go on.
del held
torch.cuda.empty_cache()
x = torch.ones(1024, device="cuda")
print(f"total {total >> 20} MiB props {props >> 20} MiB oom {oom} allocated {allocated} MiB after {x.sum().item():.0f}")
PY
RGPU_TOKEN=tok-4g timeout 300 "$BIN/rgpu" run -- python3 "$LOG_DIR/torch_slice.py" >"$LOG_DIR/torch.out" 2>&1
pid=$(worker_pid)
sleep 0.3
peak=$(max_for "$pid")
line=$(grep '^total' "$LOG_DIR/torch.out")
ok=FAIL
[[ $line == "total $SLICE_MIB MiB props $SLICE_MIB MiB oom True"*"after 1024" && $peak -le $SLICE_MIB ]] && ok=pass
row "PyTorch: mem_get_info, tensors of 64 MiB until OutOfMemoryError" "${line:-$(tail -n 3 "$LOG_DIR/torch.out")}; nvidia-smi peak $peak MiB" "$ok"

# 3. Release: a client killed mid-kernel leaves the pool view.
cat >"$LOG_DIR/busy.py" <<'PY'
import torch, sys
a = torch.randn(8192, 8192, device="cuda")
print("busy", flush=True)
while True:
    a = a @ a
    a = a / a.norm()
PY
RGPU_TOKEN=tok-4g "$BIN/rgpu" run -- python3 "$LOG_DIR/busy.py" >"$LOG_DIR/busy.out" 2>&1 &
busy=$!
for _ in $(seq 300); do grep -q busy "$LOG_DIR/busy.out" && break; sleep 0.1; done
sleep 1
RGPU_TOKEN=admin-secret "$BIN/rgpu" pool >"$LOG_DIR/pool_busy.txt" 2>&1
kill -9 $busy
t0=$(date +%s%N)
gone=""
for _ in $(seq 100); do
  n=$(RGPU_TOKEN=admin-secret "$BIN/rgpu" pool --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["sessions"]))')
  if [[ $n == 0 ]]; then gone=$((($(date +%s%N) - t0) / 1000000)); break; fi
  sleep 0.01
done
RGPU_TOKEN=admin-secret "$BIN/rgpu" pool >"$LOG_DIR/pool_after.txt" 2>&1
ok=FAIL
[[ -n $gone && $gone -le 1000 ]] && ok=pass
row "a client killed mid-kernel: its slice leaves the pool view" "${gone:-never} ms" "$ok"

echo
echo "| check | measured | result |"
echo "| --- | --- | --- |"
printf '%s\n' "${rows[@]}"
! printf '%s\n' "${rows[@]}" | grep -q "| FAIL |"
