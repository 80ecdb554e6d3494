#!/usr/bin/env bash
# rgpud's configuration file from the command line: --check-config's exit status and one line per
# error, --print-config's origins (file line, environment, flag) with tokens hidden, and a daemon
# started from a file with log_format: json writing JSON lines. No GPU and no client needed.
#
# Usage: run_config_tests.sh <bin-dir>
set -uo pipefail

BIN=$1
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

cat >"$WORK/good.yaml" <<'YAML'
listen: unix:/nonexistent/rgpud.sock
backend: emulated
log_format: json
admin_token: s3cret-admin
tenants:
  - name: inference
    token: tok-inference
    memory: 1G
YAML
out=$("$BIN/rgpud" --check-config "$WORK/good.yaml" 2>&1)
check "--check-config: a good file is ok (exit 0)" $? "$out"
[[ $out == "$WORK/good.yaml: ok" ]]
check "--check-config says FILE: ok" $? "$out"

printf 'tls: maybe\npolicy:\n  placment: pack\ntenants:\n  - name: a\n    token: t\n    compute: lots\n' \
  >"$WORK/bad.yaml"
"$BIN/rgpud" --check-config "$WORK/bad.yaml" >"$WORK/bad.out" 2>"$WORK/bad.err"
[[ $? == 2 ]]
check "--check-config: a bad file exits 2" $? "$(cat "$WORK/bad.err")"
[[ $(wc -l <"$WORK/bad.err") == 3 ]] && [[ ! -s $WORK/bad.out ]] &&
  grep -q "^$WORK/bad.yaml:1:6: tls must be auto, on or off" "$WORK/bad.err" &&
  grep -q "^$WORK/bad.yaml:3:3: unknown key 'placment' in policy; did you mean 'placement'?" "$WORK/bad.err" &&
  grep -q "^$WORK/bad.yaml:7:14: tenant #1's compute must be a whole number" "$WORK/bad.err"
check "--check-config names each bad key with its line, one a line" $? "$(cat "$WORK/bad.err")"
"$BIN/rgpud" --check-config "$WORK/none.yaml" >/dev/null 2>&1
[[ $? == 2 ]]
check "--check-config: a missing file exits 2" $?

RGPU_TLS=off RGPU_CONFIG=$WORK/good.yaml "$BIN/rgpud" --print-config --listen 127.0.0.1:7999 >"$WORK/print.out" 2>&1
check "--print-config exits 0" $? "$(cat "$WORK/print.out")"
grep -q "^configuration file: $WORK/good.yaml (env RGPU_CONFIG)$" "$WORK/print.out" &&
  grep -Eq "^listen +127\.0\.0\.1:7999 +flag --listen$" "$WORK/print.out" &&
  grep -Eq "^tls +off +env RGPU_TLS$" "$WORK/print.out" &&
  grep -Eq "^backend +emulated +file:2$" "$WORK/print.out" &&
  grep -Eq "^admin_token +<redacted> +file:4$" "$WORK/print.out" &&
  grep -Eq "^policy\.quantum_ms +10 +default$" "$WORK/print.out" &&
  ! grep -q "s3cret-admin\|tok-inference" "$WORK/print.out"
check "--print-config: each value's origin, tokens redacted" $? "$(cat "$WORK/print.out")"

start_daemon --config "$WORK/good.yaml" || exit 1
line='^{"time":"[0-9-]*T[0-9:.]*Z","level":"[a-z]*","process":"rgpud","pid":[0-9]*,"event":"[a-z_]*","session":'
grep -q "$line"'null,"message":"listening on 127\.0\.0\.1:[0-9]* (emulated backend, .*","fields":{}}$' "$LOG" &&
  ! grep -vq "$line" "$LOG"
check "log_format: json makes each line a JSON object" $? "$(head -3 "$LOG")"
finish
