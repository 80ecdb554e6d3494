#!/usr/bin/env bash
# GPU suite runner: runs every GPU suite program natively and then through rgpud from a mount namespace
# in which the GPU's device nodes and driver libraries are hidden, compares the outputs, prints one table.
#
# Usage: run.sh <install-prefix> <log-dir>
#   <install-prefix>/bin/rgpud, <install-prefix>/lib/rgpu/libcudart.so.13 (the client shim) and
#   <install-prefix>/libexec/rgpu/gpu-tests/* (the programs) come from `cmake --install`.
#   Needs root (unshare -m, bind mounts). Exits 0 only when every program passes.
# Environment (all optional):
#   RGPU_SUITE_PORT      first loopback port tried for rgpud (default 47611; the next free one is taken)
#   RGPU_SUITE_TIMEOUT   seconds each program run may take (default 60)
#   RGPU_SUITE_FILTER    glob on program names, to run a subset (default *)
#   RGPUD_EXTRA_ARGS     extra arguments for rgpud (split on spaces)
#   RGPU_SUITE_SERVER    the address the remote runs use (default 127.0.0.1:PORT); for the same-host path,
#                        unix:PATH with RGPUD_EXTRA_ARGS="--listen unix:PATH" (pinned memory is then shared)
#   RGPU_CUDA_LIB_DIR    where the real libcudart.so.13 is for native runs (default: found under /usr/local/cuda)
# The PyTorch suite (<install-prefix>/libexec/rgpu/gpu-tests/torch/*.py) runs too when python3 imports torch:
# natively with python3, remotely through `rgpu run -- python3`; torch/compare.py judges its numbers within
# tolerances and the step times go to a second table (torch_steps.md).
set -euo pipefail

die() {
  echo "run.sh: $*" >&2
  exit 1
}

# ---------------------------------------------------------------------------------------------------
# Hiding the GPU (runs inside the client's mount namespace).

# Prints every NVIDIA device node: /dev/nvidia0, nvidiactl, nvidia-uvm, ..., and /dev/nvidia-caps/*.
# Tested with stat (bash's -c/-b), not find -type, which trusts the directory entry and so still sees a
# device where a file is bind-mounted over it.
gpu_device_nodes() {
  local path
  for path in /dev/nvidia* /dev/nvidia-caps/*; do
    [[ -c $path || -b $path ]] && echo "$path"
  done
  return 0
}

# Prints the real file behind every libcuda.so* and libnvidia-ml.so* that the loader or a program could find
# (but rgpu's own shims under $PREFIX/lib/rgpu).
gpu_driver_libraries() {
  local dirs=(/usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /lib64 /usr/lib /usr/local/nvidia/lib64
              /usr/local/nvidia/lib /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib
              /usr/local/cuda/compat /usr/lib/wsl/lib)
  {
    ldconfig -p 2>/dev/null | awk '$1 ~ /^lib(cuda|nvidia-ml)\.so/ { print $NF }'
    for dir in "${dirs[@]}"; do
      [[ -d $dir ]] && find "$dir/" -maxdepth 3 \( -name 'libcuda.so*' -o -name 'libnvidia-ml.so*' \) 2>/dev/null
    done
  } | while read -r path; do
    [[ -e $path ]] || continue
    path=$(readlink -f "$path")
    # rgpu's own libcuda.so.1 and libnvidia-ml.so.1 shims are the client's, not the GPU's: they stay.
    [[ $path == "$PREFIX/lib/rgpu/"* ]] || echo "$path"
  done | sort -u
}

# Bind-mounts the empty file $1 over every device node and driver library, then proves the GPU is gone:
# /dev/nvidiactl is no longer a device and reads nothing, no NVIDIA device node is left, every driver
# library is empty. Prints the proof once; fails if any part of it does not hold.
hide_gpu() {
  local empty=$1 path nodes=0 libraries=0
  while read -r path; do
    [[ -n $path ]] || continue
    mount --bind "$empty" "$path" || die "cannot hide $path"
    nodes=$((nodes + 1))
  done < <(gpu_device_nodes)
  while read -r path; do
    [[ -n $path ]] || continue
    mount --bind "$empty" "$path" || die "cannot hide $path"
    libraries=$((libraries + 1))
  done < <(gpu_driver_libraries)

  local left ctl_state="absent" bytes=0 nonempty=0
  left=$(gpu_device_nodes | wc -l)
  if [[ -e /dev/nvidiactl ]]; then
    if [[ -c /dev/nvidiactl ]]; then ctl_state="a character device"; else ctl_state="not a device"; fi
    bytes=$(head -c 4096 /dev/nvidiactl 2>/dev/null | wc -c) || bytes=0
  fi
  while read -r path; do
    [[ -n $path && -s $path ]] && nonempty=$((nonempty + 1))
  done < <(gpu_driver_libraries)
  echo "client namespace: hid $nodes NVIDIA device nodes and $libraries driver libraries;" \
       "/dev/nvidiactl is $ctl_state and reads $bytes bytes; device nodes left: $left;" \
       "non-empty driver libraries left: $nonempty"
  [[ $left -eq 0 && $bytes -eq 0 && $nonempty -eq 0 && $ctl_state != "a character device" ]] ||
    die "the GPU is still reachable from the client namespace"
}

# ---------------------------------------------------------------------------------------------------
# Running programs.

now_ns() { date +%s%N; }

# Prints where program $1 would load libcudart.so.13 from, with the current environment.
resolved_cudart() {
  LD_TRACE_LOADED_OBJECTS=1 "$1" 2>/dev/null | awk '$1 == "libcudart.so.13" { print $3 }'
}

# run_program <mode> <program> <log-dir>: runs it with a timeout and writes <mode>.stdout, .stderr, .rc, .ms.
run_program() {
  local mode=$1 program=$2 dir=$3 start end rc=0 command=("$program")
  if [[ $program == *.py ]]; then
    command=(python3 "$program")
    [[ $mode == remote ]] && command=("$PREFIX/bin/rgpu" run -- python3 "$program")
  fi
  start=$(now_ns)
  RGPU_SUITE_RESULTS="$dir/$mode.pt" PYTHONDONTWRITEBYTECODE=1 \
    timeout -k 5 "$TIMEOUT" "${command[@]}" >"$dir/$mode.stdout" 2>"$dir/$mode.stderr" || rc=$?
  end=$(now_ns)
  echo "$rc" >"$dir/$mode.rc"
  echo $(((end - start) / 1000000)) >"$dir/$mode.ms"
  echo "  $mode $(basename "$program"): exit $rc, $(cat "$dir/$mode.ms") ms"
}

# run_all <mode>: runs every selected program in <mode> (native or remote) in the current environment.
run_all() {
  local mode=$1 program
  for program in "${PROGRAMS[@]}"; do
    mkdir -p "$LOG_DIR/$(basename "$program")"
    run_program "$mode" "$program" "$LOG_DIR/$(basename "$program")"
  done
}

# The remote phase, re-entered inside `unshare -m`: hide the GPU, check the client resolves the shim, run.
remote_phase() {
  hide_gpu "$EMPTY_FILE"
  # The shims first; then the client's own CUDA toolkit libraries (NVRTC runs on the client).
  export LD_LIBRARY_PATH="$PREFIX/lib/rgpu:$CUDA_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export RGPU_SERVER="${RGPU_SUITE_SERVER:-127.0.0.1:$PORT}"
  local resolved program probe=""
  for program in "${PROGRAMS[@]}"; do [[ $program == *.py ]] || { probe=$program; break; }; done
  [[ -n $probe ]] || { run_all remote; return; }
  resolved=$(resolved_cudart "$probe")
  echo "client namespace: libcudart.so.13 resolves to ${resolved:-nothing}"
  [[ $(readlink -f "${resolved:-/nonexistent}") == $(readlink -f "$PREFIX/lib/rgpu/libcudart.so.13") ]] ||
    die "the client does not load rgpu's libcudart.so.13"
  run_all remote
}

# ---------------------------------------------------------------------------------------------------
# The daemon.

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

RGPUD_PID=""
WORK_DIR=""
cleanup() {
  if [[ -n $RGPUD_PID ]] && kill -0 "$RGPUD_PID" 2>/dev/null; then
    kill "$RGPUD_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$RGPUD_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$RGPUD_PID" 2>/dev/null || true
    wait "$RGPUD_PID" 2>/dev/null || true
  fi
  [[ -n $WORK_DIR ]] && rm -rf "$WORK_DIR"
}

# Starts rgpud on the first free port from RGPU_SUITE_PORT on and waits (bounded) until it accepts.
start_rgpud() {
  PORT=${RGPU_SUITE_PORT:-47611}
  while port_open "$PORT"; do PORT=$((PORT + 1)); done
  local extra=()
  read -r -a extra <<<"${RGPUD_EXTRA_ARGS:-}"
  LD_LIBRARY_PATH="$NATIVE_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$PREFIX/bin/rgpud" --listen "127.0.0.1:$PORT" --backend cuda "${extra[@]}" >"$LOG_DIR/rgpud.log" 2>&1 &
  RGPUD_PID=$!
  for _ in $(seq 300); do
    port_open "$PORT" && { echo "rgpud (pid $RGPUD_PID) listening on 127.0.0.1:$PORT"; return 0; }
    kill -0 "$RGPUD_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "rgpud did not come up on 127.0.0.1:$PORT; the end of its log:" >&2
  tail -n 40 "$LOG_DIR/rgpud.log" >&2 || true
  exit 1
}

# ---------------------------------------------------------------------------------------------------
# Comparing and reporting.

is_error_case() { [[ $1 == *_error_* ]]; }

# Compares one program's two runs; writes stdout.diff and prints its verdict (PASS or FAIL: why).
verdict() {
  local name=$1 dir=$LOG_DIR/$1 native_rc remote_rc
  native_rc=$(cat "$dir/native.rc")
  remote_rc=$(cat "$dir/remote.rc")
  local same_stdout=yes
  diff -u --label native --label remote "$dir/native.stdout" "$dir/remote.stdout" >"$dir/stdout.diff" ||
    same_stdout=no
  if [[ $same_stdout == no ]]; then
    echo "FAIL: stdout differs"
  elif [[ $native_rc != "$remote_rc" ]]; then
    echo "FAIL: exit $native_rc native, $remote_rc remote"
  elif [[ $native_rc != 0 ]] && ! is_error_case "$name"; then
    echo "FAIL: exit $native_rc"
  elif [[ $name == *.py ]]; then
    [[ -f $dir/native.pt && -f $dir/remote.pt ]] || { echo "FAIL: no results saved"; return; }
    python3 "$TORCH_DIR/compare.py" "$dir/native.pt" "$dir/remote.pt" "$LOG_DIR/torch_steps.tsv" \
      >"$dir/compare.log" 2>&1 || { echo "FAIL: compare.py failed (see compare.log)"; return; }
    tail -n 1 "$dir/compare.log"
  else
    echo "PASS"
  fi
}

# The PyTorch step times (rows compare.py appended to torch_steps.tsv) as markdown in torch_steps.md,
# also appended to table.md.
torch_steps_table() {
  {
    echo
    echo "| workload | native ms/step | remote ms/step | ratio | bar | round trips/step | calls/step | met |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' \
      "$LOG_DIR/torch_steps.tsv"
  } >"$LOG_DIR/torch_steps.md"
  cat "$LOG_DIR/torch_steps.md" >>"$LOG_DIR/table.md"
}

ratio() { awk -v n="$1" -v r="$2" 'BEGIN { if (n > 0) printf "%.2f", r / n; else print "-" }'; }

# Prints the table (text to stdout, markdown to table.md) and returns non-zero if any program failed.
report() {
  local failures=0 rows=() program name native_ms remote_ms result
  for program in "${PROGRAMS[@]}"; do
    name=$(basename "$program")
    native_ms=$(cat "$LOG_DIR/$name/native.ms")
    remote_ms=$(cat "$LOG_DIR/$name/remote.ms")
    result=$(verdict "$name")
    [[ $result == PASS ]] || failures=$((failures + 1))
    rows+=("$name|$native_ms|$remote_ms|$(ratio "$native_ms" "$remote_ms")|$result")
  done
  local daemon_state="still running" daemon_died=0
  if ! kill -0 "$RGPUD_PID" 2>/dev/null; then
    daemon_state="DIED during the suite (see rgpud.log)"
    daemon_died=1
  fi
  local summary="$((${#PROGRAMS[@]} - failures)) of ${#PROGRAMS[@]} programs passed; rgpud $daemon_state"

  local gpu
  gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null) || gpu="nvidia-smi not available"
  {
    echo "# GPU suite: native vs remote (rgpud on loopback)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- host: $(uname -n)"
    echo "- GPU, driver: $gpu"
    echo "- $summary"
    echo
    echo "| program | native ms | remote ms | ratio | result |"
    echo "| --- | ---: | ---: | ---: | --- |"
    local row
    for row in "${rows[@]}"; do echo "| ${row//|/ | } |"; done
  } >"$LOG_DIR/table.md"

  [[ -s $LOG_DIR/torch_steps.tsv ]] && torch_steps_table

  echo
  echo "GPU: $gpu"
  echo "$summary"
  printf '%-28s %10s %10s %7s  %s\n' program "native ms" "remote ms" ratio result
  local fields
  for row in "${rows[@]}"; do
    IFS='|' read -r -a fields <<<"$row"
    printf '%-28s %10s %10s %7s  %s\n' "${fields[@]}"
  done
  [[ -s $LOG_DIR/torch_steps.md ]] && { echo; cat "$LOG_DIR/torch_steps.md"; }
  [[ $failures -eq 0 && $daemon_died -eq 0 ]]
}

# ---------------------------------------------------------------------------------------------------

main() {
  [[ $# -eq 2 ]] || die "usage: run.sh <install-prefix> <log-dir>"
  PREFIX=$(readlink -f "$1")
  mkdir -p "$2"
  LOG_DIR=$(readlink -f "$2")
  TIMEOUT=${RGPU_SUITE_TIMEOUT:-60}
  [[ $(id -u) -eq 0 ]] || die "needs root: the remote runs use unshare -m and bind mounts"
  [[ -x $PREFIX/bin/rgpud ]] || die "no rgpud at $PREFIX/bin/rgpud"
  [[ -f $PREFIX/lib/rgpu/libcudart.so.13 ]] || die "no client shim at $PREFIX/lib/rgpu/libcudart.so.13"

  PROGRAMS=()
  local program
  for program in "$PREFIX"/libexec/rgpu/gpu-tests/${RGPU_SUITE_FILTER:-*}; do
    [[ -f $program && -x $program ]] && PROGRAMS+=("$program")
  done
  TORCH_DIR=$PREFIX/libexec/rgpu/gpu-tests/torch
  if python3 -c 'import torch' 2>/dev/null; then
    for program in "$TORCH_DIR"/${RGPU_SUITE_FILTER:-*}.py; do
      [[ -f $program && $(basename "$program") != suite.py && $(basename "$program") != compare.py ]] &&
        PROGRAMS+=("$program")
    done
  else
    echo "PyTorch suite: skipped (python3 cannot import torch)"
  fi
  [[ ${#PROGRAMS[@]} -gt 0 ]] || die "no programs in $PREFIX/libexec/rgpu/gpu-tests"

  CUDA_LIB_DIR=${RGPU_CUDA_LIB_DIR:-}
  if [[ -z $CUDA_LIB_DIR ]]; then
    local dir
    for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
      [[ -e $dir/libcudart.so.13 ]] && { CUDA_LIB_DIR=$dir; break; }
    done
  fi
  [[ -e $CUDA_LIB_DIR/libcudart.so.13 ]] || die "no real libcudart.so.13 found (set RGPU_CUDA_LIB_DIR)"
  # The real libraries for rgpud and the native runs: the CUDA toolkit's, and cuDNN 9 from PyTorch's venv.
  NATIVE_LIBS=$CUDA_LIB_DIR
  local cudnn
  for cudnn in /opt/torch/.venv/lib/python3*/site-packages/nvidia/cudnn/lib; do
    [[ -d $cudnn ]] && NATIVE_LIBS="$NATIVE_LIBS:$cudnn"
  done

  trap cleanup EXIT
  trap 'exit 130' INT TERM
  WORK_DIR=$(mktemp -d)
  EMPTY_FILE=$WORK_DIR/empty
  : >"$EMPTY_FILE"
  chmod 0444 "$EMPTY_FILE"

  echo "GPU suite: ${#PROGRAMS[@]} programs from $PREFIX, logs in $LOG_DIR"
  start_rgpud

  echo "native runs (libcudart.so.13 from $CUDA_LIB_DIR):"
  LD_LIBRARY_PATH="$NATIVE_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run_all native

  echo "remote runs (through rgpud, GPU hidden):"
  export PREFIX LOG_DIR TIMEOUT PORT EMPTY_FILE CUDA_LIB_DIR
  unshare -m --propagation private bash "${BASH_SOURCE[0]}" --remote-phase "${PROGRAMS[@]}" ||
    die "the remote phase failed"

  report
}

if [[ ${1:-} == --remote-phase ]]; then
  shift
  PROGRAMS=("$@")
  remote_phase
else
  main "$@"
fi
