#!/bin/sh
# The long run of every fuzz target: builds the clang tree into build-fuzz/ (next to this
# checkout's other build trees) and fuzzes each target in turn for SECONDS (default one hour),
# keeping what it finds in build-fuzz/corpus/ for the next run.
#
#   sh tests/fuzz/long.sh [SECONDS] [TARGET...]
#
# A finding stops that target with its input in build-fuzz/artifacts/: fix it, then copy the input
# into tests/fuzz/corpus/TARGET/ so that every test run replays it (ctest fuzz.replay_TARGET).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
build="$top/build-fuzz"
seconds=${1:-3600}
[ $# -gt 0 ] && shift
targets=${*:-engine proto http store}

sh "$top/tests/fuzz/run.sh" build "$top" "$build"
failed=""
for t in $targets; do
  sh "$top/tests/fuzz/run.sh" run "$top" "$build" "$t" "$seconds" || failed="$failed $t"
done
if [ -n "$failed" ]; then
  echo "findings in:$failed" >&2
  exit 1
fi
