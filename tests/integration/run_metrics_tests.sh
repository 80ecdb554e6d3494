#!/usr/bin/env bash
# rgpud's /metrics end to end: rgpud --emulate with a tenant config and RGPU_METRICS_LISTEN on a
# free loopback port (overriding the file's metrics.listen), a live session and one that ended, the
# page checked by `promtool check metrics` and line by line (the live session's slice and memory,
# the ended one's round trips as its client counted them, the sessions started and ended), then a
# real Prometheus scraping rgpud every second until its HTTP API returns the live session's slice.
# Also: a wrong token counts as a refused handshake, wrong paths and methods are answered, garbage
# does not hurt rgpud, a killed worker's session ends as such, and a chosen address that is taken
# stops rgpud with a message.
#
# Usage: run_metrics_tests.sh <bin-dir> <programs-dir>
#   Needs curl, promtool and prometheus (Debian's prometheus package). Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

for tool in curl promtool prometheus; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (scripts/deps.sh installs it)"; exit 1; }
done
export RGPU_MODULE_CACHE=$WORK/modules RGPU_EMULATED_DEVICES=1 RGPU_EMULATED_MEMORY_MB=2048
cat >"$WORK/rgpud.yaml" <<'YAML'
metrics: {listen: 127.0.0.1:1}   # overridden by RGPU_METRICS_LISTEN below
tenants:
  - {name: live, token: tok-live, memory: 512M, compute: 50}
  - {name: batch, token: tok-batch}
YAML
RGPU_METRICS_LISTEN=127.0.0.1:0 start_server --backend emulated --config "$WORK/rgpud.yaml" || exit 1
MPORT=$(sed -n 's|.*/metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics (RGPU_METRICS_LISTEN).*|\1|p' "$LOG")
[[ -n $MPORT ]]
check "rgpud serves /metrics where RGPU_METRICS_LISTEN says, over the file's metrics.listen" $? "$(cat "$LOG")"
URL=http://127.0.0.1:$MPORT/metrics
scrape() { curl -sS --max-time 5 "$URL" >"$WORK/metrics" 2>"$WORK/curl.err"; }
# Scrapes until the page has LINE (a whole line), at most S seconds (10 by default).
scrape_until() {
  for _ in $(seq $((${2:-10} * 10))); do
    scrape && grep -qxF "$1" "$WORK/metrics" && return 0
    sleep 0.1
  done
  return 1
}

# A session that ends: its client's count of round trips is what rgpud's tenant counter says.
RGPU_TOKEN=tok-batch RGPU_STATS=1 client timeout 60 "$BIN/rgpu" run -- "$PROGS/round_trips" >"$WORK/rt.out" 2>"$WORK/rt.err"
trips=$(sed -n 's/^rgpu: [0-9]* calls sent without waiting, \([0-9]*\) round trips, .*/\1/p' "$WORK/rt.err")
[[ -n $trips ]]
check "the ended session's client counted its round trips" $? "$(cat "$WORK/rt.out" "$WORK/rt.err" | head)"
scrape_until "rgpu_sessions_ended_total{cause=\"client_closed\"} 1"
check "the ended session counts as ended by its client" $? "$(grep -v '^#' "$WORK/metrics" | head -40; cat "$WORK/curl.err")"
grep -qxF "rgpu_tenant_round_trips_total{tenant=\"batch\"} $trips" "$WORK/metrics"
check "rgpud counted the ended session's $trips round trips as its client did" $? "$(grep 'tenant="batch"' "$WORK/metrics")"
calls=$(sed -n 's/^rgpu_tenant_calls_total{tenant="batch"} \([0-9]*\)$/\1/p' "$WORK/metrics")
[[ -n $calls ]] && ((calls >= trips - 1))  # every round trip but the module upload is a call
check "rgpud counted the ended session's calls" $? "calls: ${calls:-none}, round trips $trips"

# A wrong token: a refused handshake.
RGPU_TOKEN=wrong client timeout 60 "$BIN/rgpu" run -- "$PROGS/round_trips" >/dev/null 2>&1
scrape_until 'rgpu_handshakes_total{outcome="refused"} 1'
check "a client with a wrong token counts as a refused handshake" $? "$(grep '^rgpu_handshakes' "$WORK/metrics")"

# A live session: its slice and memory on the page.
RGPU_TOKEN=tok-live background "$WORK/hold.out" "$WORK/hold.err" "$BIN/rgpu" run -- "$PROGS/hold_memory" 64
wait_log "$WORK/hold.out" "^holding 64 MiB"
scrape_until "rgpu_sessions_started_total 2"
check "a live session started" $? "$(cat "$WORK/hold.out" "$WORK/hold.err" | head)"
line=$(grep '^rgpu_session_memory_slice_bytes{.*tenant="live"' "$WORK/metrics")
[[ $line == *'program="hold_memory",gpu="0"} 536870912' ]]
check "the live session's slice: 512 MiB on GPU 0, labelled with its program" $? "$line"
used=$(sed -n 's/^rgpu_session_memory_used_bytes{.*tenant="live".*} \([0-9]*\)$/\1/p' "$WORK/metrics")
[[ -n $used ]] && ((used >= 64 << 20))
check "the live session's memory used covers its 64 MiB" $? "used: ${used:-none}"
grep -q '^rgpu_gpu_compute_reserved_ratio{gpu="0",.*} 0.5$' "$WORK/metrics"
check "GPU 0 has the live session's 50 % compute reserved" $? "$(grep '^rgpu_gpu_' "$WORK/metrics")"
promtool check metrics <"$WORK/metrics" >"$WORK/promtool.out" 2>&1
check "promtool check metrics passes on the page" $? "$(head "$WORK/promtool.out")"

# The Grafana dashboard is JSON, and every rgpu_ metric its panels query is on the page.
DASHBOARD=$(dirname "${BASH_SOURCE[0]}")/../../deploy/grafana/rgpu.json
python3 -m json.tool "$DASHBOARD" >/dev/null 2>"$WORK/json.err"
check "deploy/grafana/rgpu.json is valid JSON" $? "$(cat "$WORK/json.err")"
missing=$(grep -o 'rgpu_[a-z_]*' "$DASHBOARD" | sort -u | while read -r m; do
  grep -q "^# TYPE $m " "$WORK/metrics" || echo "$m"
done)
[[ -z $missing && $(grep -c 'rgpu_' "$DASHBOARD") -gt 0 ]]
check "every metric the dashboard queries is one rgpud serves" $? "missing: $missing"

# Not /metrics, not GET, not HTTP: answered or dropped, and rgpud serves on.
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$MPORT/other")
[[ $code == 404 ]]
check "another path is 404" $? "$code"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST "$URL")
[[ $code == 405 ]]
check "another method is 405" $? "$code"
printf 'NOT HTTP AT ALL\r\n\r\n\x00\xff' | timeout 5 bash -c "cat >/dev/tcp/127.0.0.1/$MPORT" 2>/dev/null
scrape
grep -q '^rgpu_sessions_started_total 2$' "$WORK/metrics"
check "garbage on the metrics port does not hurt rgpud" $? "$(cat "$WORK/curl.err")"

# A real Prometheus scrapes rgpud every second; its HTTP API returns the live session's slice.
PPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WORK/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: rgpud
    static_configs: [{targets: ['127.0.0.1:$MPORT']}]
YAML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PPORT" >"$WORK/prometheus.log" 2>&1 &
PROM=$!
PIDS+=($PROM)
query="http://127.0.0.1:$PPORT/api/v1/query?query=rgpu_session_memory_slice_bytes%7Btenant%3D%22live%22%7D"
found=1
for _ in $(seq 150); do  # 15 s at most: Prometheus starts, then scrapes within a second
  curl -s --max-time 2 "$query" >"$WORK/query.json" 2>/dev/null &&
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
sys.exit(0 if len(r) == 1 and r[0]["value"][1] == "536870912" and r[0]["metric"]["program"] == "hold_memory" else 1)' \
      "$WORK/query.json" 2>/dev/null && { found=0; break; }
  sleep 0.1
done
check "Prometheus scraped rgpud: its API returns the live session's 512 MiB slice" $found \
  "$(cat "$WORK/query.json" 2>/dev/null; tail -5 "$WORK/prometheus.log")"
kill "$PROM" 2>/dev/null
wait "$PROM" 2>/dev/null

# The live session's worker killed: its session ends as one whose worker died, and its series go.
RGPUD=${PIDS[0]}
worker=$(session_workers "$RGPUD")
[[ -n $worker ]] && kill -9 $worker
scrape_until 'rgpu_sessions_ended_total{cause="worker_died"} 1' && ! grep -q '^rgpu_session_' "$WORK/metrics"
check "a killed worker's session counts as ended by worker_died, and its series are gone" $? \
  "worker: ${worker:-none}; $(grep '^rgpu_session' "$WORK/metrics" | head -3)"

# A chosen address that is taken: rgpud says so and does not start.
RGPU_METRICS_LISTEN=127.0.0.1:$MPORT timeout 10 "$BIN/rgpud" --emulate --listen 127.0.0.1:0 >"$WORK/taken.out" 2>&1
rc=$?
[[ $rc == 1 ]] && grep -q "cannot serve metrics on 127.0.0.1:$MPORT: bind: .*(from RGPU_METRICS_LISTEN; choose another" "$WORK/taken.out"
check "a taken RGPU_METRICS_LISTEN stops rgpud, saying what to do" $? "rc $rc: $(cat "$WORK/taken.out")"

finish
