#!/bin/sh
# The server under valgrind, also from a sanitized build tree (the sanitizers and valgrind do not
# mix): builds mancala-server without them into its own directory, then runs valgrind.test.mjs.
#   sh tests/integration/valgrind.sh SOURCE_DIR BUILD_DIR
set -eu

src=$1
build=$2

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMANCALA_SANITIZE=OFF \
  -DMANCALA_TESTS=OFF >/dev/null
cmake --build "$build" --target mancala-server -j "$(nproc)" >/dev/null
MANCALA_SERVER="$build/bin/mancala-server" exec node --test "$src/tests/integration/valgrind.test.mjs"
