#!/usr/bin/env bash
# cuDNN's RNN, dropout and CTC loss through the shims against rgpud --emulate: descriptors with
# ids read back through the server, RNN weight parameters, compute accepted, CTC's host arrays,
# an async call's failure reported on the client, the shims through `rgpu run --no-preload`, and
# the dropout reserve size asked once per distinct tensor, the RNN weight-space and temporary-space
# answers once per distinct question.
#
# Usage: run_cudnn_rnn_tests.sh <bin-dir> <programs-dir>. Prints "N passed, N failed" last.
set -uo pipefail

BIN=$1
PROGS=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

start_server --emulate || exit 1

# 1. The tour.
check_tour "$PROGS/cudnn_rnn_tour"
check_tour_stderr "an async dropout call's failure is reported on the client" \
  "cudnnDropoutForward failed on the server with cuDNN status 2000"

# 2. The same through LD_PRELOAD of every shim (how PyTorch runs).
check_no_preload "$PROGS/cudnn_rnn_tour"

# 3. One tensor's dropout reserve size asked 50 times: 1 round trip, +1 synchronize.
check_round_trips "the dropout reserve size is cached" 2 "^ok: cudnn_rnn_tour dropout_queries$" \
  "$PROGS/cudnn_rnn_tour" dropout_queries 50

# 4. Weight-space questions of new descriptors set alike, once and 20 times: 2 cudaMallocs, the
#    weight-space size and 3 matrices of the first settings, the size and 1 matrix of the second,
#    +1 synchronize.
for times in 1 20; do
  check_round_trips "weight-space answers are cached by the descriptor's settings ($times rounds)" 9 \
    "^ok: cudnn_rnn_tour weight_queries$" "$PROGS/cudnn_rnn_tour" weight_queries $times
done

# 5. Temporary-space questions of new descriptors set alike, forward and backward, once and 20
#    times: 1 round trip; then other sequence lengths, inference, and dropout (its states size and
#    cudaMalloc first) one each: 5; +1 synchronize.
for times in 1 20; do
  check_round_trips "temporary-space sizes are cached by the descriptors' settings ($times rounds)" 7 \
    "^ok: cudnn_rnn_tour temp_queries$" "$PROGS/cudnn_rnn_tour" temp_queries $times
done

finish
