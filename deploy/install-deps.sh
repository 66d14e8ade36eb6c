#!/bin/sh
# Installs the Debian 12 packages Mancala Online needs, and nothing else.
#
#   deploy/install-deps.sh runtime   the shared libraries the server needs to run, nothing else
#                                    (the Docker image's runtime stage)
#   deploy/install-deps.sh build     runtime + compiler, CMake and the -dev packages
#   deploy/install-deps.sh test      build + what the tests use (valgrind, Node.js, Chromium, nginx...)
#   deploy/install-deps.sh docker    Docker, Compose and debootstrap, for the `docker` tests
#                                    (tests/docker/run.sh); a Docker already installed is kept
#   deploy/install-deps.sh bench     build + what the benchmarks use (node bench/bench.mjs: Node.js
#                                    and npm, python3 for the peer's native module, valgrind for
#                                    callgrind, gnuplot for the plot; docs/performance.md)
#
# Packages already installed are skipped, so it is cheap to run again. Run it as root.
set -eu

mode=${1:-build}

# redis-server is for the tests (tests/redis.sh starts its own on a free loopback port): the
# service the package may start on port 6379 is neither used nor needed by them.

runtime="libuv1 libwebsockets17 libwebsockets-evlib-uv libjansson4 libsqlite3-0 libpq5 libhiredis0.14 libssl3 libsodium23 libicu72 zlib1g"
build="build-essential cmake pkg-config libuv1-dev libwebsockets-dev libwebsockets-evlib-uv libjansson-dev libsqlite3-dev libpq-dev libhiredis-dev libssl-dev libsodium-dev libicu-dev zlib1g-dev"
test="valgrind chromium nginx postgresql-15 redis-server openssl shellcheck ca-certificates curl sqlite3 clang-format clang libclang-rt-14-dev"
docker="debootstrap procps"
bench="valgrind gnuplot-nox python3"

case "$mode" in
  runtime) want="$runtime" ;;
  build) want="$runtime $build" ;;
  test) want="$runtime $build $test" ;;
  docker) want="$docker" ;;
  bench) want="$runtime $build $bench" ;;
  *)
    echo "usage: $0 runtime|build|test|docker|bench" >&2
    exit 2
    ;;
esac

# Node.js and npm run the protocol and browser tests. A machine that already has a node (for
# example from another repository) keeps it: Debian's npm would conflict with it.
if { [ "$mode" = test ] || [ "$mode" = bench ]; } && ! command -v node >/dev/null 2>&1; then
  want="$want nodejs npm"
fi

# Debian's Docker (20.10) and Compose (1.29), unless a Docker is there already: docker.io conflicts
# with Docker's own docker-ce packages, and Compose v2 (`docker compose`) does the same job.
if [ "$mode" = docker ]; then
  command -v dockerd >/dev/null 2>&1 || want="$want docker.io"
  if ! command -v docker-compose >/dev/null 2>&1 && ! docker compose version >/dev/null 2>&1; then
    want="$want docker-compose"
  fi
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
  # Waits for another apt or dpkg run (a test installing its tools, unattended upgrades) to finish.
  lock="-o DPkg::Lock::Timeout=600"
  # shellcheck disable=SC2086 # the option and the package list are split on purpose
  apt-get $lock update -qq
  # shellcheck disable=SC2086
  apt-get $lock install -y -qq --no-install-recommends $missing
fi
