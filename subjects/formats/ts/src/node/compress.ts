// Node only: the compressed sizes of an encoding. gzip is node:zlib at level 6 (gzip's default);
// zstd is level 3 (the zstd CLI's default) through @bokuweb/zstd-wasm, the reference C library
// compiled to WebAssembly and shipped inside the npm package (Node 20's zlib has no zstd).

import { gzipSync } from "node:zlib";

import { compress, init } from "@bokuweb/zstd-wasm";

import type { Compressors } from "../harness/run.js";

export const GZIP_LEVEL = 6;
export const ZSTD_LEVEL = 3;

/** Loads the zstd WebAssembly module once; then every size is synchronous. */
export async function nodeCompressors(): Promise<Compressors> {
  await init();
  return {
    gzipLevel: GZIP_LEVEL,
    gzipSize: (bytes) => gzipSync(bytes, { level: GZIP_LEVEL }).length,
    zstd: { level: ZSTD_LEVEL, size: (bytes) => compress(bytes, ZSTD_LEVEL).length },
  };
}
