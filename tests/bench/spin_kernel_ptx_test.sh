#!/usr/bin/env bash
# The spin kernel of rgpu-bench-worker (`rgpu bench pool`'s tenant mix) must really spin: its PTX
# must keep a loop that reads %globaltimer and branches back, not a single read the compiler
# folded. (On a GPU the worker also checks each kernel's own start/end stamps.)
#
# Usage: spin_kernel_ptx_test.sh <nvcc> <bench_worker.cu>
set -euo pipefail
NVCC=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$NVCC" -ptx -O2 -std=c++20 -arch=compute_90 -o "$WORK/worker.ptx" "$SRC"
awk '/\.entry .*spin_kernel/,/^}/' "$WORK/worker.ptx" >"$WORK/spin.ptx"
[[ -s $WORK/spin.ptx ]] || { echo "FAIL: no spin_kernel entry in the PTX"; exit 1; }
# A label, then (before the next label) a %globaltimer read and a branch back to that label.
python3 - "$WORK/spin.ptx" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.split(r"^(\$\w+):", text, flags=re.M)
for label, body in zip(blocks[1::2], blocks[2::2]):
    if "%globaltimer" in body and re.search(r"\bbra(\.uni)?\s+" + re.escape(label) + r";", body):
        print(f"ok: spin_kernel loops on %globaltimer at {label}")
        sys.exit(0)
print("FAIL: spin_kernel has no loop reading %globaltimer:\n" + text)
sys.exit(1)
PY
