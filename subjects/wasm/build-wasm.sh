#!/usr/bin/env bash
# Builds the wasm lab's WebAssembly module twice, without and with wasm SIMD (simd128), and
# makes its JS glue with wasm-bindgen --target web, into web/pages/wasm/pkg/{plain,simd}/ for
# the page's build. Installs what it needs from crates.io and rustup (the wasm32 target, the
# wasm-bindgen CLI of the crate's exact version). If the target cannot be installed, it says so
# in one line and exits 0: the page then fails its wasm rows with that line, and the rest of
# the project builds and tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
CARGO=${CARGO:-cargo}
# The crate pins wasm-bindgen exactly; the CLI must be that version.
VERSION=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' subjects/wasm/rust/Cargo.toml)
OUT=web/pages/wasm/pkg
TARGET=wasm32-unknown-unknown

if ! rustup target list --installed | grep -qx "$TARGET"; then
  if ! rustup target add "$TARGET" >/dev/null 2>&1; then
    echo "wasm lab: cannot install the $TARGET target (rustup target add $TARGET failed): its wasm rows will fail" >&2
    rm -rf "$OUT"
    exit 0
  fi
fi
# `cargo install` puts binaries in $CARGO_INSTALL_ROOT/bin, else $CARGO_HOME/bin, else ~/.cargo/bin.
INSTALLED="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin/wasm-bindgen"
BINDGEN=$(command -v wasm-bindgen || echo "$INSTALLED")
if [ "$("$BINDGEN" --version 2>/dev/null)" != "wasm-bindgen $VERSION" ]; then
  echo "installing wasm-bindgen-cli $VERSION from crates.io (about a minute, once)" >&2
  # Not --locked: its lock file names a webpki-roots release the crates.io index no longer has.
  # No default features (TLS for the test runner's downloads, which we do not use) and an
  # unoptimised profile: it turns one small module into glue, in 0.07 s unoptimised against 0.02 s
  # at opt-level 1, and the glue is the same byte for byte; the install took 48 s against 112 s
  # (2-core Intel VM, crates downloaded; the default release profile took 15 minutes).
  CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    CARGO_PROFILE_RELEASE_DEBUG=false \
    "$CARGO" install wasm-bindgen-cli --version "$VERSION" --no-default-features --quiet
  BINDGEN="$INSTALLED"
fi

for build in plain simd; do
  flags=""
  [ "$build" = simd ] && flags="-C target-feature=+simd128"
  # Its own target directory per build: the flags differ, and so would every cached artifact.
  RUSTFLAGS="$flags" CARGO_TARGET_DIR="target/wasm-$build" \
    "$CARGO" rustc --release --locked --quiet --target "$TARGET" -p wasm-kernels --lib --crate-type cdylib
  # The glue takes the crate's lib name (wasm_kernels.js, wasm_kernels_bg.wasm), in a fresh
  # directory: no file of an older build or name stays behind for the page's import glob.
  rm -rf "${OUT:?}/$build"
  "$BINDGEN" --target web --out-dir "$OUT/$build" "target/wasm-$build/$TARGET/release/wasm_kernels.wasm"
done
