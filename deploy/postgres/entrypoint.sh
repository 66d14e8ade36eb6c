#!/bin/sh
# Starts PostgreSQL for Mancala Online in a container: at the first start (an empty volume) makes
# the cluster, the role "mancala" with the password POSTGRES_PASSWORD and its database "mancala",
# reachable from the compose network with that password (scram-sha-256) and from nowhere else
# without it; then runs the server in the foreground (SIGINT: a fast, clean stop).
set -eu

bin=/usr/lib/postgresql/15/bin
data=/var/lib/postgresql/data

if [ ! -s "$data/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "mancala-postgres: set MANCALA_PG_PASSWORD (compose) to the database password" >&2
    exit 1
  fi
  # The superuser gets a random password nobody knows (it logs in over the local socket only).
  pwfile=$(mktemp)
  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$pwfile"
  "$bin/initdb" -D "$data" -U postgres --auth-local=peer --auth-host=scram-sha-256 \
    --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 >/dev/null
  echo "host all all all scram-sha-256" >>"$data/pg_hba.conf"
  "$bin/pg_ctl" -D "$data" -o "-c listen_addresses=''" -w start >/dev/null
  # The password goes through a psql variable, quoted by psql (:'pw'), never into the command line.
  "$bin/psql" -v ON_ERROR_STOP=1 -q -U postgres -d postgres -v pw="$POSTGRES_PASSWORD" <<'SQL'
CREATE ROLE mancala LOGIN PASSWORD :'pw';
CREATE DATABASE mancala OWNER mancala;
SQL
  "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
  rm -f "$pwfile"
  echo "mancala-postgres: made the database mancala"
fi
exec "$bin/postgres" -D "$data" -c listen_addresses='*'
