#!/usr/bin/env bash
# Issue 13's table in one run on a GPU host: `rgpu bench` over each data path, every one native and
# remote side by side, against one rgpud on loopback:
#   same host  `rgpu bench all --transport unix`   copies through shared memory, latency, launch rate
#   TCP        `rgpu bench copy`                   striped pinned and pageable copies, raw streams
#   UCX        `rgpu bench copy --transport ucx`   UCX over its TCP transport (no RDMA device here)
# then the rows that carry one of issue 13's bars, gathered from the three reports.
#
# Usage: run_bench.sh <install-prefix> <log-dir>
#   RGPU_BENCH_UCX_LIBS  a folder with libucp.so.0 and the rest of UCX (and ucx/ with its modules)
#                        for a host that has none installed; without UCX the UCX run is skipped
#   RGPU_BENCH_PORT      rgpud's TCP port (default 47712)
#   RGPU_BENCH_BACKEND   rgpud's backend (default cuda; emulated tries the script without a GPU)
#   RGPU_BENCH_ARGS      more arguments for every rgpu bench (for example --quick)
set -uo pipefail
PREFIX=$(readlink -f "$1")
LOG_DIR=$2
mkdir -p "$LOG_DIR"
PORT=${RGPU_BENCH_PORT:-47712}
SOCK=$LOG_DIR/rgpud.sock
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64
[[ -n ${RGPU_BENCH_UCX_LIBS:-} ]] && export LD_LIBRARY_PATH=$RGPU_BENCH_UCX_LIBS:$LD_LIBRARY_PATH
RGPUD=

start_rgpud() {  # $1: log name; the rest: environment for rgpud
  local log=$LOG_DIR/$1.log
  rm -f "$SOCK"
  env "${@:2}" "$PREFIX/bin/rgpud" --backend "${RGPU_BENCH_BACKEND:-cuda}" --listen "127.0.0.1:$PORT" --listen "unix:$SOCK" >"$log" 2>&1 &
  RGPUD=$!
  for _ in $(seq 100); do [[ -S $SOCK ]] && return 0; sleep 0.1; done
  echo "rgpud did not start: see $log" >&2
  return 1
}
stop_rgpud() { [[ -n $RGPUD ]] && kill "$RGPUD" 2>/dev/null && wait "$RGPUD" 2>/dev/null; RGPUD=; }
trap stop_rgpud EXIT

bench() {  # $1: report name; the rest: rgpu bench's arguments
  echo "== rgpu bench ${*:2} ($(date -u +%H:%M:%S) UTC)"
  # shellcheck disable=SC2086  # RGPU_BENCH_ARGS is a list of arguments
  timeout 300 "$PREFIX/bin/rgpu" bench "${@:2}" ${RGPU_BENCH_ARGS:-} >"$LOG_DIR/$1.txt" 2>"$LOG_DIR/$1.err" ||
    echo "rgpu bench ${*:2} failed: see $LOG_DIR/$1.err"
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$LOG_DIR/gpu.txt" 2>&1
start_rgpud rgpud || exit 1
RGPU_SERVER=unix:$SOCK bench unix all --transport unix
RGPU_SERVER=127.0.0.1:$PORT bench tcp copy
stop_rgpud
if ldconfig -p 2>/dev/null | grep -q libucp.so.0 || [[ -e ${RGPU_BENCH_UCX_LIBS:-/nonexistent}/libucp.so.0 ]]; then
  start_rgpud rgpud-ucx RGPU_TRANSPORT=ucx UCX_TLS=tcp || exit 1
  RGPU_SERVER=127.0.0.1:$PORT UCX_TLS=tcp bench ucx copy --transport ucx
  stop_rgpud
else
  echo "UCX run skipped: no libucp.so.0 (set RGPU_BENCH_UCX_LIBS)" | tee "$LOG_DIR/ucx.txt"
fi

# The rows with issue 13's bars (each report judges its own rows against native and the raw floors).
echo
echo "GPU: $(cat "$LOG_DIR/gpu.txt")"
for path in unix tcp ucx; do
  echo "-- $path"
  grep -E 'pingpong|_16MiB|_256MiB|latency_|launch_throughput|transport_(sink|source)' "$LOG_DIR/$path.txt"
done
