#!/bin/sh
# The run command: installs the build packages, builds a release into build/ and starts the
# program with its embedded defaults. Extra arguments go to the program.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)

"$top/deploy/install-deps.sh" build
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=Release -DMANCALA_TESTS=OFF
cmake --build "$top/build" -j "$(nproc)"

# Until the game server lands, the rules engine's command-line tool is what there is to run.
if [ "$#" -eq 0 ]; then
  set -- perft kalah 8
fi
exec "$top/build/bin/mancala" "$@"
