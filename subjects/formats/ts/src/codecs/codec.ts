// The codec contract, the environment a codec is built from, and the error every codec throws.
// Portable: nothing here or in a codec module touches Node; the environment (schema texts,
// library versions) is read by src/node/environment.ts in Node, or by a browser page.

import type { DatasetKind, Spec } from "../dataset/spec.js";
import type { Shapes } from "../dataset/shape.js";
import type { Dataset } from "../dataset/types.js";

/**
 * One serialization format as one library implements it.
 *
 * Contract: `decode(encode(d), d.kind)` returns a value equal to `d` (shape.ts `difference`);
 * `encode` of equal values gives equal bytes; `decode` of any bytes returns a dataset whose
 * values have the dataset's types, or throws a CodecError — never another exception, never a
 * hang, never an allocation far beyond the input (the bad-input test holds every codec to that).
 * Codecs keep no state between calls that changes results.
 */
export interface Codec {
  /** The format id used in flags, file names and measurements (`msgpack`). */
  readonly id: string;
  /** `package@version` of the library doing the work, with the installed version. */
  readonly library: string;
  encode(data: Dataset): Uint8Array;
  decode(bytes: Uint8Array, kind: DatasetKind): Dataset;
}

/** What codecs are built from: everything outside the code, read once by the host. */
export interface CodecEnvironment {
  /** schema/datasets.json, parsed. */
  readonly spec: Spec;
  /** The datasets' shapes, compiled from `spec`. */
  readonly shapes: Shapes;
  /** schema/datasets.proto. */
  readonly proto: string;
  /** schema/avro/<dataset>.avsc. */
  readonly avro: Readonly<Record<DatasetKind, string>>;
  /**
   * `name@version` of an npm package as installed, or with `null` the JavaScript runtime whose
   * built-ins a codec uses (`node@20.20.2`).
   */
  library(packageName: string | null): string;
}

/** One entry of the codec table: the format id and how to build its codec. */
export interface CodecDefinition {
  readonly id: string;
  create(env: CodecEnvironment): Codec;
}

export type Direction = "encode" | "decode";

/** Any failure to encode or decode; the message names the format, the dataset and the cause. */
export class CodecError extends Error {
  override name = "CodecError";

  constructor(
    readonly format: string,
    readonly direction: Direction,
    readonly kind: DatasetKind,
    cause: unknown,
  ) {
    super(`${format}: cannot ${direction === "encode" ? "encode" : "decode as"} ${kind}: ${messageOf(cause)}`, { cause });
  }
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Runs one encode or decode and turns whatever the library throws into a CodecError, so callers
 * see one error type. (Stack overflows from libraries that recurse without a depth limit arrive
 * here as RangeError and are reported the same way; the README lists which ones.)
 */
export function guard<T>(format: string, direction: Direction, kind: DatasetKind, work: () => T): T {
  try {
    return work();
  } catch (e) {
    throw e instanceof CodecError ? e : new CodecError(format, direction, kind, e);
  }
}
