#!/bin/sh
# Installs the Debian 12 packages Mancala Online needs, and nothing else.
#
#   deploy/install-deps.sh runtime   shared libraries the server needs to run, and curl for the
#                                    health check (the Docker runtime stage)
#   deploy/install-deps.sh build     runtime + compiler, CMake and the -dev packages
#   deploy/install-deps.sh test      build + what the tests use (valgrind, Node.js, Chromium, nginx...)
#   deploy/install-deps.sh bench     build + what the benchmarks use (node bench/bench.mjs: Node.js
#                                    and npm, python3 for the peer's native module, valgrind for
#                                    callgrind, gnuplot for the plot; docs/performance.md)
#
# Packages already installed are skipped, so it is cheap to run again. Run it as root.
set -eu

mode=${1:-build}

runtime="libuv1 libwebsockets17 libwebsockets-evlib-uv libjansson4 libsqlite3-0 ca-certificates curl"
build="build-essential cmake pkg-config libuv1-dev libwebsockets-dev libwebsockets-evlib-uv libjansson-dev libsqlite3-dev libssl-dev"
test="valgrind chromium nginx openssl shellcheck curl sqlite3 clang-format"
bench="valgrind gnuplot-nox python3"

case "$mode" in
  runtime) want="$runtime" ;;
  build) want="$runtime $build" ;;
  test) want="$runtime $build $test" ;;
  bench) want="$runtime $build $bench" ;;
  *)
    echo "usage: $0 runtime|build|test|bench" >&2
    exit 2
    ;;
esac

# Node.js and npm run the protocol and browser tests. A machine that already has a node (for
# example from another repository) keeps it: Debian's npm would conflict with it.
if { [ "$mode" = test ] || [ "$mode" = bench ]; } && ! command -v node >/dev/null 2>&1; then
  want="$want nodejs npm"
fi

missing=""
for pkg in $want; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $pkg"
  fi
done

if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages:$missing (run this script as root)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086 # the package list is split on purpose
  apt-get install -y -qq --no-install-recommends $missing
fi
