#!/bin/sh
# Fuzzes every RESTCache implementation against openapi.yaml with Schemathesis (property-based,
# from PyPI, pinned below, installed once into target/schemathesis): no 5xx, every status, content
# type and body as the document says, nothing crashes. Each implementation runs on a fresh SQLite
# file, fuzzed twice: with generated API keys (the validation paths) and with one it issued (its
# items). `make fuzz-restcache` builds first; FUZZ_EXAMPLES (default 100) per operation and phase.
set -eu
cd "$(dirname "$0")"
here=$(pwd)
root=$(cd ../.. && pwd)
venv=$root/target/schemathesis
if [ ! -x "$venv/bin/st" ]; then
  echo "installing schemathesis 4.32.5 into $venv (once)"
  python3 -m venv "$venv" && "$venv/bin/pip" install -q schemathesis==4.32.5
fi
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
examples=${FUZZ_EXAMPLES:-100}
failed=""
for impl in go jetty tomcat rust; do
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  case $impl in
    go) set -- "$here/go/bin/restcache-go" ;;
    jetty) set -- java -jar "$here/java/target/restcache-jetty.jar" ;;
    tomcat) set -- java -jar "$here/java/target/restcache-tomcat.jar" ;;
    rust) set -- "$root/target/release/restcache-rust" ;;
  esac
  "$@" --port "$port" --store "sqlite:$work/$impl.db" >/dev/null 2>"$work/$impl.log" &
  pid=$!
  url=http://127.0.0.1:$port
  tries=0
  until curl -sf "$url/health" >/dev/null; do
    tries=$((tries + 1))
    if [ $tries -gt 600 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "fuzz: $impl did not start: $(tail -n 1 "$work/$impl.log")" >&2
      exit 1
    fi
    sleep 0.1
  done
  key=$(curl -sf "$url/api/" | python3 -c 'import json, sys; print(json.load(sys.stdin)["apiKey"])')
  mkdir -p "$work/$impl-key"
  printf '[parameters]\n"path.apiKey" = "%s"\n' "$key" >"$work/$impl-key/schemathesis.toml"
  for mode in generated issued; do
    dir=$work
    [ $mode = issued ] && dir=$work/$impl-key
    echo "== $impl, $mode API keys"
    if ! (cd "$dir" && "$venv/bin/st" run "$here/openapi.yaml" --url "$url" --checks all \
      --max-examples "$examples" --no-color >"$work/$impl-$mode.out" 2>&1); then
      failed="$failed $impl/$mode"
      # The failures by kind and what was answered; Schemathesis's own report (with curl lines
      # to reproduce each) is kept in the run's output when FUZZ_KEEP names a directory.
      grep -E '^ *(❌|- ST|Received:|Documented:|\[[0-9]{3}\])' "$work/$impl-$mode.out" | cut -c1-160 | sort | uniq -c | head -n 20
      [ -n "${FUZZ_KEEP:-}" ] && mkdir -p "$FUZZ_KEEP" && cp "$work/$impl-$mode.out" "$FUZZ_KEEP/"
    else
      grep -E 'generated,|No issues' "$work/$impl-$mode.out" | tr -s ' '
    fi
  done
  if ! kill -0 "$pid" 2>/dev/null; then
    failed="$failed $impl/crashed"
    echo "fuzz: $impl is gone: $(tail -n 1 "$work/$impl.log")" >&2
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=""
done
if [ -n "$failed" ]; then
  echo "fuzz: failed:$failed" >&2
  exit 1
fi
echo "fuzz: every implementation passed"
