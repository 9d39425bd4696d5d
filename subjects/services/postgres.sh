#!/bin/sh
# PostgreSQL as a service (subjects/services/postgres.toml): Debian's server, a cluster in the run's
# directory, loopback only.
#   postgres.sh init DIR       initdb into DIR/data (trust for loopback, superuser postgres)
#   postgres.sh run DIR PORT [relaxed]   the server in the foreground on 127.0.0.1:PORT, its
#                                        socket in DIR
# PostgreSQL refuses to run as root (as CI runs), so then both steps drop to the `postgres` user
# with setpriv, which also gives the server the runner's death signal back (--pdeathsig KILL):
# the kernel clears the one the runner set when the user changes.
# Settings: max_connections for four services' pools at once. Commits are durable, PostgreSQL's
# default: a commit is answered once its WAL is flushed, so a crash of the server loses no write a
# client was told of. `relaxed` (the postgres-relaxed service) sets synchronous_commit=off: a
# commit is answered before the flush, and a crash loses the last few hundred milliseconds of
# acknowledged writes (4 to 22 of them per SIGKILL under G3 load, none with it on). SQLite's WAL
# with synchronous=NORMAL (the embedded store here) loses none when the process dies, only on a
# power loss or an OS crash.
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "PostgreSQL is not installed: run \`make setup\` (Debian package postgresql)" >&2
  exit 127
fi
[ $# -ge 2 ] || { echo "usage: postgres.sh init DIR | run DIR PORT [relaxed]" >&2; exit 2; }
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
    commit=on
    case $# in
      3) ;;
      4) [ "$4" = relaxed ] || { echo "postgres.sh run: unknown mode '$4' (relaxed)" >&2; exit 2; }
         commit=off ;;
      *) echo "usage: postgres.sh run DIR PORT [relaxed]" >&2; exit 2 ;;
    esac
    exec $as "$bin/postgres" -D "$dir/data" -p "$3" -k "$dir" -c listen_addresses=127.0.0.1 \
      -c max_connections=300 -c shared_buffers=256MB -c synchronous_commit=$commit ;;
  *)
    echo "postgres.sh: unknown step '$cmd' (init or run)" >&2; exit 2 ;;
esac
