#!/bin/sh
# A throwaway PostgreSQL 15 for the tests, from Debian's postgresql-15, on a loopback port in a
# directory of its own (PostgreSQL refuses to run as root: as root it runs as the postgres user).
#
#   tests/pg.sh start DIR PORT   initdb in DIR (made afresh), start on PORT ("auto": a free one),
#                                make the database "mancala" for the role "mancala"; prints its URL
#   tests/pg.sh stop DIR         stop it (fast) and delete DIR
#   tests/pg.sh kill DIR         kill -9 the postmaster and its backends (a crash)
#   tests/pg.sh restart DIR      start again after a stop or a kill (same port, same data)
set -eu

bin=/usr/lib/postgresql/15/bin
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start DIR PORT | stop DIR | kill DIR | restart DIR" >&2
  exit 2
fi

# Runs a command as the user PostgreSQL runs as.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

pg_start() {
  port=$(cat "$dir/port")
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
}

case "$cmd" in
  start)
    port=${3:?port}
    if [ "$port" = auto ]; then # A free loopback port, as the kernel gives one.
      port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    echo "$port" >"$dir/port"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir/port"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    pg_start
    as_pg "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -q -c "CREATE ROLE mancala LOGIN" \
      -c "CREATE DATABASE mancala OWNER mancala" postgres >/dev/null
    echo "postgresql://mancala@127.0.0.1:$port/mancala"
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  kill)
    pid=$(head -n 1 "$dir/data/postmaster.pid")
    # The postmaster's children first (backends, writer...), then the postmaster itself.
    pkill -9 -P "$pid" 2>/dev/null || true
    kill -9 "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    ;;
  restart)
    pg_start
    ;;
  *)
    echo "usage: $0 start DIR PORT | stop DIR | kill DIR | restart DIR" >&2
    exit 2
    ;;
esac
