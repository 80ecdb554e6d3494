#!/usr/bin/env bash
# cuBLASLt through the shims against rgpud --emulate: results of the emulated FP32 matmul (bias
# epilogue, transposes, strided batches, a cuBLAS handle in a cuBLASLt handle's place), the
# not-supported paths, the shims through `rgpu run --no-preload`, and the round trips of PyTorch's
# per-GEMM pattern (descriptors built and destroyed, heuristic, matmul): the same for 3 and 60
# iterations, as descriptors are local, the heuristic is cached and the matmul does not wait.
#
# Usage: run_cublaslt_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

# 1. Results, descriptor attributes, the cuBLAS handle cast, not-supported answers.
check_tour "$PROGS/cublaslt_tour"
check_tour_stderr "an unforwarded cuBLASLt function is named on stderr" \
  "cublasLtMatrixTransform is not supported by rgpu"

# 2. The same through LD_PRELOAD of every shim (how PyTorch runs).
check_no_preload "$PROGS/cublaslt_tour"

# 3. Round trips, whatever the number of GEMMs: 5 allocations, the heuristic's first answer and the
#    final copy back. The 4 uploads go without waiting (pageable H2D returns once handed over).
check_round_trips "3 PyTorch-style cuBLASLt GEMMs make 7 round trips" 7 "^ok: cublaslt_tour loop$" \
  "$PROGS/cublaslt_tour" loop 3
check_round_trips "60 PyTorch-style cuBLASLt GEMMs make 7 round trips too" 7 "^ok: cublaslt_tour loop$" \
  "$PROGS/cublaslt_tour" loop 60

finish
