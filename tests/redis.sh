#!/bin/sh
# A throwaway Redis for the tests, from Debian's redis-server, on a loopback port in a directory of
# its own, without persistence. Its own port and configuration: a Redis the package's service may
# have started (port 6379, /etc/redis) is neither used nor touched.
#
#   tests/redis.sh start DIR PORT   start on PORT ("auto": a free one) with DIR (made afresh) for
#                                   its configuration, pid and log; prints its URL
#   tests/redis.sh stop DIR         stop it (and any started in DIR/*/) and delete DIR
#   tests/redis.sh kill DIR         kill -9 it (a crash)
#   tests/redis.sh restart DIR      start again after a stop or a kill (same port)
set -eu

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start DIR PORT | stop DIR | kill DIR | restart DIR" >&2
  exit 2
fi

# Starts it from DIR's configuration and waits until it answers (up to 10 s).
redis_start() {
  port=$(cat "$dir/port")
  redis-server "$dir/redis.conf"
  i=0
  until [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; do
    i=$((i + 1))
    if [ "$i" -gt 200 ]; then
      echo "redis-server did not start on port $port:" >&2
      cat "$dir/log" >&2 || true
      exit 1
    fi
    sleep 0.05
  done
}

# Whether process $1 runs: a zombie does not (a killed Redis whose parent, init in a container,
# has not reaped it yet: kill -0 would still find it).
alive() {
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
  [ -n "$state" ] && [ "$state" != Z ]
}

# The pid in pidfile when it is a running redis-server (not a reused pid), or nothing.
redis_pid() {
  pid=$(cat "$1" 2>/dev/null || true)
  if [ -n "$pid" ] && grep -q '^redis' "/proc/$pid/comm" 2>/dev/null && alive "$pid"; then
    echo "$pid"
  fi
}

# Stops the Redis of DIR, and those started in its subdirectories (a test's own, left running by
# a test that failed).
redis_stop_all() {
  for pidfile in "$dir/pid" "$dir"/*/pid; do
    pid=$(redis_pid "$pidfile")
    if [ -n "$pid" ]; then
      kill "$pid"
      while alive "$pid"; do sleep 0.05; done
    fi
  done
}

case "$cmd" in
  start)
    port=${3:?port}
    if [ "$port" = auto ]; then # A free loopback port, as the kernel gives one.
      port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    fi
    redis_stop_all # One started there before (ctest --repeat runs the fixture's start again).
    rm -rf "$dir"
    mkdir -p "$dir"
    echo "$port" >"$dir/port"
    # DEBUG is for the tests (DEBUG SLEEP: a Redis that stops answering), from loopback only.
    cat >"$dir/redis.conf" <<CONF
bind 127.0.0.1
port $port
dir $dir
daemonize yes
pidfile $dir/pid
logfile $dir/log
save ""
appendonly no
enable-debug-command local
CONF
    redis_start
    echo "redis://127.0.0.1:$port"
    ;;
  stop)
    redis_stop_all
    rm -rf "$dir"
    ;;
  kill)
    pid=$(redis_pid "$dir/pid")
    if [ -n "$pid" ]; then
      kill -9 "$pid"
      while alive "$pid"; do sleep 0.05; done
    fi
    ;;
  restart)
    redis_start
    ;;
  *)
    echo "usage: $0 start DIR PORT | stop DIR | kill DIR | restart DIR" >&2
    exit 2
    ;;
esac
