#!/usr/bin/env bash
# The Kubernetes flow end to end, without Kubernetes: rgpud, rgpu-device-plugin, and the kubelet
# stand-in (the kubelet's real gRPC APIs on Unix sockets) admitting a pod that asks for
# vcuda-core 10 and vcuda-memory 16. The container's environment runs an unmodified CUDA program,
# which sees a GPU of 4 GiB; the pool shows the container's tenant with its slice (10 % guaranteed
# and capped); deleting the pod frees it. Then the GPU fails and recovers: rgpud's health probe,
# /metrics and the plugin say so.
#
# Usage: run_device_plugin_tests.sh <bin-dir> <programs-dir> <stand-in> [backend]
#   backend: "emulated" (default, CI: one virtual GPU of 8 GiB) or "cuda" (a GPU host).
#   Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
STAND_IN=$3
BACKEND=${4:-emulated}
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

export RGPU_MODULE_CACHE=$WORK/modules RGPU_EMULATED_DEVICES=1 RGPU_EMULATED_MEMORY_MB=8192
cat >"$WORK/rgpud.yaml" <<'YAML'
admin_token: admin-dp
tenants:
  - name: ops
    token: tok-ops
YAML
echo admin-dp >"$WORK/admin-token"
mkdir -p "$WORK/kubelet"
touch "$WORK/lost"  # the virtual GPUs the emulated backend's NVML calls lost (none yet)
RGPU_GPU_HEALTH_S=1 RGPU_EMULATED_LOST_GPUS_FILE="$WORK/lost" RGPU_METRICS_LISTEN=127.0.0.1:0 start_server --backend "$BACKEND" --config "$WORK/rgpud.yaml" --listen "unix:$WORK/rgpud.sock" || exit 1
METRICS=http://127.0.0.1:$(sed -n 's|.*/metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$LOG")/metrics
pool() { RGPU_SERVER=unix:$WORK/rgpud.sock RGPU_TOKEN=admin-dp client timeout 20 "$BIN/rgpu" pool "$@"; }

"$BIN/rgpu-device-plugin" --kubelet-dir "$WORK/kubelet" --pod-resources-socket "$WORK/kubelet/pod-resources.sock" \
  --rgpud "unix:$WORK/rgpud.sock" --admin-token-file "$WORK/admin-token" --shim-dir "$(dirname "$BIN")/lib/rgpu" \
  --poll-ms 200 >"$WORK/plugin.log" 2>&1 &
PIDS+=($!)
"$STAND_IN" --dir "$WORK/kubelet" --pod default/demo/main --core 10 --memory 16 --linger-ms 3000 \
  >"$WORK/env.sh" 2>"$WORK/stand-in.log" &
stand_in=$!
PIDS+=($stand_in)
wait_log "$WORK/env.sh" "RGPU_TOKEN" 20
check "the kubelet stand-in admits the pod through the plugin (Allocate per resource, PreStartContainer)" $? \
  "$(cat "$WORK/stand-in.log" "$WORK/plugin.log" | tail -20)"
grep -q "RGPU_SERVER='unix:$WORK/rgpud.sock'" "$WORK/env.sh" && grep -q "LD_PRELOAD=.*libcudart" "$WORK/env.sh"
check "the container's environment names rgpud's socket and preloads the shims" $? "$(sed 's/TOKEN=.*/TOKEN=.../' "$WORK/env.sh")"

pool tenant list >"$WORK/tenants" 2>&1
grep -Eq "^  default/demo/main +4096 +- +10% +10% " "$WORK/tenants"
check "rgpud has one tenant for the container: 16 units of 256 MiB = 4096 MiB, 10 % guaranteed and capped" $? \
  "$(cat "$WORK/tenants")"

# The container's program: unmodified, it gets the shims from the environment alone.
(source "$WORK/env.sh" && client timeout 60 "$PROGS/mem_info") >"$WORK/mem.out" 2>&1
free=$(cat "$WORK/mem.out")
[[ $free =~ ^[0-9]+$ ]] && ((free > 3900 && free <= 4096))
check "an unmodified CUDA program in the container's environment sees a GPU of 4 GiB (free MiB)" $? "$free"
(source "$WORK/env.sh" && client timeout 60 "$PROGS/api_tour") >"$WORK/tour.out" 2>&1
rc=$?
[[ $rc == 0 ]] && ! grep -q "^FAIL" "$WORK/tour.out"
check "api_tour runs to its end in the container's environment" $? "$(grep -v '^ok' "$WORK/tour.out" | head -5)"
curl -sS --max-time 5 "$METRICS" >"$WORK/metrics_pod" 2>&1
grep -q 'rgpu_tenant_calls_total{tenant="default/demo/main"}' "$WORK/metrics_pod"
check "/metrics counts the container's tenant's calls" $? "$(grep default/demo "$WORK/metrics_pod" | head -5)"
grep -q "session .* start.*default/demo/main\|default/demo/main" "$LOG"
check "rgpud's log names the container's tenant" $? "$(tail -5 "$LOG")"

# Deleting the pod: the plugin sees it gone from pod-resources and removes the tenant.
kill -INT "$stand_in"
gone=1
for _ in $(seq 100); do
  pool tenant list >"$WORK/tenants2" 2>&1
  if ! grep -q "default/demo/main" "$WORK/tenants2"; then gone=0; break; fi
  sleep 0.1
done
check "deleting the pod removes its tenant from rgpud" $gone "$(cat "$WORK/tenants2"; tail -5 "$WORK/plugin.log")"
curl -sS --max-time 5 "$METRICS" >"$WORK/metrics_gone" 2>&1
grep -q "^rgpu_gpu_memory_reserved_bytes" "$WORK/metrics_gone" && ! grep -q "default/demo/main" "$WORK/metrics_gone"
check "and from /metrics: no series names it once its sessions have ended" $? "$(grep default/demo "$WORK/metrics_gone" | head -5)"
(source "$WORK/env.sh" && client timeout 60 "$PROGS/mem_info") >"$WORK/mem2.out" 2>&1
[[ $? != 0 ]] && grep -qi "token" "$WORK/mem2.out"
check "the deleted pod's token is refused" $? "$(cat "$WORK/mem2.out")"
wait "$stand_in"
check "the kubelet stand-in ends cleanly" $? "$(tail -5 "$WORK/stand-in.log")"

# A GPU that fails: rgpud's health probe (every second here) no longer reaches it through NVML.
gpu_healthy() {  # until the pool view says GPU 0's health is $1 (True/False), 10 s at most
  for _ in $(seq 100); do
    pool --json >"$WORK/view.json" 2>/dev/null
    python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))['gpus'][0]['healthy'] == $1 else 1)" \
      "$WORK/view.json" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
echo 0 >"$WORK/lost"
gpu_healthy False
check "a GPU that fails is reported unhealthy in the pool view" $? "$(head -c 400 "$WORK/view.json")"
curl -sS --max-time 5 "$METRICS" >"$WORK/metrics_lost" 2>&1
grep -q '^rgpu_gpu_healthy{gpu="0",.*} 0$' "$WORK/metrics_lost"
check "and in /metrics (rgpu_gpu_healthy 0)" $? "$(grep healthy "$WORK/metrics_lost")"
wait_log "$WORK/plugin.log" "rgpud reports GPU 0 unhealthy" 10
check "the device plugin reports that GPU's devices Unhealthy to the kubelet" $? "$(tail -5 "$WORK/plugin.log")"
: >"$WORK/lost"
gpu_healthy True
check "the GPU answering again is healthy again" $? "$(head -c 400 "$WORK/view.json")"
wait_log "$WORK/plugin.log" "rgpud reports every GPU healthy again" 10
check "and the device plugin reports its devices Healthy again" $? "$(tail -5 "$WORK/plugin.log")"
finish
