// The datasets' shapes, compiled from the type table of schema/datasets.json, and the three
// walks over them that stand in for Rust's typed deserialization and PartialEq:
//   check   — a decoded plain value already has the shape (JSON, MessagePack, CBOR, BSON);
//   convert — builds the typed value from a library's own representation (XML text, protobuf
//             messages with Long int64s) through a ValueReader;
//   equal   — field-by-field equality, ignoring prototypes (avsc returns record class instances).
// Unknown fields are ignored, as serde does by default; a missing field or a wrong type is an error.

import type { DatasetKind, Spec } from "./spec.js";

export type ScalarType = "i32" | "i64" | "f64" | "bool" | "string";

export type Shape =
  | { readonly type: ScalarType }
  | { readonly type: "list"; readonly of: Shape }
  | { readonly type: "record"; readonly name: string; readonly fields: readonly Field[] };

export interface Field {
  readonly name: string;
  readonly shape: Shape;
}

export type Shapes = Readonly<Record<DatasetKind, Shape>>;

const SCALARS: readonly string[] = ["i32", "i64", "f64", "bool", "string"];

/** The root shape of every dataset. Throws on a type the table does not define. */
export function compileShapes(spec: Spec): Shapes {
  const records = new Map<string, Shape>();
  const shapeOf = (type: string): Shape => {
    const list = /^\[(.+); (?:\d+|count)\]$/.exec(type);
    if (list) return { type: "list", of: shapeOf(list[1]!) };
    if (SCALARS.includes(type)) return { type: type as ScalarType };
    const known = records.get(type);
    if (known) return known;
    const typeSpec = spec.types[type];
    if (!typeSpec) throw new Error(`datasets.json: type ${type} is not defined`);
    const fields: Field[] = [];
    const record: Shape = { type: "record", name: type, fields };
    records.set(type, record);
    for (const f of typeSpec.fields) fields.push({ name: f.name, shape: shapeOf(f.type) });
    return record;
  };
  return {
    users: shapeOf(spec.datasets.users.root),
    numeric: shapeOf(spec.datasets.numeric.root),
    dummy: shapeOf(spec.datasets.dummy.root),
  };
}

/** A value that does not have the expected shape; `path` leads to it (`users[3].age`). */
export class ShapeError extends Error {
  override name = "ShapeError";
  readonly path: string[] = [];

  constructor(readonly problem: string) {
    super(problem);
  }

  /** Adds an outer path segment while the error travels up (only on the failure path). */
  within(segment: string): ShapeError {
    this.path.unshift(segment);
    const where = this.path.join("").replace(/^\./, "");
    this.message = `${where}: ${this.problem}`;
    return this;
  }
}

const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  if (typeof value === "object") return `an object (${value.constructor?.name ?? "no prototype"})`;
  return `the ${typeof value} ${String(value)}`;
}

function mismatch(value: unknown, expected: string): ShapeError {
  return new ShapeError(`expected ${expected}, found ${describe(value)}`);
}

/** Checks a scalar in its plain JS form: numbers, booleans, strings. */
function checkScalar(type: ScalarType, v: unknown): void {
  switch (type) {
    case "i32":
      if (typeof v !== "number" || !Number.isInteger(v) || v < I32_MIN || v > I32_MAX) throw mismatch(v, "an i32");
      return;
    case "i64":
      // Numbers hold integers exactly up to 2^53; anything beyond is refused, not rounded.
      if (typeof v !== "number" || !Number.isSafeInteger(v)) throw mismatch(v, "an i64 within ±(2^53-1)");
      return;
    case "f64":
      if (typeof v !== "number") throw mismatch(v, "an f64");
      return;
    case "bool":
      if (typeof v !== "boolean") throw mismatch(v, "a bool");
      return;
    case "string":
      if (typeof v !== "string") throw mismatch(v, "a string");
      return;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Checks in place that a plain decoded value has the shape; returns it unchanged. */
export function check(shape: Shape, value: unknown): unknown {
  switch (shape.type) {
    case "list": {
      if (!Array.isArray(value)) throw mismatch(value, "a list");
      for (let k = 0; k < value.length; k++) {
        try {
          check(shape.of, value[k]);
        } catch (e) {
          throw e instanceof ShapeError ? e.within(`[${k}]`) : e;
        }
      }
      return value;
    }
    case "record": {
      if (!isRecord(value)) throw mismatch(value, `a ${shape.name} record`);
      for (const field of shape.fields) {
        try {
          check(field.shape, value[field.name]);
        } catch (e) {
          throw e instanceof ShapeError ? e.within(`.${field.name}`) : e;
        }
      }
      return value;
    }
    default:
      checkScalar(shape.type, value);
      return value;
  }
}

/**
 * How one library represents the datasets' values: each method turns the library's value into
 * the plain one or throws a ShapeError. A missing field arrives as `undefined`.
 */
export interface ValueReader {
  scalar(type: ScalarType, value: unknown): unknown;
  list(value: unknown): readonly unknown[];
  record(value: unknown, name: string): Readonly<Record<string, unknown>>;
}

/** Builds a new plain value of the shape from a library's representation. */
export function convert(shape: Shape, value: unknown, reader: ValueReader): unknown {
  switch (shape.type) {
    case "list": {
      const items = reader.list(value);
      const out = new Array<unknown>(items.length);
      for (let k = 0; k < items.length; k++) {
        try {
          out[k] = convert(shape.of, items[k], reader);
        } catch (e) {
          throw e instanceof ShapeError ? e.within(`[${k}]`) : e;
        }
      }
      return out;
    }
    case "record": {
      const source = reader.record(value, shape.name);
      const out: Record<string, unknown> = {};
      for (const field of shape.fields) {
        try {
          out[field.name] = convert(field.shape, source[field.name], reader);
        } catch (e) {
          throw e instanceof ShapeError ? e.within(`.${field.name}`) : e;
        }
      }
      return out;
    }
    default:
      return reader.scalar(shape.type, value);
  }
}

/** The reader of plain JS values: numbers, booleans, strings, arrays, objects. */
export const PLAIN_READER: ValueReader = {
  scalar(type, value) {
    checkScalar(type, value);
    return value;
  },
  list(value) {
    if (!Array.isArray(value)) throw mismatch(value, "a list");
    return value;
  },
  record(value, name) {
    if (!isRecord(value)) throw mismatch(value, `a ${name} record`);
    return value;
  },
};

/** The error helpers for readers of other representations. */
export const shapeErrors = { mismatch, isRecord };

/**
 * Compares two values of the shape field by field (=== on scalars, like Rust's PartialEq on the
 * typed structs). Returns the path of the first difference, or undefined when equal.
 */
export function difference(shape: Shape, a: unknown, b: unknown, path = ""): string | undefined {
  switch (shape.type) {
    case "list": {
      if (!Array.isArray(a) || !Array.isArray(b)) return `${path}: not both lists`;
      if (a.length !== b.length) return `${path}: ${a.length} elements vs ${b.length}`;
      for (let k = 0; k < a.length; k++) {
        const d = difference(shape.of, a[k], b[k], `${path}[${k}]`);
        if (d !== undefined) return d;
      }
      return undefined;
    }
    case "record": {
      if (!isRecord(a) || !isRecord(b)) return `${path}: not both records`;
      for (const field of shape.fields) {
        const d = difference(field.shape, a[field.name], b[field.name], `${path}.${field.name}`);
        if (d !== undefined) return d;
      }
      return undefined;
    }
    default:
      return a === b ? undefined : `${path}: ${describe(a)} vs ${describe(b)}`;
  }
}
