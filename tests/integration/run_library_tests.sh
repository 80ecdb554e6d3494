#!/usr/bin/env bash
# The runtime's library API (cudaLibrary*, cudaKernelSetAttributeForDevice) and the driver's
# counterparts through the shims against rgpud --emulate (two devices: an attribute for the device
# a library is not loaded on is refused).
#
# Usage: run_library_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

RGPU_EMULATED_DEVICES=2 RGPU_EMULATED_MEMORY_MB=1024 start_server --emulate || exit 1

check_tour "$PROGS/library_tour"
check_tour_stderr "a refused load option is named on stderr" "the JIT option 0 at a module or library load is not supported"
check_tour_stderr "a refused attribute device is named on stderr" \
  "cudaKernelSetAttributeForDevice for a device its kernel's module is not loaded on is not supported"
check_tour_stderr "cudaLibraryGetManaged is named on stderr" "cudaLibraryGetManaged is not supported by rgpu"

finish
