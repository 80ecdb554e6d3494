#!/usr/bin/env bash
# UCX end to end (transports/ucx/README.md): rgpud started with RGPU_TRANSPORT=ucx, listening on
# loopback TCP and a Unix socket; CUDA programs through `rgpu run` with RGPU_TRANSPORT=ucx, their
# handshake on either, then over UCX's TCP transport and over its shared-memory ones; the raw probe
# of `rgpu bench --transport ucx`; and the refusals: a client asking UCX of an rgpud that does not
# serve it, or over TLS, and an rgpud that cannot load UCX.
#
# Usage: run_ucx_tests.sh <bin-dir> <programs-dir> [backend]   (as run_daemon_tests.sh)
set -uo pipefail

BIN=$1
PROGS=$2
BACKEND=${3:-emulated}
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

SOCK=$WORK/rgpud.sock
RGPU_TRANSPORT=ucx start_daemon --backend "$BACKEND" --listen "unix:$SOCK" || exit 1
check_daemon_log "rgpud with RGPU_TRANSPORT=ucx says it serves UCX" "RGPU_TRANSPORT=ucx: sessions that ask"
export RGPU_TRANSPORT=ucx

starts() { grep -c "session [0-9]* start: .* on ucx, paired over $1" "$LOG"; }
for tls in tcp sm; do
  export UCX_TLS=$tls
  before=$(starts tcp)
  RGPU_SERVER=127.0.0.1:$PORT client timeout 60 "$BIN/rgpu" run -- "$PROGS/api_tour" >"$WORK/tour.out" 2>&1
  rc=$?
  [[ $rc == 0 ]] && (($(starts tcp) > before))
  check "api_tour over UCX ($tls), its handshake on loopback TCP" $? "rc $rc: $(grep -v '^ok' "$WORK/tour.out" | head -10)"
  before=$(starts unix)
  RGPU_SERVER=unix:$SOCK client timeout 120 "$BIN/rgpu" run -- "$PROGS/big_copies" >"$WORK/big.out" 2>&1
  rc=$?
  [[ $rc == 0 ]] && (($(starts unix) > before))
  check "large copies over UCX ($tls), the handshake on the Unix socket" $? "rc $rc: $(tail -5 "$WORK/big.out")"
done
unset UCX_TLS

# The raw floor of the path, as `rgpu bench` measures it: the probe's connections go over UCX too.
RGPU_SERVER=127.0.0.1:$PORT client timeout 120 "$BIN/rgpu" bench transport --quick --transport ucx --format csv \
  >"$WORK/bench.csv" 2>"$WORK/bench.err"
rc=$?
[[ $rc == 0 ]] && grep -q "transport_pingpong_64B" "$WORK/bench.csv" && grep -q "transport_sink_1conn" "$WORK/bench.csv"
check "rgpu bench transport --transport ucx measures the path" $? "rc $rc: $(head -5 "$WORK/bench.err")"

# An rgpud that does not serve UCX refuses the session before its Welcome, saying so; the program
# sees no device, as with no server.
RGPU_TRANSPORT= start_daemon --backend "$BACKEND" || exit 1
RGPU_SERVER=127.0.0.1:$PORT client timeout 60 "$BIN/rgpu" run -- "$PROGS/no_server" >"$WORK/refused.out" 2>&1
rc=$?
[[ $rc == 0 ]] && grep -q "serves no UCX sessions (start it with RGPU_TRANSPORT=ucx)" "$WORK/refused.out"
check "a client asking UCX of an rgpud that does not serve it: no device, and why" $? "rc $rc: $(head -5 "$WORK/refused.out")"

# UCX carries bytes in the clear: a TLS session does not continue over it, and says why.
RGPU_TOKEN=tls-token start_daemon --backend "$BACKEND" --tls on || exit 1
RGPU_SERVER=127.0.0.1:$PORT RGPU_TLS=on RGPU_TOKEN=tls-token client timeout 60 "$BIN/rgpu" run -- "$PROGS/no_server" \
  >"$WORK/tls.out" 2>&1
rc=$?
[[ $rc == 0 ]] && grep -q "UCX carries bytes unencrypted" "$WORK/tls.out"
check "a TLS client asking UCX is refused: no device, and why" $? "rc $rc: $(head -5 "$WORK/tls.out")"

# An rgpud asked for UCX where it cannot load it stops at once, saying what to install.
RGPU_UCX_PLUGIN=$WORK/no-such-plugin.so timeout 20 "$BIN/rgpud" --backend "$BACKEND" --listen 127.0.0.1:0 \
  >"$WORK/noucx.log" 2>&1
rc=$?
[[ $rc == 2 ]] && grep -q "apt-get install libucx0" "$WORK/noucx.log"
check "rgpud with RGPU_TRANSPORT=ucx and no UCX library exits, saying what to install" $? "rc $rc: $(head -3 "$WORK/noucx.log")"

finish
