#!/usr/bin/env bash
# Smoke test of `rgpu bench pool --emulate`: it writes its configuration, starts its own rgpud
# (emulated backend), runs the spin workers solo and together through the shim, prints a report
# with a figure per tenant, and leaves no daemon behind. The figures are not checked: emulated
# kernels take no time, so shares there say nothing about the pool.
#
# Skipped (exit 77) while rgpud does not take --config FILE.
#
# Usage: bench_pool_smoke.sh <bin-dir>   (<bin-dir> holds rgpud and rgpu)
set -uo pipefail

BIN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() {
  echo "FAIL: $*"
  # The daemons' logs of a run that was cut short (the bench removes its folder only when it ends).
  for log in "$WORK"/rgpu-bench-pool.*/rgpud*.log; do
    [[ -f $log ]] && { echo "--- $log"; tail -n 40 "$log"; }
  done
  exit 1
}
client() {
  if [[ -n ${RGPU_TEST_PRELOAD:-} ]]; then LD_PRELOAD=$RGPU_TEST_PRELOAD "$@"; else "$@"; fi
}

# An rgpud from before the pool prints its tunables for --config and exits 0.
if timeout 10 "$BIN/rgpud" --config "$WORK/none.yaml" --listen 127.0.0.1:0 --emulate >/dev/null 2>&1; then
  echo "SKIP: this rgpud does not take --config FILE"
  exit 77
fi

export RGPU_MODULE_CACHE=$WORK/modules
export TMPDIR=$WORK

# 1. A pair, as JSON.
client timeout 120 "$BIN/rgpu" bench pool --emulate --duration 1 --shares 30,70 --json >"$WORK/pair.json" 2>"$WORK/pair.err" ||
  fail "rgpu bench pool exited $?: $(cat "$WORK/pair.err")"
grep -q '^\[5/5\] 30/70 (1000 us kernels, sync every 8): t1 solo again' "$WORK/pair.err" ||
  fail "no progress lines: $(cat "$WORK/pair.err")"
python3 - "$WORK/pair.json" <<'PY' || fail "JSON check: $(cat "$WORK/pair.json")"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["emulated"] is True and report["backend"] == "emulated", report
rows = report["rows"]
assert [r["tenant"] for r in rows] == ["t0", "t1"], rows
for r, target in zip(rows, (30, 70)):
    assert r["target"] == target and r["unit"] == "%", r
    assert isinstance(r["achieved"], (int, float)) and r["achieved"] > 0, r
    assert r["verdict"] in ("ok", "MISS"), r
print("ok: pair report")
PY
[[ $? == 0 ]] || exit 1

# 2. A capped tenant, as a table.
client timeout 120 "$BIN/rgpu" bench pool --emulate --duration 1 --cap 30 >"$WORK/cap.txt" 2>"$WORK/cap.err" ||
  fail "cap run exited $?: $(cat "$WORK/cap.err")"
grep -q "^cap 30 %, lone tenant .* t0 .*30.00 %" "$WORK/cap.txt" || fail "cap table: $(cat "$WORK/cap.txt")"
echo "ok: cap table"

# 2b. The priority runs (time-sliced; MPS; MPS beside a trainer filling every SM), as JSON: each has
# the high tenant's p50 and p99 rows and the low tenant's throughput row.
client timeout 120 "$BIN/rgpu" bench pool --emulate --duration 1 --priority --json >"$WORK/prio.json" 2>"$WORK/prio.err" ||
  fail "priority run exited $?: $(cat "$WORK/prio.err")"
python3 - "$WORK/prio.json" <<'PY' || fail "priority JSON: $(cat "$WORK/prio.json")"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert [r["tenant"] for r in rows] == ["high", "high", "low"] * 3, rows
assert [r["run"].startswith("priority, MPS:") for r in rows[::3]] == [False, True, True], rows
assert "filling every SM" in rows[6]["run"], rows
for run in range(3):
    high50, high99, low = rows[3 * run:3 * run + 3]
    assert "p50" in high50["bar"] and "p99" in high99["bar"], rows
    assert low["unit"] == "%" and 0 < low["target"] <= 100, rows
assert all(isinstance(r["achieved"], (int, float)) for r in rows), rows
PY
echo "ok: priority rows"

# 2c. The over-commit run: three tenants take turns on a GPU promised twice over; swap rates seen,
# every tenant's data intact.
client timeout 200 "$BIN/rgpu" bench pool --emulate --overcommit --hold 64 --json >"$WORK/oc.json" 2>"$WORK/oc.err" ||
  fail "over-commit run exited $?: $(cat "$WORK/oc.err")"
python3 - "$WORK/oc.json" <<'PY' || fail "over-commit JSON: $(cat "$WORK/oc.json")"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 4, rows
assert "swap-out" in rows[0]["run"] and isinstance(rows[0]["achieved"], (int, float)), rows
assert "swap-in" in rows[1]["run"] and isinstance(rows[1]["achieved"], (int, float)), rows
assert rows[3]["verdict"] == "ok", rows
PY
echo "ok: over-commit rows"

# 3. Nothing left behind: no daemon with our folder in its command line, no configuration file.
sleep 0.5
if pgrep -f "$WORK/rgpu-bench-pool" >/dev/null; then fail "an rgpud is still running: $(pgrep -af "$WORK/rgpu-bench-pool")"; fi
ls "$WORK"/rgpu-bench-pool.* >/dev/null 2>&1 && fail "temporary folder left: $(ls -d "$WORK"/rgpu-bench-pool.*)"
echo "ok: daemons stopped, temporary files removed"

# 4. A bad argument: usage and exit status 2.
client "$BIN/rgpu" bench pool --shares 10,x >/dev/null 2>"$WORK/bad.err"
[[ $? == 2 ]] && grep -q "shares takes a whole number" "$WORK/bad.err" || fail "bad argument: $(cat "$WORK/bad.err")"
echo "ok: bad argument"
