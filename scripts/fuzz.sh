#!/usr/bin/env bash
# The scheduled fuzzing job (not CI: CI replays the corpus, tests/fuzz/CMakeLists.txt). Builds every
# libFuzzer target with clang (-fsanitize=fuzzer,address,undefined) in build-fuzz/, runs each for
# N inputs, stops at the first crash and names its reproducer, optionally merges what was found
# into the committed corpus (tests/fuzz/corpus/<target>/), and prints one summary table.
#
#   scripts/fuzz.sh [--runs N] [--parallel P] [--targets "fuzz_a fuzz_b"] [--merge]
#   scripts/fuzz.sh --build-only            # build-fuzz/bin: the fuzzers and the libraries they need
#   scripts/fuzz.sh --run-only --bin DIR    # runs a copy of build-fuzz/bin (no compiler needed)
#   scripts/fuzz.sh --seed-corpus           # rewrites the seeds (a GCC build in build/)
#
#   --runs N         inputs per target (default 10,000,000)
#   --parallel P     targets run at once (default 1)
#   --workers W      processes per target, sharing its N inputs and its growing corpus (default 1)
#   --max-time S     stop each target after S seconds as well (default: none)
#   --corpus DIR     the committed corpus (default tests/fuzz/corpus beside this script)
#   --work DIR       logs, crashes and each run's growing corpus (default fuzz-work/ in the current folder)
#   --nice N         niceness of the fuzzers (default 15: the machine is shared)
#   --merge          afterwards, add to the committed corpus the found inputs that add coverage (-merge=1)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

all_targets="fuzz_handshake fuzz_frames fuzz_cudart_args fuzz_cublas_args fuzz_cublaslt_args fuzz_cudnn_args
             fuzz_curand_args fuzz_cufft_args fuzz_cusparse_args fuzz_cusolver_args fuzz_fatbin fuzz_config"
targets=$all_targets runs=10000000 parallel=1 workers=1 max_time=0 niceness=15 merge=0
build=1 run=1 seed_corpus=0
bin="$root/build-fuzz/bin" corpus="$root/tests/fuzz/corpus" work="$PWD/fuzz-work"
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift ;;
    --parallel) parallel=$2; shift ;;
    --workers) workers=$2; shift ;;
    --max-time) max_time=$2; shift ;;
    --targets) targets=$2; shift ;;
    --corpus) corpus=$(cd "$2" && pwd); shift ;;
    --work) work=$2; shift ;;
    --nice) niceness=$2; shift ;;
    --bin) bin=$(cd "$2" && pwd); shift ;;
    --merge) merge=1 ;;
    --build-only) run=0 ;;
    --run-only) build=0 ;;
    --seed-corpus) seed_corpus=1 build=0 run=0 ;;
    *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
  shift
done

if [[ $seed_corpus == 1 ]]; then
  cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug >/dev/null
  nice -n 10 ninja -C "$root/build" fuzz_seed_corpus
  "$root/build/tests/fuzz/fuzz_seed_corpus" "$corpus"
  exit 0
fi

if [[ $build == 1 ]]; then
  echo "== build (build-fuzz/: clang, libFuzzer, ASan + UBSan, coverage in every library)"
  CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS="-O1 -fsanitize=fuzzer-no-link" -DCMAKE_CXX_FLAGS="-O1 -fsanitize=fuzzer-no-link" \
    -DRGPU_SANITIZE=ON -DRGPU_LIBFUZZER=ON -DRGPU_BUILD_GPU_PROGRAMS=OFF >/dev/null
  # shellcheck disable=SC2086
  nice -n 10 ninja -C "$root/build-fuzz" -j"$(nproc)" $all_targets
  # The folder that travels: the fuzzers, and in lib/ (their RPATH) every shared library they
  # need beyond the C and C++ runtimes, so that a host without rgpu's build dependencies runs them.
  rm -rf "$bin" && mkdir -p "$bin/lib"
  for t in $all_targets; do
    cp "$root/build-fuzz/tests/fuzz/$t" "$bin/"
    ldd "$bin/$t" | awk -v own="$bin/lib/" '$3 ~ /^\// && index($3, own) != 1 {print $3}' |
      { grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux-x86-64)\.so' || true; } |
      xargs -r cp -L -u -t "$bin/lib/"
  done
  echo "fuzzers in $bin (libraries: $(ls "$bin/lib" | tr '\n' ' '))"
fi
[[ $run == 1 ]] || exit 0

mkdir -p "$work/logs" "$work/crashes"
declare -A pid_of=() result_of=()
crashed=""

# The last "#N ... exec/s: X" progress line of a target's first worker.
progress() { grep -aE '^#[0-9]+' "$work/logs/$1.1.log" 2>/dev/null | tail -1 | cut -c1-110; }

# Runs a target's workers, each its share of the inputs; the first to fail stops the others.
run_workers() {
  local t=$1 rc=0 k
  local args=(-runs="$(( (runs + workers - 1) / workers ))" -print_final_stats=1 -artifact_prefix="$work/crashes/$t-")
  [[ $max_time == 0 ]] || args+=(-max_total_time="$max_time")
  for k in $(seq "$workers"); do
    # The first folder receives what the run finds (all workers share it); the committed corpus
    # is only read.
    nice -n "$niceness" "$bin/$t" "${args[@]}" "$work/corpus/$t" "$corpus/$t" >"$work/logs/$t.$k.log" 2>&1 &
  done
  for k in $(seq "$workers"); do
    wait -n && continue
    rc=$?
    kill $(jobs -p) 2>/dev/null || true
    break
  done
  wait
  return $rc
}

start() {
  local t=$1
  mkdir -p "$work/corpus/$t"
  run_workers "$t" &
  pid_of[$t]=$!
  echo "-- $t started ($runs inputs over $workers worker(s), logs $work/logs/$t.*.log)"
}

finish() {
  local t=$1 rc=0
  wait "${pid_of[$t]}" || rc=$?
  unset "pid_of[$t]"
  if [[ $rc == 0 ]]; then
    result_of[$t]=ok
  else
    local artifact
    artifact=$(cat "$work/logs/$t".*.log | grep -ao "Test unit written to [^ ]*" | tail -1 | cut -d' ' -f5)
    result_of[$t]="FAILED (exit $rc) ${artifact:-see the log}"
    crashed=$t
    echo "!! $t failed: reproducer ${artifact:-none written}; logs $work/logs/$t.*.log"
    cat "$work/logs/$t".*.log | grep -aE "ERROR: |invariant violated|SUMMARY" | head -5 || true
  fi
}

queue=($targets)
while [[ ${#queue[@]} -gt 0 || ${#pid_of[@]} -gt 0 ]]; do
  while [[ -z $crashed && ${#queue[@]} -gt 0 && ${#pid_of[@]} -lt $parallel ]]; do
    start "${queue[0]}"
    queue=("${queue[@]:1}")
  done
  [[ -z $crashed ]] || queue=()
  sleep 5
  for t in "${!pid_of[@]}"; do
    if ! kill -0 "${pid_of[$t]}" 2>/dev/null; then
      finish "$t"
    elif [[ -n $crashed ]]; then
      kill "${pid_of[$t]}" 2>/dev/null || true  # the first crash ends the job
      wait "${pid_of[$t]}" 2>/dev/null || true
      unset "pid_of[$t]"
      result_of[$t]="stopped (another target crashed)"
    elif (( SECONDS % 60 < 5 )); then
      echo "   $t: $(progress "$t")"
    fi
  done
done

if [[ $merge == 1 && -z $crashed ]]; then
  for t in $targets; do
    # Adds to the committed corpus only the found inputs that reach coverage it does not; its own
    # files (the seeds, earlier finds) stay as they are.
    before=$(ls "$corpus/$t" | wc -l)
    nice -n "$niceness" "$bin/$t" -merge=1 "$corpus/$t" "$work/corpus/$t" >"$work/logs/$t.merge.log" 2>&1
    echo "-- $t: $(( $(ls "$corpus/$t" | wc -l) - before )) inputs merged into $corpus/$t"
  done
fi

echo
printf '%-20s %12s %9s %18s  %s\n' target inputs exec/s corpus result
for t in $targets; do
  # Summed over the target's workers.
  inputs=$(cat "$work/logs/$t".*.log 2>/dev/null | grep -ao 'stat::number_of_executed_units: *[0-9]*' |
    awk '{n += $2} END {if (NR) print n}')
  speed=$(cat "$work/logs/$t".*.log 2>/dev/null | grep -ao 'stat::average_exec_per_sec: *[0-9]*' |
    awk '{n += $2} END {if (NR) print n}')
  files=$(cat "$corpus/$t"/* "$work/corpus/$t"/* 2>/dev/null | wc -c)
  count=$(ls "$corpus/$t" "$work/corpus/$t" 2>/dev/null | grep -vc ':$\|^$' || true)
  printf '%-20s %12s %9s %18s  %s\n' "$t" "${inputs:--}" "${speed:--}" "$count files ${files}B" \
    "${result_of[$t]:-not run}"
done
[[ -z $crashed ]]
