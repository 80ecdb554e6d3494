#!/usr/bin/env bash
# Soak: CLIENTS concurrent client loops run programs picked at random from a mix (copies, kernels,
# cuBLAS, cuBLASLt, cuDNN, NVML, the driver API, control sessions; PyTorch on a GPU) as tenants
# picked at random from a pool configuration, against one rgpud on loopback, for a number of
# sessions or a time; a share of the sessions is killed with SIGKILL at a random moment. Every
# session not killed must succeed, its verdict line checked. At the end nothing may be left: no
# worker, no descriptor beyond rgpud's start, no pool reservation or queued session, no GPU memory
# (cuda), no client process; rgpud's RSS within 10 % of its value after the warm-up. See
# docs/reliability.md, "Soak".
#
# Usage: soak.sh [OPTIONS]
#   --clients N         concurrent client loops (64)
#   --sessions N        sessions in all (10000, or no bound when only --duration is given)
#   --duration S        stop starting sessions after S seconds (whichever of the two comes first)
#   --kill-fraction F   share of sessions killed with SIGKILL (0.1)
#   --kill-window S     a killed session dies at a random moment of its first S seconds, until
#                       its client has seen the program end (then: of that run's length) (2)
#   --session-timeout S a session not killed that runs longer than S seconds fails (300: a large
#                       slice's session may wait in the admission queue meanwhile)
#   --backend B         emulated (default) or cuda
#   --bin DIR           the folder with rgpud and rgpu, or an install prefix (DIR/bin)
#   --programs DIR      a folder with the mix's programs (repeatable; by default those of the
#                       build or install tree --bin is in)
#   --warmup N          sessions before rgpud's RSS is taken as its reference
#                       (max(4 x clients, sessions / 10))
#   --seed N            the client loops' random seed (printed; the same seed, the same picks)
#   --log DIR           keep the logs there (rgpud's, every session's line, failed sessions' output)
# Exits non-zero, with a FAIL line saying what, when a session failed or anything was left.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() {
  echo "soak.sh: $*" >&2
  exit 2
}

CLIENTS=64 SESSIONS="" DURATION="" KILL_FRACTION=0.1 KILL_WINDOW=2 SESSION_TIMEOUT=300 BACKEND=emulated BIN="" WARMUP=""
SEED=$(($(date +%s) % 32768)) KEEP_LOG="" PROG_DIRS=()
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || die "$1 needs a value (see the usage at the top of $0)"
  case $1 in
    --clients) CLIENTS=$2 ;;
    --sessions) SESSIONS=$2 ;;
    --duration) DURATION=$2 ;;
    --kill-fraction) KILL_FRACTION=$2 ;;
    --kill-window) KILL_WINDOW=$2 ;;
    --session-timeout) SESSION_TIMEOUT=$2 ;;
    --backend) BACKEND=$2 ;;
    --bin) BIN=$2 ;;
    --programs) PROG_DIRS+=("$(cd "$2" && pwd)") || die "no folder $2" ;;
    --warmup) WARMUP=$2 ;;
    --seed) SEED=$2 ;;
    --log) KEEP_LOG=$2 ;;
    *) die "unknown option $1 (see the usage at the top of $0)" ;;
  esac
  shift 2
done
[[ $BACKEND == emulated || $BACKEND == cuda ]] || die "--backend is emulated or cuda, not $BACKEND"
# Bounded by time only, the run's size is not known: the warm-up is then four sessions per client.
BY_TIME=$([[ -z $SESSIONS && -n $DURATION ]] && echo 1)
[[ -n $BY_TIME ]] && SESSIONS=$((1 << 40))
SESSIONS=${SESSIONS:-10000}
[[ -n $WARMUP || -z $BY_TIME ]] || WARMUP=$((4 * CLIENTS))
[[ -n $WARMUP ]] || WARMUP=$((4 * CLIENTS > SESSIONS / 10 ? 4 * CLIENTS : SESSIONS / 10))

# Where rgpud, rgpu and the programs are: this script in a source tree (scripts/, build/ beside
# it) or installed (libexec/rgpu/ of a prefix); --bin may name a build's bin/ or a prefix.
if [[ -z $BIN ]]; then
  if [[ -x $HERE/../../bin/rgpud ]]; then BIN=$HERE/../../bin; else BIN=$HERE/../build/bin; fi
fi
[[ -x $BIN/rgpud || ! -x $BIN/bin/rgpud ]] || BIN=$BIN/bin
[[ -x $BIN/rgpud && -x $BIN/rgpu ]] || die "no rgpud and rgpu in $BIN (--bin)"
BIN=$(cd "$BIN" && pwd)
if [[ ${#PROG_DIRS[@]} == 0 ]]; then
  for dir in "$BIN/../libexec/rgpu/integration" "$BIN/../libexec/rgpu/gpu-tests" "$BIN/../libexec/rgpu/gpu-tests/torch" \
             "$BIN/../tests/integration/programs" "$BIN/../tests/gpu/programs" "$HERE/../tests/gpu/torch"; do
    [[ -d $dir ]] && PROG_DIRS+=("$(cd "$dir" && pwd)")
  done
fi
for harness in "$HERE/harness.sh" "$HERE/../tests/integration/harness.sh"; do
  [[ -f $harness ]] && break
done
# shellcheck source=../tests/integration/harness.sh
source "$harness"
SOAK_LOG=${KEEP_LOG:-$WORK}
mkdir -p "$SOAK_LOG/failed" "$SOAK_LOG/clients" || die "cannot write to $SOAK_LOG"
SOAK_LOG=$(cd "$SOAK_LOG" && pwd)

# ---- the mix ----------------------------------------------------------------------------------
# Each entry: WEIGHT|TENANTS|VERDICT|PROGRAM [ARGS...]. TENANTS is "any" (a tenant picked at
# random per session) or one tenant; VERDICT an extended regex a line of the output must match;
# PROGRAM a file in a --programs folder (*.py runs with python3), or @ls (`rgpu ls`, a control
# session). Entries whose program is not there are left out, and said so.
MIX=()
add() { MIX+=("$1|$2|$3|${*:4}"); }
if [[ $BACKEND == emulated ]]; then
  add 3 any '^api_tour PASS: 0 failure' api_tour
  for tour in cublas_tour cublaslt_tour cudnn_tour; do add 2 any "^ok: $tour\$" "$tour"; done
  # It checks that the server has two devices (nvml_tour, not here, that they are idle).
  add 1 whole '^ok: driver_tour$' driver_tour
  add 2 any '^ok: round_trips ' round_trips
  add 1 any '^ok: big_copies$' big_copies
  add 2 any '^every call succeeded' keep_calling 2
  add 1 any '^PASS$' take_turns 64 3 50
  add 1 whole '^two_devices: PASS$' two_devices
  add 1 any '^[0-9]+$' mem_info
  add 1 any '^GPU' @ls
else
  # The GPU suite's programs whose output holds whatever else runs on the GPU (not 21_mem_get_info,
  # which compares free memory; not the error cases).
  for p in 01_vector_add 02_matmul_tiled 03_streams_overlap 06_graphs 07_host_threads 11_templates 14_memcpy_kinds \
           16_host_callbacks 22_stream_ordered_alloc 23_cublas 25_cublaslt 26_cudnn; do
    add 1 any "^([0-9][0-9]_)?${p#[0-9][0-9]_}: PASS\$" "$p"  # most name themselves without their number
  done
  add 2 any '^api_tour PASS: 0 failure' api_tour
  add 1 any '^ok: big_copies$' big_copies
  add 1 any '^every call succeeded' keep_calling 2
  add 1 any '^PASS$' take_turns 256 3 50
  add 1 any '^GPU' @ls
  if python3 -c 'import torch' 2>/dev/null; then add 3 any '^matmul: PASS$' matmul.py; else echo "soak: no PyTorch (python3 cannot import torch)"; fi
fi

find_program() {
  local dir
  [[ $1 == @* ]] && { echo "$1"; return 0; }
  for dir in "${PROG_DIRS[@]}"; do
    [[ -f $dir/$1 && ( $1 == *.py || -x $dir/$1 ) ]] && { echo "$dir/$1"; return 0; }
  done
  return 1
}
ENTRIES=() PICK=() missing=""
for entry in "${MIX[@]}"; do
  IFS='|' read -r weight tenants verdict command <<<"$entry"
  read -r program args <<<"$command"
  path=$(find_program "$program") || { missing+=" $program"; continue; }
  ENTRIES+=("$tenants|$verdict|$path|${args:-}")
  for _ in $(seq "$weight"); do PICK+=($((${#ENTRIES[@]} - 1))); done
done
[[ -n $missing ]] && echo "soak: not in ${PROG_DIRS[*]:-no --programs folder}, left out of the mix:$missing"
[[ ${#ENTRIES[@]} -ge 3 ]] || die "fewer than 3 of the mix's programs found (--programs)"

# ---- the pool ---------------------------------------------------------------------------------
# A whole-GPU tenant, a small slice that many sessions share, and a large low-priority one that
# waits in the admission queue when the GPUs are full.
if [[ $BACKEND == emulated ]]; then
  export RGPU_EMULATED_DEVICES=2 RGPU_EMULATED_MEMORY_MB=16384
  SMALL=256M BIG=4G
else
  SMALL=3G BIG=16G
fi
cat >"$WORK/soak.yaml" <<YAML
admin_token: soak-admin
policy: {placement: spread}
tenants:
  - {name: whole, token: soak-whole}
  - {name: small, token: soak-small, memory: $SMALL, compute: 1, compute_limit: 100}
  - {name: big, token: soak-big, memory: $BIG, compute: 20, compute_limit: 100, priority: low}
YAML
TENANTS=(whole whole small small small big)
export RGPU_MODULE_CACHE=$WORK/modules

# On a GPU host rgpud loads the real CUDA libraries: the toolkit's, and cuDNN from PyTorch's venv.
server_libs=${LD_LIBRARY_PATH:-}
if [[ $BACKEND == cuda ]]; then
  for dir in /usr/local/cuda/lib64 /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib; do
    [[ -d $dir ]] && server_libs=$dir${server_libs:+:$server_libs}
  done
  command -v nvidia-smi >/dev/null || die "--backend cuda needs nvidia-smi"
fi
LD_LIBRARY_PATH=$server_libs start_server --backend "$BACKEND" --config "$WORK/soak.yaml" || exit 1
RGPUD=${PIDS[-1]}

rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$RGPUD/status" 2>/dev/null; }
fds() { ls "/proc/$RGPUD/fd" 2>/dev/null | wc -l; }
workers() { pgrep -P "$RGPUD" | wc -l; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
gpu_used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | awk '{ s += $1 } END { print s }'; }
gpu_apps() { nvidia-smi --query-compute-apps=pid --format=csv,noheader | sort | tr '\n' ' '; }

# rgpud has forked its device inventory's child and nothing else yet: wait for that to end.
for _ in $(seq 100); do [[ $(workers) == 0 ]] && break; sleep 0.1; done
FDS_START=$(fds) RSS_START=$(rss_kib)
if [[ $BACKEND == cuda ]]; then GPU_START=$(gpu_used) APPS_START=$(gpu_apps); fi

# ---- the clients ------------------------------------------------------------------------------
# Every client process carries the mark in its environment, so one left behind is found by it.
MARK=soak-$$-$SEED
KILL_BELOW=$(awk -v f="$KILL_FRACTION" 'BEGIN { printf "%d", f * 32768 }')
KILL_WINDOW_MS=$(awk -v s="$KILL_WINDOW" 'BEGIN { printf "%d", s * 1000 }')
RESULTS=$SOAK_LOG/sessions.tsv
: >"$RESULTS"
START_S=$(date +%s)
END_S=$((DURATION ? START_S + DURATION : 1 << 40))

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# One session: a program and a tenant at random, killed at a random moment or checked; one line
# "CLIENT PROGRAM TENANT OUTCOME MS RC KILL" appended to $RESULTS (lines this short are appended
# whole; KILL: 1 when a kill was chosen, which a session that ended first escaped). The moment is
# drawn from the length of the program's last run this client saw, so that most kills land while
# it runs, at any stage (connecting, the handshake, the queue, calls, its exit).
declare -A LAST_MS
run_session() {
  local c=$1 entry tenants verdict path args tenant
  local out=$SOAK_LOG/clients/$c.out err=$SOAK_LOG/clients/$c.err
  entry=${ENTRIES[${PICK[RANDOM % ${#PICK[@]}]}]}
  IFS='|' read -r tenants verdict path args <<<"$entry"
  tenant=$tenants
  [[ $tenant == any ]] && tenant=${TENANTS[RANDOM % ${#TENANTS[@]}]}
  # Line-buffered output, so that a session that times out shows how far it got.
  local cmd=(stdbuf -oL "$BIN/rgpu" run -- "$path") kill=0
  [[ $path == *.py ]] && cmd=(env PYTHONUNBUFFERED=1 "$BIN/rgpu" run -- python3 "$path")
  [[ $path == @ls ]] && cmd=("$BIN/rgpu" ls)
  ((RANDOM < KILL_BELOW)) && kill=1
  ((kill)) || cmd=(timeout -k 5 "$SESSION_TIMEOUT" "${cmd[@]}")
  local start; start=$(now_ms)
  # shellcheck disable=SC2086  # ARGS are words
  (client_exec env RGPU_TOKEN="soak-$tenant" "${cmd[@]}" $args) >"$out" 2>"$err" &
  local pid=$!
  if ((kill)); then
    local ms=$((RANDOM % (${LAST_MS[$path]:-$KILL_WINDOW_MS} + 1)))
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
    kill -9 "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null  # (not bash's "Killed" line)
  local rc=$? outcome=ok took=$(($(now_ms) - start))
  if ((kill && rc == 137)); then
    outcome=killed
  elif [[ $rc == 0 ]] && grep -Eq "$verdict" "$out"; then
    LAST_MS[$path]=$took
  else
    outcome=failed
    local n; n=$(wc -l <"$RESULTS")
    local why="exit $rc"
    [[ $rc == 124 ]] && why="timed out after $SESSION_TIMEOUT s (--session-timeout)"
    { echo "== $(basename "$path") $args as tenant $tenant: $why, no line matching $verdict"
      echo "== stdout"; cat "$out"; echo "== stderr"; cat "$err"; } >"$SOAK_LOG/failed/$c.$n.txt"
  fi
  echo "$c $(basename "$path") $tenant $outcome $took $rc $kill" >>"$RESULTS"
}

client_loop() {
  local c=$1 n=$2
  RANDOM=$((SEED + c))
  export RGPU_SOAK_MARK=$MARK
  for ((i = 0; i < n; i++)); do
    (($(date +%s) < END_S)) || break
    run_session "$c"
  done
}

# Client processes of this soak still alive (marked), with their command lines.
marked_clients() {
  local f
  grep -lsxz "RGPU_SOAK_MARK=$MARK" /proc/[0-9]*/environ 2>/dev/null | while read -r f; do
    f=${f#/proc/}
    f=${f%/environ}
    echo "$f $(tr '\0' ' ' <"/proc/$f/cmdline" 2>/dev/null)"
  done
}
# Interrupted, the loops end with harness.sh's cleanup; their clients are ended here, by pid.
trap 'for p in $(marked_clients | cut -d" " -f1); do kill -9 "$p" 2>/dev/null; done; cleanup' EXIT

echo "soak: $CLIENTS clients, $( ((SESSIONS < 1 << 40)) && echo "$SESSIONS sessions" || echo "no session bound")," \
  "${DURATION:-no} time bound${DURATION:+ s}, kill fraction $KILL_FRACTION, $BACKEND backend, seed $SEED," \
  "rgpud $BIN/rgpud (pid $RGPUD), logs in $SOAK_LOG"
echo "soak: the mix: $(for e in "${ENTRIES[@]}"; do IFS='|' read -r _ _ p a <<<"$e"; printf '%s ' "$(basename "$p")${a:+ $a}"; done)"
LOOPS=()
for ((c = 0; c < CLIENTS; c++)); do
  client_loop "$c" $((SESSIONS / CLIENTS + (c < SESSIONS % CLIENTS))) &
  LOOPS+=($!)
  PIDS+=($!)
done

# ---- watching ---------------------------------------------------------------------------------
counts() { awk '{ n[$4]++ } END { printf "%d %d %d %d\n", NR, n["ok"], n["failed"], n["killed"] }' "$RESULTS"; }
RSS_WARM="" RSS_PEAK=$RSS_START FDS_PEAK=$FDS_START WORKERS_PEAK=0 last_report=$START_S
while :; do
  running=0
  for p in "${LOOPS[@]}"; do kill -0 "$p" 2>/dev/null && running=$((running + 1)); done
  read -r done_n ok failed_n killed < <(counts)
  rss=$(rss_kib) f=$(fds) w=$(workers)
  ((rss > RSS_PEAK)) && RSS_PEAK=$rss
  ((f > FDS_PEAK)) && FDS_PEAK=$f
  ((w > WORKERS_PEAK)) && WORKERS_PEAK=$w
  [[ -z $RSS_WARM ]] && ((done_n >= WARMUP)) && RSS_WARM=$rss WARM_AT=$done_n
  now=$(date +%s)
  if ((now - last_report >= 10 || running == 0)); then
    last_report=$now
    echo "soak: $((now - START_S)) s: $done_n sessions ($ok ok, $failed_n failed, $killed killed);" \
      "rgpud RSS $(mib "$rss") MiB, $f descriptors, $w workers"
  fi
  ((running == 0)) && break
  kill -0 "$RGPUD" 2>/dev/null || { echo "FAIL: rgpud died during the soak"; break; }
  sleep 1
done
wait "${LOOPS[@]}" 2>/dev/null
DURATION_S=$(($(date +%s) - START_S))

# ---- what is left -----------------------------------------------------------------------------
# The pool's books first (`rgpu pool` is a session too), then processes and descriptors, which
# their ends release within moments.
pool_left() {
  RGPU_TOKEN=soak-admin client timeout 20 "$BIN/rgpu" pool --json >"$WORK/pool.json" 2>&1 &&
    python3 - "$WORK/pool.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
left = [f"session {s['id']} ({s['tenant']}, {s['program']})" for s in v["sessions"]]
left += [f"queued {q['id']} ({q['tenant']}, {q['program']})" for q in v["queue"]]
left += [f"GPU {g['index']}: {g['memory_reserved_bytes']} bytes and {g['compute_reserved_percent']} % reserved, "
         f"{g['memory_used_bytes']} bytes used, {g['sessions']} sessions"
         for g in v["gpus"] if g["memory_reserved_bytes"] or g["compute_reserved_percent"] or g["memory_used_bytes"] or g["sessions"]]
print("; ".join(left) if left else "nothing")
sys.exit(1 if left else 0)
PY
}
for _ in $(seq 50); do POOL_LEFT=$(pool_left) && break; sleep 0.2; done
for _ in $(seq 300); do [[ $(workers) == 0 ]] && break; sleep 0.1; done
WORKERS_END=$(workers)
for _ in $(seq 100); do [[ $(fds) -le $FDS_START ]] && break; sleep 0.1; done
FDS_END=$(fds) RSS_END=$(rss_kib) CLIENTS_LEFT=$(marked_clients)
if [[ $BACKEND == cuda ]]; then
  for _ in $(seq 100); do (($(gpu_used) <= GPU_START + 64)) && break; sleep 0.1; done
  GPU_END=$(gpu_used) APPS_END=$(gpu_apps)
fi

# ---- the summary ------------------------------------------------------------------------------
read -r total ok failed_n killed < <(counts)
{
  echo
  echo "soak summary: $BACKEND, $CLIENTS clients, seed $SEED, $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n) ($(nproc) CPUs)"
  printf '  %-20s %s\n' duration "$DURATION_S s" \
    sessions "$total: $ok ok, $failed_n failed, $killed killed ($(awk -v n="$total" -v s="$DURATION_S" 'BEGIN { printf "%.1f", s ? n / s : 0 }') per s)" \
    kills "$(awk '$7 == 1 { n++ } END { print n + 0 }' "$RESULTS") chosen, $killed landed (the others' programs had ended)" \
    "rgpud RSS" "start $(mib "$RSS_START") MiB, after warm-up (${WARM_AT:-not reached} sessions) $(mib "${RSS_WARM:-0}") MiB, peak $(mib "$RSS_PEAK") MiB, end $(mib "$RSS_END") MiB" \
    "rgpud descriptors" "start $FDS_START, peak $FDS_PEAK, end $FDS_END" \
    "rgpud workers" "peak $WORKERS_PEAK, end $WORKERS_END" \
    "pool left" "$POOL_LEFT" \
    "clients left" "${CLIENTS_LEFT:-none}"
  [[ $BACKEND == cuda ]] && printf '  %-20s %s\n' "GPU memory used" "start $GPU_START MiB, end $GPU_END MiB" \
    "GPU processes" "start: ${APPS_START:-none}; end: ${APPS_END:-none}"
  printf '    %-24s %6s %6s %6s %8s\n' program ok failed killed "mean ms"
  awk '{ n[$2 " " $4]++; p[$2] = 1; if ($4 == "ok") ms[$2] += $5 }
       END { for (q in p) printf "    %-24s %6d %6d %6d %8s\n", q, n[q " ok"], n[q " failed"], n[q " killed"],
                                 n[q " ok"] ? int(ms[q] / n[q " ok"]) : "-" }' \
    "$RESULTS" | sort
  # Per tenant: a small share's sessions wait for turns among many, and the slowest of them tell
  # how far --session-timeout must reach.
  printf '    %-24s %6s %8s %8s\n' tenant ok "mean ms" "max ms"
  awk '$4 == "ok" { n[$3]++; ms[$3] += $5; if ($5 > mx[$3]) mx[$3] = $5 }
       END { for (t in n) printf "    %-24s %6d %8d %8d\n", t, n[t], int(ms[t] / n[t]), mx[t] }' "$RESULTS" | sort
  echo
} | tee "$SOAK_LOG/summary.txt"

check "every session not killed succeeded ($failed_n failed: $SOAK_LOG/failed/)" $((failed_n != 0)) \
  "$(find "$SOAK_LOG/failed" -type f | head -3 | xargs -r head -8)"
check "sessions were killed ($killed)" $((killed == 0 && KILL_BELOW > 0 && total >= 100))
kill -0 "$RGPUD" 2>/dev/null
check "rgpud still serving" $?
# A worker left is a session stuck: where its threads are (gdb, where installed) says why.
worker_stacks() {
  local pid
  for pid in $(pgrep -P "$RGPUD"); do
    echo "== worker $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
    if command -v gdb >/dev/null; then
      timeout 60 gdb -p "$pid" -batch -ex 'thread apply all bt 30' 2>/dev/null | grep '^#\|^Thread' | tee "$SOAK_LOG/failed/worker-$pid.stacks" | head -80
    fi
  done
}
check "no rgpud worker left" $((WORKERS_END != 0)) "$( ((WORKERS_END)) && worker_stacks)"
check "rgpud's descriptors back to their start ($FDS_START)" $((FDS_END > FDS_START)) \
  "$FDS_END: $(ls -l "/proc/$RGPUD/fd" 2>/dev/null | tail -n +2 | awk '{ print $NF }' | sort | uniq -c | sort -rn | head -5 | tr '\n' ';')"
[[ $POOL_LEFT == nothing ]]
check "no pool reservation, session or queued session left" $? "$POOL_LEFT"
# Under a sanitizer (harness.sh's RGPU_TEST_PRELOAD) freed memory waits in ASan's quarantine, so
# RSS says nothing about leaks there.
if [[ -n ${RGPU_TEST_PRELOAD:-} ]]; then
  echo "   (rgpud's RSS not bounded under a sanitizer: its quarantine keeps freed memory)"
else
  [[ -n $RSS_WARM ]] && ((RSS_END * 10 <= RSS_WARM * 11))
  check "rgpud's RSS at the end within 10 % of its RSS after the warm-up" $? \
    "${RSS_WARM:+$(mib "$RSS_WARM") MiB after $WARM_AT sessions, $(mib "$RSS_END") MiB at the end}${RSS_WARM:-the run ended before the warm-up ($WARMUP sessions)}"
fi
[[ -z $CLIENTS_LEFT ]]
check "no client process left" $? "$CLIENTS_LEFT"
# A worker's crash or sanitizer report, and a stripe lost on its way to its session (which the
# session survives, slower).
LOG_TROUBLE="was killed by signal\|AddressSanitizer\|runtime error:\|stripe hand-over failed"
! grep -q "$LOG_TROUBLE" "$LOG"
check "no worker crashed, no stripe lost (rgpud's log)" $? "$(grep -m3 "$LOG_TROUBLE" "$LOG")"
if [[ $BACKEND == cuda ]]; then
  ((GPU_END <= GPU_START + 64))
  check "GPU memory used back to its start ($GPU_START MiB, 64 MiB slack)" $? "$GPU_END MiB"
  [[ $APPS_END == "$APPS_START" ]]
  check "no process left on the GPU" $? "$APPS_END"
fi
[[ -n $KEEP_LOG ]] && cp "$LOG" "$SOAK_LOG/rgpud.log"
finish
