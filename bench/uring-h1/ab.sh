#!/usr/bin/env bash
# Paired rounds of the io_uring spike against wirebench's http1 driver: the REST subject on CPU 0,
# each client on CPU 1 in turn, 100 connections, 5 s; prints each client's CPU per request and
# the subject's. `make build` first; `cargo build --release` in bench/uring-h1 for the spike.
# Usage: bench/uring-h1/ab.sh [ROUNDS] [BATCH]   (BATCH: completions the spike waits for, or 1 ms)
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${1:-6}
BATCH=${2:-32}
PORT=18080
SPIKE=bench/uring-h1/target/release/uring-spike
taskset -c 0 target/release/protocols-rust --port $PORT >/dev/null 2>&1 &
S=$!
trap 'kill $S' EXIT
for _ in $(seq 200); do curl -sf http://127.0.0.1:$PORT/health >/dev/null && break; sleep 0.05; done
curl -sf http://127.0.0.1:$PORT/health >/dev/null || { echo "the subject did not start on port $PORT" >&2; exit 1; }
scpu() { awk '{print ($14+$15)/100}' /proc/$S/stat; }
for r in $(seq "$ROUNDS"); do
  # Who goes first alternates, so a drift over the round does not favour one.
  order="uring wb"; [ $((r % 2)) -eq 0 ] && order="wb uring"
  for who in $order; do
    s0=$(scpu)
    if [ $who = uring ]; then
      out=$( { /usr/bin/time -f "TIME %U %S" taskset -c 1 $SPIKE $PORT 100 5 "$BATCH"; } 2>&1 )
    else
      out=$( { /usr/bin/time -f "TIME %U %S" taskset -c 1 target/release/wirebench load \
        http://127.0.0.1:$PORT/payload/1024 -c 100 -d 5 --threads 1; } 2>&1 )
    fi
    s1=$(scpu)
    n=$(echo "$out" | awk '/^requests/{print $2}')
    t=$(echo "$out" | awk '/^TIME/{print $2+$3}')
    echo "$r $who n=$n client_cpu=$t client_us_per_req=$(echo "scale=3; $t*1000000/$n" | bc) server_us_per_req=$(echo "scale=3; ($s1-$s0)*1000000/$n" | bc)"
  done
done
