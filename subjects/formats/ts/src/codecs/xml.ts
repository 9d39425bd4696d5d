// XML through fast-xml-parser (XMLBuilder, XMLParser), in the layout of the Rust vectors: the
// root element is named after the dataset (<users>, <numeric>, <dummy>), every field is a child
// element with the field's name, a list is its element repeated, and a list dataset's elements
// are <items>. No declaration, no attributes, no whitespace.
//
// The parser keeps every text as a string (parseTagValue off: a hex id such as "1234e5..." must
// stay a string) and does not trim; the schema then decides what each text is: integers and
// floats are parsed strictly, booleans are true/false/1/0, and an element that occurs once where
// the schema has a list becomes a list of one.

import { XMLBuilder, XMLParser } from "fast-xml-parser";

import { convert, ShapeError, shapeErrors } from "../dataset/shape.js";
import type { ScalarType, ValueReader } from "../dataset/shape.js";
import { dataset } from "../dataset/types.js";
import type { RootOf } from "../dataset/types.js";
import { guard } from "./codec.js";
import type { Codec, CodecDefinition } from "./codec.js";

const ID = "xml";

const INTEGER = /^[+-]?\d+$/;
/** What Rust's f64::from_str accepts, less hexadecimal: decimal, exponent, inf, infinity, nan. */
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:inf|infinity|nan)$/i;
const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

function text(value: unknown, expected: string): string {
  if (typeof value !== "string") throw shapeErrors.mismatch(value, expected);
  return value;
}

function parseInteger(value: unknown, expected: string): number {
  const s = text(value, expected);
  const n = Number(s);
  if (!INTEGER.test(s) || !Number.isSafeInteger(n)) throw shapeErrors.mismatch(value, expected);
  return n;
}

function parseFloat64(value: unknown): number {
  const s = text(value, "an f64");
  if (!FLOAT.test(s)) throw shapeErrors.mismatch(value, "an f64");
  const lower = s.toLowerCase().replace(/^\+/, "");
  if (lower.endsWith("nan")) return NaN;
  if (lower.endsWith("inf") || lower.endsWith("infinity")) return lower.startsWith("-") ? -Infinity : Infinity;
  return Number(s);
}

/** Element texts as the schema types them. */
const XML_READER: ValueReader = {
  scalar(type: ScalarType, value: unknown): unknown {
    switch (type) {
      case "i32": {
        const n = parseInteger(value, "an i32");
        if (n < I32_MIN || n > I32_MAX) throw shapeErrors.mismatch(value, "an i32");
        return n;
      }
      case "i64":
        return parseInteger(value, "an i64 within ±(2^53-1)");
      case "f64":
        return parseFloat64(value);
      case "bool": {
        const s = text(value, "a bool");
        if (s === "true" || s === "1") return true;
        if (s === "false" || s === "0") return false;
        throw shapeErrors.mismatch(value, "a bool");
      }
      case "string":
        return text(value, "a string");
    }
  },
  list(value) {
    if (value === undefined) throw shapeErrors.mismatch(value, "a list");
    // fast-xml-parser gives one occurrence as the value itself, several as an array.
    return Array.isArray(value) ? value : [value];
  },
  record(value, name) {
    if (!shapeErrors.isRecord(value)) throw shapeErrors.mismatch(value, `a ${name} element`);
    return value;
  },
};

export const xml: CodecDefinition = {
  id: ID,
  create(env): Codec {
    const builder = new XMLBuilder({ ignoreAttributes: true, format: false, suppressEmptyNode: false });
    const parser = new XMLParser({
      ignoreAttributes: true,
      parseTagValue: false,
      trimValues: false,
      ignoreDeclaration: true,
      ignorePiTags: true,
      // The defaults, stated: entities are expanded within limits, nesting stops at 100 levels.
      processEntities: true,
      htmlEntities: false,
      maxNestedTags: 100,
    });
    const utf8 = new TextEncoder();
    const utf8Text = new TextDecoder("utf-8", { fatal: true });
    return {
      id: ID,
      library: env.library("fast-xml-parser"),
      encode: (data) =>
        guard(ID, "encode", data.kind, () => {
          const body = data.kind === "users" ? data.root : { items: data.root };
          return utf8.encode(builder.build({ [data.kind]: body }) as string);
        }),
      decode: (bytes, kind) =>
        guard(ID, "decode", kind, () => {
          const document = parser.parse(utf8Text.decode(bytes)) as unknown;
          const roots = shapeErrors.isRecord(document) ? Object.keys(document) : [];
          if (roots.length !== 1 || roots[0] !== kind) {
            throw new ShapeError(`root element is <${roots.join("><") || "none"}>, not <${kind}>`);
          }
          const body = (document as Record<string, unknown>)[kind];
          const shape = env.shapes[kind];
          let root: unknown;
          if (kind === "users") {
            root = convert(shape, body, XML_READER);
          } else {
            try {
              root = convert(shape, XML_READER.record(body, kind).items, XML_READER);
            } catch (e) {
              throw e instanceof ShapeError ? e.within(".items") : e;
            }
          }
          return dataset(kind, root as RootOf[typeof kind]);
        }),
    };
  },
};
