#!/usr/bin/env bash
# Builds rgpu and runs every test that needs no GPU: unit, codegen, transport, fuzz and the
# integration tests against rgpud's emulated backend, and the Debian packages (installed, run and
# purged: scripts/test_packages.sh); then builds the daemon and the unit tests
# again with AddressSanitizer + UndefinedBehaviorSanitizer and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
# ccache (deps.sh installs it) keeps the objects of earlier runs, from any clone of the repo: paths
# under the clone are hashed relative to it, and the build folder is left out of the hash.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

echo "== build (build/, Debug: tests need no optimisation and it compiles fastest)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Debug "${launcher[@]}" >/dev/null
ninja -C build -j"$jobs"
echo "== tests"
(cd build && ctest -j"$jobs" --output-on-failure --timeout 600)
echo "== packages (from build/: installed, run and purged on this machine)"
scripts/test_packages.sh build

echo "== sanitizer build (build-asan/: ASan + UBSan, no GPU programs)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRGPU_SANITIZE=ON -DRGPU_BUILD_GPU_PROGRAMS=OFF "${launcher[@]}" >/dev/null
ninja -C build-asan -j"$jobs"
echo "== sanitizer tests"
# The integration test loads the sanitized client shim into nvcc-built programs: the ASan runtime
# must come first, so it is preloaded.
export RGPU_TEST_PRELOAD
RGPU_TEST_PRELOAD=$(g++ -print-file-name=libasan.so)
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
(cd build-asan && ctest -j"$jobs" --output-on-failure --timeout 600)
