#!/bin/sh
# PostgreSQL as a service (subjects/services/postgres.toml): Debian's server, a cluster in the run's
# directory, loopback only.
#   postgres.sh init DIR       initdb into DIR/data (trust for loopback, superuser postgres)
#   postgres.sh run DIR PORT   the server in the foreground on 127.0.0.1:PORT, its socket in DIR
# PostgreSQL refuses to run as root (as CI runs), so then both steps drop to the `postgres` user
# with setpriv, which also gives the server the runner's death signal back (--pdeathsig KILL):
# the kernel clears the one the runner set when the user changes.
# Settings: max_connections for four services' pools at once; synchronous_commit=off so a commit
# does not wait for its WAL flush, as SQLite's WAL mode with synchronous=NORMAL (the embedded
# store's setting) does not: both stores keep their data consistent after a crash and may lose the
# last commits, so neither is charged an fsync per request that the other is not.
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "PostgreSQL is not installed: run \`make setup\` (Debian package postgresql)" >&2
  exit 127
fi
[ $# -ge 2 ] || { echo "usage: postgres.sh init DIR | run DIR PORT" >&2; exit 2; }
cmd=$1 dir=$2
as=""
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  as="setpriv --reuid postgres --regid postgres --init-groups --pdeathsig KILL"
fi
case $cmd in
  init)
    exec $as "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale C --no-sync >/dev/null ;;
  run)
    [ $# -eq 3 ] || { echo "usage: postgres.sh run DIR PORT" >&2; exit 2; }
    exec $as "$bin/postgres" -D "$dir/data" -p "$3" -k "$dir" -c listen_addresses=127.0.0.1 \
      -c max_connections=300 -c shared_buffers=256MB -c synchronous_commit=off ;;
  *)
    echo "postgres.sh: unknown step '$cmd' (init or run)" >&2; exit 2 ;;
esac
