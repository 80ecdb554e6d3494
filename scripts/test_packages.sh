#!/usr/bin/env bash
# The Debian packages end to end on this machine (scripts/test.sh runs it after the Debug tests):
# cpack makes rgpu-server, rgpu-client and rgpu-ucx from BUILD's binaries (no new build), apt installs
# them, systemd-analyze verifies the installed unit, the installed rgpud (emulated, with the installed
# default configuration) serves api_tour through the installed `rgpu run` and shims, over its Unix
# socket and over UCX, and a purge leaves nothing behind. The packages never stay installed: a purge runs on every exit.
#
# Usage: scripts/test_packages.sh [BUILD]   (default: build; as root, or with sudo)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=$(realpath "${1:-build}")
BIN=/usr/bin  # harness.sh's start_daemon runs $BIN/rgpud: the installed one
source tests/integration/harness.sh

PACKAGES=(rgpu-server rgpu-client rgpu-ucx)
if [[ ! -e $BUILD/lib/rgpu/librgpu_transport_ucx.so ]]; then
  echo "packages: $BUILD has no UCX transport, so cpack cannot make rgpu-ucx: install libucx-dev" \
       "(scripts/deps.sh does) and build again" >&2
  exit 1
fi
# Says that this script installed the packages: a run killed before its purge leaves it, and the
# next run then purges what it finds. Packages installed without it are someone's: left alone.
MARKER=/var/tmp/rgpu-test-packages.installed
sudo_cmd=()
[[ $(id -u) == 0 ]] || sudo_cmd=(sudo)
apt_get() { "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq "$@"; }
present() { [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) =~ ^(installed|config-files|half-.*|unpacked|triggers-.*)$ ]]; }
purge_ours() {
  local left=()
  for p in "${PACKAGES[@]}"; do present "$p" && left+=("$p"); done
  if ((${#left[@]})); then apt_get purge "${left[@]}" >/dev/null || return 1; fi
  rm -f "$MARKER"
}
trap 'cleanup; purge_ours' EXIT

for p in "${PACKAGES[@]}"; do
  present "$p" || continue
  if [[ ! -e $MARKER ]]; then
    echo "packages: $p is installed on this machine, not by this test, which would replace and then purge it;" \
         "purge it first (apt-get purge ${PACKAGES[*]}) or run the tests on another machine" >&2
    trap cleanup EXIT
    exit 1
  fi
  echo "packages: $p is left from an interrupted run of this test: purging it"
  purge_ours || exit 1
done

# 1. The packages, from the build's binaries.
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD/CMakeCache.txt")
(cd "$WORK" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/debs" >"$WORK/cpack.log" 2>&1)
check "cpack makes the packages" $? "$(tail -5 "$WORK/cpack.log")"
server_deb=$WORK/debs/rgpu-server_${version}_$(dpkg --print-architecture).deb
client_deb=$WORK/debs/rgpu-client_${version}_$(dpkg --print-architecture).deb
ucx_deb=$WORK/debs/rgpu-ucx_${version}_$(dpkg --print-architecture).deb
[[ -f $server_deb && -f $client_deb && -f $ucx_deb ]]
check "the packages carry the project's version $version" $? "$(ls "$WORK/debs")"
depends=$(dpkg-deb -f "$server_deb" Depends; dpkg-deb -f "$client_deb" Depends)
[[ $depends == *libc6* && $depends != *cuda* && $depends != *nvidia* && $depends != *ucx* ]]
check "dependencies computed, none on CUDA, the NVIDIA driver or UCX" $? "$depends"
ucx_depends=$(dpkg-deb -f "$ucx_deb" Depends)
[[ $ucx_depends == *libucx0* ]]
check "rgpu-ucx, and it alone, depends on UCX" $? "$ucx_depends"

# 2. Installed as an operator would.
touch "$MARKER"
apt_get install "$server_deb" "$client_deb" "$ucx_deb" >"$WORK/apt.log" 2>&1
check "apt installs the packages" $? "$(tail -5 "$WORK/apt.log")"
for f in /usr/bin/rgpud /usr/bin/rgpu-device-plugin /usr/bin/rgpu /usr/lib/rgpu/libcudart.so.13 /usr/lib/rgpu/libcuda.so.1 \
         /usr/lib/rgpu/librgpu_transport_ucx.so /lib/systemd/system/rgpud.service /etc/rgpu/rgpud.yaml; do
  [[ -e $f ]]
  check "installed: $f" $?
done
dpkg-query -W -f='${Conffiles}' rgpu-server | grep -q "^ /etc/rgpu/rgpud.yaml "
check "/etc/rgpu/rgpud.yaml is a conffile" $?
verify=$(systemd-analyze verify /lib/systemd/system/rgpud.service 2>&1)
check "systemd-analyze verify: the installed unit, without a warning" $? "$verify"
[[ -z $verify ]]
check "systemd-analyze verify says nothing" $? "$verify"
# The shims need nothing from CUDA: each of their libraries resolves outside /usr/local (where the
# toolkit is) or to another shim.
unresolved=$(for lib in /usr/lib/rgpu/*.so.*; do ldd "$lib" | grep -E "not found|/usr/local/" | sed "s|^|$lib: |"; done)
[[ -z $unresolved ]]
check "the installed shims need no CUDA library" $? "$unresolved"

# 3. The installed rgpud, with the installed configuration (its tenant's token) and a Unix socket
# in place of the configuration's addresses; the installed `rgpu run` puts the installed shims in
# front of api_tour, through the socket and then over UCX (both ends load the installed rgpu-ucx).
SOCK=$WORK/rgpud.sock
RGPU_TRANSPORT=ucx RGPU_MODULE_CACHE=$WORK/modules start_daemon --config /etc/rgpu/rgpud.yaml --emulate --listen "unix:$SOCK"
check "the installed rgpud starts with the installed configuration" $?
RGPUD=${PIDS[-1]}
export RGPU_SERVER=unix:$SOCK
RGPU_TOKEN=$(sed -n 's/^ *token: *//p' /etc/rgpu/rgpud.yaml | head -1)
export RGPU_TOKEN
timeout 10 /usr/bin/rgpu run -- cat /proc/self/maps >"$WORK/maps" 2>&1
grep -q " /usr/lib/rgpu/libcudart.so.13" "$WORK/maps"
check "rgpu run loads the shims from /usr/lib/rgpu" $? "$(head -3 "$WORK/maps")"
timeout 60 /usr/bin/rgpu run -- "$BUILD/tests/integration/programs/api_tour" >"$WORK/tour.out" 2>&1
rc=$?
[[ $rc == 0 ]] && ! grep -q FAIL "$WORK/tour.out" &&
  grep -qx "ok: a kernel launched, memory copied and freed at exit" "$WORK/tour.out"
check "api_tour through the installed rgpu run, shims and rgpud" $? "rc $rc: $(grep -v '^ok' "$WORK/tour.out" | head)"
grep -q "session [0-9]* end (client disconnected): .*, [1-9][0-9]* calls" "$LOG"
check "the installed rgpud served api_tour's session" $? "$(tail -3 "$LOG")"
RGPU_TRANSPORT=ucx UCX_TLS=tcp timeout 60 /usr/bin/rgpu run -- "$BUILD/tests/integration/programs/api_tour" \
  >"$WORK/tour-ucx.out" 2>&1
rc=$?
[[ $rc == 0 ]] && grep -qx "ok: a kernel launched, memory copied and freed at exit" "$WORK/tour-ucx.out" &&
  grep -q "session [0-9]* start: .* on ucx" "$LOG"
check "api_tour over UCX, with the installed rgpu-ucx on both ends" $? "rc $rc: $(grep -v '^ok' "$WORK/tour-ucx.out" | head)"
kill "$RGPUD" && wait "$RGPUD" 2>/dev/null
[[ ! -e $SOCK ]]
check "rgpud stops and removes its socket file" $?

# 4. Purged: nothing of either package is left.
apt_get purge "${PACKAGES[@]}" >"$WORK/purge.log" 2>&1
check "apt purges the packages" $? "$(tail -5 "$WORK/purge.log")"
for p in "${PACKAGES[@]}"; do
  ! present "$p" && ! dpkg -L "$p" >/dev/null 2>&1
  check "purged: dpkg knows no file of $p" $?
done
for f in /usr/bin/rgpud /usr/bin/rgpu-device-plugin /usr/bin/rgpu /usr/lib/rgpu /lib/systemd/system/rgpud.service /etc/rgpu; do
  [[ ! -e $f ]]
  check "purged: $f is gone" $?
done
rm -f "$MARKER"
finish
