#!/usr/bin/env bash
# cuDNN through the shims against rgpud --emulate: legacy descriptors, the emulated results of
# cudnnAddTensor and ReLU, batch normalization and the backend (graph) API accepted, the
# not-supported paths, the shims through `rgpu run --no-preload`, and the round trips that PyTorch's
# per-step calls cost (batch-norm size queries: once per distinct question; variant packs: none).
#
# Usage: run_cudnn_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

# 1. The tour: results, local answers, not-supported answers.
check_tour "$PROGS/cudnn_tour"
check_tour_stderr "an unforwarded cuDNN function is named on stderr" \
  "cudnnGetFoldedConvBackwardDataDescriptors is not supported by rgpu"
check_tour_stderr "an async cuDNN call's failure is reported on the client" \
  "cudnnConvolutionBackwardData failed on the server with cuDNN status 3000"
check_daemon_log "a function the emulated backend lacks is named in rgpud's log" \
  "cudnnConvolutionBackwardData is not available on this backend"

# 2. The same through LD_PRELOAD of every shim (how PyTorch runs).
check_no_preload "$PROGS/cudnn_tour"

# 3. Three distinct batch-norm size queries asked 50 times each: 3 round trips, +1 synchronize.
check_round_trips "batch-norm size queries are cached" 4 "^ok: cudnn_tour bn_queries$" "$PROGS/cudnn_tour" bn_queries 50

# 4. Building a plan costs a fixed number of round trips (3 cudaMalloc; finalizing 3 tensors, the
#    convolution, the operation, the graph and the heuristics; reading the heuristics' count and
#    configs; finalizing the plan; reading its workspace size: 14), each execution with its own
#    variant pack none: 1 and 200 executions cost the same 14 (+1 synchronize).
check_round_trips "a variant pack per execution costs no round trip (1 execution)" 15 \
  "^ok: cudnn_tour variant_packs$" "$PROGS/cudnn_tour" variant_packs 1
check_round_trips "a variant pack per execution costs no round trip (200 executions)" 15 \
  "^ok: cudnn_tour variant_packs$" "$PROGS/cudnn_tour" variant_packs 200

# 5. The version is the server's, asked once: 3 round trips (+1 synchronize) for 100 reads.
check_round_trips "the server's cuDNN version is asked once" 4 "^ok: cudnn_tour version$" "$PROGS/cudnn_tour" version 100

finish
