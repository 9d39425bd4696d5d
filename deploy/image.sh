#!/usr/bin/env bash
# The worker image: wirebench built static for x86_64-unknown-linux-musl, alone in an OCI image
# FROM scratch with the Debian CA bundle (for `wirebench load https://…` against your service),
# run as nobody. Workers and merges need nothing else (deploy/kubernetes: -worker-image); a full
# run with the suites' subjects is deploy/Containerfile, for machines with a registry.
#
# Built with Debian's buildah as root on vfs storage (no daemon, no registry), then checked by
# running the binary from the image: `buildah run --isolation chroot` (crun cannot run here; a
# chroot needs a static binary, which is the point). With a subject built (`make build`), the
# check also loads it over HTTP/1.1 and over h2+TLS from inside the image.
#
#   deploy/image.sh [IMAGE]     default localhost/wirebench-worker:latest
#
# IMAGE_PROFILE names the Cargo profile (default release). CI checks the recipe with
# `image-check` (Cargo.toml: opt-level 0), the same sources, target, linking and checks in 149 s
# instead of 316 s of compiling on a 2-core Intel VM; an image to ship is built with release.
#
# Prints the image's ID and writes it as an OCI archive to target/wirebench-worker.oci.tar:
#   skopeo copy oci-archive:target/wirebench-worker.oci.tar docker://registry.example/wirebench-worker:1
#   (or: buildah --storage-driver vfs push IMAGE docker://registry.example/wirebench-worker:1)
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-localhost/wirebench-worker:latest}
target=x86_64-unknown-linux-musl
profile=${IMAGE_PROFILE:-release}
bin=target/$target/$profile/wirebench
archive=target/wirebench-worker.oci.tar

fail() { echo "deploy/image.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "buildah on vfs storage needs root here"
command -v buildah >/dev/null || fail "buildah is missing: apt-get install buildah (or make setup-image)"
command -v musl-gcc >/dev/null || fail "musl-gcc is missing: apt-get install musl-tools (or make setup-image)"
rustup target list --installed | grep -qx "$target" || rustup target add "$target"

# ring and mimalloc compile C: musl-gcc links it against musl's headers, not glibc's.
CC_x86_64_unknown_linux_musl=musl-gcc cargo build --profile "$profile" --locked --target "$target" -p wirebench
# A static executable has no program interpreter (no PT_INTERP); a glibc one finds no loader in a
# scratch image.
if readelf -l "$bin" | grep -q 'Requesting program interpreter'; then
  fail "$bin is dynamically linked"
fi

b=(buildah --storage-driver vfs)
ctr=$("${b[@]}" from scratch)
check=""
subject=""
cleanup() {
  [ -n "$subject" ] && kill "$subject" 2>/dev/null
  for c in $ctr $check; do "${b[@]}" rm "$c" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
"${b[@]}" copy --quiet "$ctr" "$bin" /usr/local/bin/wirebench
"${b[@]}" copy --quiet "$ctr" /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
"${b[@]}" config --env PATH=/usr/local/bin --user 65534:65534 --workingdir / \
  --entrypoint '["/usr/local/bin/wirebench"]' --cmd '["--help"]' \
  --label org.opencontainers.image.title=wirebench-worker \
  --label "org.opencontainers.image.revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
  --label "wirebench.cargo-profile=$profile" "$ctr"
id=$("${b[@]}" commit --quiet --rm "$ctr" "$image")
ctr=""

# The image's own binary, run from the image.
check=$("${b[@]}" from --quiet "$image")
run=("${b[@]}" run --isolation chroot "$check" --)
"${run[@]}" wirebench --version
"${run[@]}" wirebench worker --help >/dev/null
if [ -x target/release/protocols-rust ]; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  tls=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  target/release/protocols-rust --port "$port" --tls-port "$tls" >/dev/null 2>&1 &
  subject=$!
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$tls") 2>/dev/null && break
    sleep 0.1
  done
  # Every answer's bytes checked; all 2,000 requests answered, none failed.
  for args in "http://127.0.0.1:$port/payload/1024" "https://127.0.0.1:$tls/payload/1024 --driver http2 -k"; do
    # shellcheck disable=SC2086
    "${run[@]}" wirebench load $args -n 2000 -c 4 --expect-bytes 1024 --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["requests"] == 2000 and r["errors"] == 0, r
print("load from the image:", r["requests"], "requests,", r["errors"], "errors")'
  done
fi
rm -f "$archive"
"${b[@]}" push --quiet "$image" "oci-archive:$archive:$image"
echo "image $image ($id, the $profile profile), $(du -h "$archive" | cut -f1) as $archive"
