#!/usr/bin/env bash
# The browser labs' pages (pages/<lab>/ into dist/<lab>/) and their Node entries (dist-node/),
# after installing the locked npm packages when the lock file changed. The wasm lab's module is
# built apart (subjects/wasm/build-wasm.sh, before this): the page finds it by an import glob and
# builds without it.
set -euo pipefail
cd "$(dirname "$0")"
../scripts/npm-ci-if-stale
npm run --silent build
