#!/bin/sh
# The `docker` tests (ctest label docker): the README's Docker and Compose commands, run for real.
# This script provides what they need, then runs tests/docker/docker.test.mjs:
#   1. Docker, Compose and debootstrap (deploy/install-deps.sh docker);
#   2. a Docker daemon: the one running, else a dockerd started here and stopped again at the end,
#      also on failure (only the process this script started);
#   3. the base image debian:bookworm-slim: there, pulled, or built locally (base-image.sh, which
#      caches its root file system in /var/cache/mancala-online/).
# Everything the tests create is named after this run (mancalatest<PID>) and published on
# 127.0.0.1 only; it is removed at the end whatever happens. The images mancala-online-test,
# mancala-online-test-build (its build stage), mancala-online-test-nginx,
# mancala-online-test-postgres, mancala-online-test-redis and the base image are kept (about
# 900 MB): the next run builds from their cache.
# Runs on one machine take turns (a lock in /tmp), since they share the daemon.
#
# Usage: run.sh WORK_DIR   (logs: WORK_DIR/dockerd.log, WORK_DIR/build.log, WORK_DIR/*.log)
# Environment: MANCALA_COMPOSE, the Compose command ("docker-compose" or "docker compose"; by
# default docker-compose when installed, else docker compose).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${1:?usage: run.sh WORK_DIR}
run=mancalatest$$
started=""

fail() {
  echo "docker: $*" >&2
  echo "docker: 0 passed, 1 failed"
  exit 1
}

mkdir -p "$work"
work=$(cd "$work" && pwd)

# One run at a time per machine.
lock=${TMPDIR:-/tmp}/mancala-online-docker-test.lock
exec 9>>"$lock"
chmod 666 "$lock" 2>/dev/null || true
if ! flock -w 3600 9; then
  fail "another run of the docker tests held $lock for an hour"
fi

# 1. The tools.
"$top/deploy/install-deps.sh" docker || fail "cannot install Docker (deploy/install-deps.sh docker)"
if [ -n "${MANCALA_COMPOSE:-}" ]; then
  compose=$MANCALA_COMPOSE
elif command -v docker-compose >/dev/null 2>&1; then
  compose=docker-compose
elif docker compose version >/dev/null 2>&1; then
  compose="docker compose"
else
  fail "neither docker-compose nor docker compose is installed"
fi

# Removes what runs of these tests created: this one's, and any left by a run that was killed (runs
# take turns, so whatever carries the prefix is no longer in use).
leftovers() {
  for c in $(docker ps -aq --filter "name=mancalatest"); do
    docker rm -f "$c" >/dev/null 2>&1 || true
  done
  for v in $(docker volume ls -q --filter "name=mancalatest"); do
    docker volume rm -f "$v" >/dev/null 2>&1 || true
  done
  for n in $(docker network ls -q --filter "name=mancalatest"); do
    docker network rm "$n" >/dev/null 2>&1 || true
  done
}

# At the end, also on failure: the leftovers, then the daemon if this script started it.
cleanup() {
  status=$?
  trap - EXIT INT TERM HUP
  if docker info >/dev/null 2>&1; then
    leftovers
  fi
  if [ -n "$started" ]; then
    kill -TERM "$started" 2>/dev/null || true
    i=0
    while kill -0 "$started" 2>/dev/null && [ "$i" -lt 60 ]; do
      sleep 1
      i=$((i + 1))
    done
    if kill -0 "$started" 2>/dev/null; then
      echo "docker: dockerd ($started) did not stop within 60 s; killing it" >&2
      kill -KILL "$started" 2>/dev/null || true
    fi
    echo "docker: stopped the dockerd this run started ($started)"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# 2. The daemon.
ready() { docker info >/dev/null 2>&1; }
if ! ready; then
  pid=$(cat /var/run/docker.pid 2>/dev/null || true)
  if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
    echo "docker: waiting for the running dockerd ($pid)"
  elif [ "$(id -u)" -ne 0 ]; then
    fail "no Docker daemon answers, and only root can start one: run the tests as root, or start dockerd"
  elif ! command -v dockerd >/dev/null 2>&1; then
    fail "no Docker daemon answers and dockerd is not installed"
  else
    # In a session of its own: a Ctrl-C reaches this script, which cleans up and then stops it.
    setsid dockerd >"$work/dockerd.log" 2>&1 </dev/null &
    started=$!
    echo "docker: started dockerd ($started), log in $work/dockerd.log"
  fi
  i=0
  until ready; do
    if [ -n "$started" ] && ! kill -0 "$started" 2>/dev/null; then
      started=""
      tail -n 20 "$work/dockerd.log" >&2
      fail "dockerd exited at start (above: the end of $work/dockerd.log)"
    fi
    i=$((i + 1))
    [ "$i" -le 120 ] || fail "the Docker daemon did not answer within 120 s"
    sleep 1
  done
fi
echo "docker: daemon $(docker version -f '{{.Server.Version}}'), compose: $compose"
leftovers

# 3. The base image.
sh "$here/base-image.sh" || fail "no debian:bookworm-slim image"

# The tests.
MANCALA_DOCKER_RUN=$run MANCALA_DOCKER_WORK=$work MANCALA_COMPOSE=$compose \
  timeout -k 10 1200 node --test "$here/docker.test.mjs"
