// Node only: the committed golden vectors and bad-input corpus (subjects/formats/vectors/), read
// by the tests.

import { readdirSync, readFileSync } from "node:fs";

import type { DatasetKind } from "../dataset/spec.js";
import { VECTORS_DIR } from "./environment.js";

/** vectors/<dataset>.<format>: the Rust subject's encoding of the full dataset. */
export function readVector(kind: DatasetKind, format: string): Uint8Array {
  return new Uint8Array(readFileSync(`${VECTORS_DIR}${kind}.${format}`));
}

/** vectors/bad/: file names, sorted. */
export const BAD_DIR = `${VECTORS_DIR}bad/`;

export function badFiles(): string[] {
  return readdirSync(BAD_DIR).sort();
}

export function readBad(name: string): Uint8Array {
  return new Uint8Array(readFileSync(`${BAD_DIR}${name}`));
}
