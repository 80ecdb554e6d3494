#!/usr/bin/env bash
# Installs the Debian 12 packages rgpu builds with, when any is missing (needs root or sudo).
set -euo pipefail
packages=(cmake ninja-build ccache g++ pkg-config libboost-dev libflatbuffers-dev flatbuffers-compiler libclang-14-dev
          libyaml-cpp-dev catch2 libzstd-dev liblz4-dev libssl-dev
          libucx-dev  # the UCX transport (transports/ucx/): its library alone links UCX
          protobuf-compiler libprotobuf-dev libgrpc++-dev protobuf-compiler-grpc  # rgpu-device-plugin
          iproute2 procps   # the reliability tests' cut network (ip) and process checks (pgrep)
          dpkg-dev file systemd  # the package test: cpack's dpkg-shlibdeps (it runs file), systemd-analyze
          curl prometheus)  # the metrics test: GET /metrics, promtool check metrics and a real Prometheus
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) == 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ ! -f /usr/local/cuda/include/cuda_runtime_api.h ]]; then
  echo "deps: the CUDA 13 toolkit is expected in /usr/local/cuda (headers and nvcc); install it from NVIDIA first" >&2
  exit 1
fi
