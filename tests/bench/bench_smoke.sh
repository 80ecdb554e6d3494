#!/usr/bin/env bash
# Smoke test of `rgpu bench` against rgpud's emulated backend on loopback: the whole run (probe,
# worker through the shim, report) works and every row has its remote number. The numbers
# themselves are not checked: CI machines are too noisy for bars.
#
# Usage: bench_smoke.sh <bin-dir>   (<bin-dir> holds rgpud and rgpu, from the build or install tree)
set -uo pipefail

BIN=$1
WORK=$(mktemp -d)
DAEMON=""
cleanup() {
  [[ -n $DAEMON ]] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

# Under a sanitizer build the ASan runtime is preloaded, so that the nvcc-built worker can load
# the sanitized shim (as tests/integration does).
client() {
  if [[ -n ${RGPU_TEST_PRELOAD:-} ]]; then LD_PRELOAD=$RGPU_TEST_PRELOAD "$@"; else "$@"; fi
}

export RGPU_MODULE_CACHE=$WORK/modules
"$BIN/rgpud" --emulate --listen 127.0.0.1:0 --listen "unix:$WORK/rgpud.sock" >"$WORK/rgpud.log" 2>&1 &
DAEMON=$!
PORT=""
for _ in $(seq 100); do
  PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/rgpud.log")
  [[ -n $PORT ]] && break
  sleep 0.05
done
[[ -n $PORT ]] || fail "rgpud did not start: $(cat "$WORK/rgpud.log")"
export RGPU_SERVER=127.0.0.1:$PORT

# 1. Everything, quick, as JSON.
client timeout 90 "$BIN/rgpu" bench all --quick --format json >"$WORK/all.json" 2>"$WORK/all.err" ||
  fail "rgpu bench all exited $?: $(cat "$WORK/all.err")"
grep -q '^\[5/5\] copy, remote (striped' "$WORK/all.err" || fail "no progress lines: $(cat "$WORK/all.err")"
python3 - "$WORK/all.json" <<'PY' || fail "JSON check: $(cat "$WORK/all.json")"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["backend"] == "emulated", report["backend"]
assert report["quick"] is True
for key in ("date", "host", "server", "server_device"):
    assert report[key], key
rows = {r["metric"]: r for r in report["rows"]}
expected = ["transport_pingpong_64B", "transport_sink_1conn", "transport_source_1conn",
            "transport_sink_4conn", "transport_source_4conn",
            "latency_d2h_4B", "latency_launch_sync", "latency_launch_event_sync", "latency_malloc_free_1MiB",
            "launch_throughput"]
for kind in ("h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable"):
    for size in ("4KiB", "1MiB", "16MiB"):
        expected += [f"copy_{kind}_{size}/1conn", f"copy_{kind}_{size}/striped"]
expected += [f"copy_d2d_{size}" for size in ("4KiB", "1MiB", "16MiB")]
missing = [m for m in expected if m not in rows]
assert not missing, f"missing rows: {missing}"
for r in report["rows"]:
    assert isinstance(r["remote"], (int, float)) and r["remote"] > 0, r
print(f"ok: {len(rows)} rows, all with remote values")
PY
[[ $? == 0 ]] || exit 1

# 2. The table and CSV formats, one scenario each.
client timeout 60 "$BIN/rgpu" bench latency --quick >"$WORK/lat.txt" 2>"$WORK/lat.err" || fail "latency table: $(cat "$WORK/lat.err")"
grep -q "emulated backend" "$WORK/lat.txt" && grep -q "^latency_launch_sync .*<= native + 1.3 x ping-pong" "$WORK/lat.txt" ||
  fail "table: $(cat "$WORK/lat.txt")"
client timeout 60 "$BIN/rgpu" bench transport --quick --stripes 2 --format csv >"$WORK/tr.csv" 2>"$WORK/tr.err" ||
  fail "transport csv: $(cat "$WORK/tr.err")"
grep -q "^metric,unit,native,remote,ratio,bar,limit,verdict$" "$WORK/tr.csv" && grep -q "^transport_sink_2conn,GB/s,," "$WORK/tr.csv" ||
  fail "csv: $(cat "$WORK/tr.csv")"
echo "ok: table and csv"

# 3. A bad argument: usage and exit status 2. No server: exit status 1 with the address.
client "$BIN/rgpu" bench --format xml >/dev/null 2>"$WORK/bad.err"
[[ $? == 2 ]] && grep -q "unknown format" "$WORK/bad.err" || fail "bad argument: $(cat "$WORK/bad.err")"
RGPU_SERVER=127.0.0.1:1 client timeout 30 "$BIN/rgpu" bench transport >/dev/null 2>"$WORK/none.err"
[[ $? == 1 ]] && grep -q "cannot reach rgpud at 127.0.0.1:1" "$WORK/none.err" || fail "no server: $(cat "$WORK/none.err")"
echo "ok: bad argument, no server"

# 4. --transport unix: the probe and a worker's session over rgpud's Unix socket (RGPU_SERVER stays
# TCP, RGPU_UNIX_SOCKET names the socket); --transport tcp with a unix: RGPU_SERVER is refused.
RGPU_UNIX_SOCKET=$WORK/rgpud.sock client timeout 60 "$BIN/rgpu" bench launch --quick --transport unix --format json \
  >"$WORK/unix.json" 2>"$WORK/unix.err" || fail "--transport unix: $(cat "$WORK/unix.err")"
python3 - "$WORK/unix.json" "unix:$WORK/rgpud.sock" <<'PY' || fail "--transport unix JSON: $(cat "$WORK/unix.json")"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["server"] == sys.argv[2], report["server"]
rows = {r["metric"]: r for r in report["rows"]}
assert rows["launch_throughput"]["remote"] > 0, rows
PY
grep -Eq "session [0-9]* start: .* on (shm, paired over )?unix pid=" "$WORK/rgpud.log" || fail "no session over the Unix socket: $(cat "$WORK/rgpud.log")"
RGPU_UNIX_SOCKET=$WORK/rgpud.sock client timeout 60 "$BIN/rgpu" bench transport --quick --transport unix --format csv \
  >"$WORK/unix.csv" 2>"$WORK/unix_tr.err" || fail "--transport unix probe: $(cat "$WORK/unix_tr.err")"
grep -q "^transport_pingpong_64B,us,," "$WORK/unix.csv" && grep -q "^transport_source_4conn,GB/s,," "$WORK/unix.csv" ||
  fail "--transport unix csv: $(cat "$WORK/unix.csv")"
RGPU_SERVER=unix:$WORK/rgpud.sock client "$BIN/rgpu" bench transport --transport tcp >/dev/null 2>"$WORK/tcp_unix.err"
[[ $? == 2 ]] && grep -q "set it to rgpud's host:port" "$WORK/tcp_unix.err" || fail "--transport tcp, unix server: $(cat "$WORK/tcp_unix.err")"
echo "ok: --transport unix and tcp"
