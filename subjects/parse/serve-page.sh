#!/usr/bin/env bash
# The parse lab's page by hand (`make parse-page`): starts the Rust server on :8081 and the Java
# server on :8080 (the page's defaults), serves the built page and prints its URL; Ctrl-C stops
# all three. Needs `make build`.
set -euo pipefail
cd "$(dirname "$0")/../.."
for f in target/release/parse-rust subjects/parse/java/target/parse-java.jar web/dist/parse/index.html; do
  [ -e "$f" ] || { echo "serve-page: $f is missing: run \`make build\` first" >&2; exit 1; }
done
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait' EXIT INT TERM
target/release/parse-rust --port 8081 & pids+=($!)
java -Xmx1g -jar subjects/parse/java/target/parse-java.jar --port 8080 & pids+=($!)
for port in 8081 8080; do
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
    kill -0 "${pids[@]}" 2>/dev/null || { echo "serve-page: a server exited (port $port taken?)" >&2; exit 1; }
    sleep 0.5
  done
done
node web/harness/browser.mjs parse --keep-serving \
  --param rust=http://127.0.0.1:8081 --param java=http://127.0.0.1:8080 & pids+=($!)
wait "${pids[-1]}"
