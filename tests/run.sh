#!/bin/sh
# The test command: installs what the tests need, builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs every test with ctest. Run it from anywhere, as root on a
# fresh Debian 12 machine. Extra arguments go to ctest (for example -R engine).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build-test"

"$top/deploy/install-deps.sh" test

if [ -f "$top/tests/package-lock.json" ]; then
  (cd "$top/tests" && npm ci --no-audit --no-fund --loglevel=error)
fi

cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DMANCALA_SANITIZE=ON -DMANCALA_WERROR=ON
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"
