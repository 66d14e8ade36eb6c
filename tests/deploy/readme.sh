#!/bin/sh
# The README's table of options names every flag and environment variable that
# `mancala-server --help` prints, so the two cannot drift apart.
# Usage: readme.sh SERVER README
set -eu

server=$1
readme=$2
help=$("$server" --help)
missing=0
checked=0
for word in $(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]*|MANCALA_[A-Z_]+' | sort -u); do
  checked=$((checked + 1))
  if ! grep -qF -- "\`$word" "$readme"; then
    echo "README.md: $word (from mancala-server --help) is not in the table of options" >&2
    missing=$((missing + 1))
  fi
done
[ "$checked" -gt 20 ] || {
  echo "readme: only $checked names found in --help" >&2
  exit 1
}
echo "readme: $((checked - missing)) passed, $missing failed"
[ "$missing" -eq 0 ]
