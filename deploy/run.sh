#!/bin/sh
# The run command: installs the build packages, builds a release into build/ and starts the game
# server on its defaults (http://localhost:8080, the web client from this tree's web/). Extra
# arguments go to mancala-server (see build/bin/mancala-server --help).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)

"$top/deploy/install-deps.sh" build
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=Release -DMANCALA_TESTS=OFF
cmake --build "$top/build" -j "$(nproc)"

exec "$top/build/bin/mancala-server" "$@"
