#!/usr/bin/env bash
# bench/worker/torch_rounds.py without a GPU: a stand-in `torch` module and a stand-in workload
# show that each round is a child of its own (its own pid, the parent's pid its parent), that it
# gets its side's server and token (and no token where its side has none), that each round's
# marker comes before its lines, and that a failed round ends the rounds with a non-zero status.
set -euo pipefail
rounds=$1
python=${PYTHON:-python3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/torch"
cat >"$dir/torch/__init__.py" <<'PY'
class cuda:
    @staticmethod
    def is_initialized():
        return False
PY
cat >"$dir/workload.py" <<'PY'
import os, sys
import helper  # found beside the script, as the suite's scripts find suite.py
print(f"pid {os.getpid()} parent {os.getppid()} server {os.environ['RGPU_SERVER']} "
      f"token {os.environ.get('RGPU_TOKEN', '-')}", file=sys.stderr)
print(f"step: {helper.ms()} ms/step", file=sys.stderr, flush=True)
sys.exit(3 if os.environ["RGPU_SERVER"] == "fail:1" else 0)
PY
echo 'def ms(): return 0.5' >"$dir/helper.py"

fail() { echo "FAIL: $*"; echo "--- stderr:"; cat "$dir/err"; exit 1; }
export PYTHONPATH=$dir RGPU_TOKEN=inherited
export RGPU_ROUNDS_whole_SERVER=127.0.0.1:1 RGPU_ROUNDS_sliced_SERVER=127.0.0.1:2 RGPU_ROUNDS_sliced_TOKEN=t0
"$python" "$rounds" "$dir/workload.py" whole sliced sliced whole 2>"$dir/err" || fail "the rounds failed"
grep -c '^rgpu-round ' "$dir/err" | grep -qx 4 || fail "not 4 round markers"
parent=$(grep -o 'parent [0-9]*' "$dir/err" | sort -u)
[[ $(wc -l <<<"$parent") == 1 ]] || fail "the rounds have different parents"
[[ $(grep -o '^pid [0-9]*' "$dir/err" | sort -u | wc -l) == 4 ]] || fail "not 4 processes"
expect=$'rgpu-round 1: whole\nserver 127.0.0.1:1 token -\nstep: 0.5 ms/step
rgpu-round 2: sliced\nserver 127.0.0.1:2 token t0\nstep: 0.5 ms/step
rgpu-round 3: sliced\nserver 127.0.0.1:2 token t0\nstep: 0.5 ms/step
rgpu-round 4: whole\nserver 127.0.0.1:1 token -\nstep: 0.5 ms/step'
got=$(sed -E 's/^pid [0-9]+ parent [0-9]+ //' "$dir/err")
[[ $got == "$expect" ]] || fail "the rounds' lines differ from what was expected"

export RGPU_ROUNDS_bad_SERVER=fail:1
if "$python" "$rounds" "$dir/workload.py" whole bad whole 2>"$dir/err"; then fail "a failed round went unnoticed"; fi
grep -q 'round 2 (bad) of .* failed' "$dir/err" || fail "no line names the failed round"
[[ $(grep -c '^rgpu-round ' "$dir/err") == 2 ]] || fail "rounds ran after the failed one"
if "$python" "$rounds" "$dir/workload.py" nosuch 2>"$dir/err"; then fail "a side with no server ran"; fi
grep -q 'no RGPU_ROUNDS_nosuch_SERVER' "$dir/err" || fail "no line names the side without a server"
echo "torch_rounds.py: PASS"
