#!/bin/sh
# `cmake --install` puts the server, the search worker, the tool, the web client and the systemd
# unit where they belong, and the unit starts the installed binary. Usage: install.sh BUILD_DIR
set -eu

build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

cmake --install "$build" --prefix "$dest/usr" >/dev/null

fail() {
  echo "install: $*" >&2
  exit 1
}

[ -x "$dest/usr/bin/mancala-server" ] || fail "bin/mancala-server missing"
[ -x "$dest/usr/bin/mancala" ] || fail "bin/mancala missing"
[ -x "$dest/usr/bin/mancala-worker" ] || fail "bin/mancala-worker missing"
[ -f "$dest/usr/share/mancala-online/web/index.html" ] || fail "web client missing"
[ ! -e "$dest/usr/share/mancala-online/web/README.md" ] || fail "web/README.md installed"
unit="$dest/usr/lib/systemd/system/mancala-server.service"
[ -f "$unit" ] || fail "systemd unit missing"
grep -q '^ExecStart=/.*/bin/mancala-server ' "$unit" || fail "unit ExecStart is not an absolute path"
if grep -q '@[A-Z_]*@' "$unit"; then
  fail "unit has an unsubstituted @VARIABLE@"
fi
"$dest/usr/bin/mancala-server" --help >/dev/null || fail "installed server does not run"
if command -v systemd-analyze >/dev/null 2>&1; then
  # Only the unit's own syntax: the installed binary path is outside this sandbox's root.
  out=$(systemd-analyze verify "$unit" 2>&1 || true)
  if echo "$out" | grep -v 'is not executable\|No such file\|Command .* is not\|not found' | grep -qi 'unknown\|invalid\|failed to parse'; then
    fail "systemd-analyze: $out"
  fi
fi
wunit="$dest/usr/lib/systemd/system/mancala-worker@.service"
[ -f "$wunit" ] || fail "the worker's systemd unit missing"
grep -q '^ExecStart=/.*/bin/mancala-worker ' "$wunit" || fail "worker unit ExecStart is not an absolute path"
if grep -q '@[A-Z_]*@' "$wunit"; then
  fail "worker unit has an unsubstituted @VARIABLE@"
fi
# The worker lowers its own priority at start (setpriority(), of systemd's @resources): the unit
# that filters @resources out must let that one call back in, after the filter, or systemd kills it.
awk '/^SystemCallFilter=~.*@resources/ { deny = NR } /^SystemCallFilter=setpriority$/ { allow = NR }
  END { exit !(deny && allow > deny) }' "$wunit" ||
  fail "worker unit forbids setpriority() (mancala-worker --nice) without allowing it back"
# The worker runs (its usage; a bad URL is a usage error).
"$dest/usr/bin/mancala-worker" --help >/dev/null || fail "installed worker does not run"
if "$dest/usr/bin/mancala-worker" http://x >/dev/null 2>&1; then
  fail "the worker took a URL that is not redis://"
fi
echo "install: 1 passed, 0 failed"
