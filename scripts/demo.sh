#!/usr/bin/env bash
# Installs what is missing, builds rgpu, starts rgpud on loopback and runs a CUDA program through
# it: on the GPU when this host has one (the cuda backend), else on the emulated backend.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# Only what the demo runs: the daemon, the command, the client library and the CUDA programs.
ninja -C build-release -j"$(nproc)" rgpud rgpu rgpu_shims rgpu_integration_programs rgpu_gpu_programs

backend=emulated
if [[ -e /dev/nvidiactl ]] && ldconfig -p | grep -q 'libcuda\.so\.1'; then backend=cuda; fi
log=$(mktemp)
RGPU_CONFIG= build-release/bin/rgpud --listen 127.0.0.1:0 --backend "$backend" 2>"$log" &
daemon=$!
trap 'kill $daemon 2>/dev/null' EXIT
for _ in $(seq 100); do
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
  [[ -n $port ]] && break
  sleep 0.05
done
[[ -n ${port:-} ]] || { cat "$log"; exit 1; }
export RGPU_SERVER=127.0.0.1:$port
echo "== rgpud ($backend backend) on $RGPU_SERVER"
build-release/bin/rgpu ls
if [[ $backend == cuda ]]; then
  echo "== a CUDA program on the remote GPU: vector add"
  build-release/bin/rgpu run -- build-release/tests/gpu/programs/01_vector_add
else
  echo "== a CUDA program against the emulated GPU (kernels are accepted, not run): the API tour"
  build-release/bin/rgpu run -- build-release/tests/integration/programs/api_tour | tail -5
fi
sleep 0.2
echo "== rgpud's log"
cat "$log"
