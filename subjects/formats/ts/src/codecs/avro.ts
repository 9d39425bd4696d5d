// Avro through avsc, as raw binary datums against schema/avro/<dataset>.avsc: no object-container
// header or sync marker, so the bytes depend on schema and value alone. avsc writes every array
// as one block. Decoding refuses trailing bytes (avsc's fromBuffer does).
//
// long: avsc's default long type reads and writes JS numbers and throws "potential precision
// loss" for anything beyond ±(2^53-1); every long in the datasets fits.
//
// A forged array block count: avsc 5.7.9 trusts it. It reads an array block of n items by calling
// the item reader n times, and its reader does not stop at the end of the input (reads past the
// end return zeroes and the "truncated buffer" check runs once, after the whole datum), so five
// bytes claiming 2^31 items make it build records until the heap is gone: the bad-input corpus
// took the process down that way 87 times (a CBOR or MessagePack file read as Avro is enough).
// BoundedArrayType below is avsc's array type with a reader that first checks the count against
// the bytes left: every item of these schemas takes at least one byte, so a block claiming more
// items than bytes remain is refused at once. It overrides avsc's ArrayType.prototype._read with
// the same loop plus that check (avsc 5.7 internals: _read, itemsType, the Tap's buf and pos);
// codecs.test.ts fails when avsc bounds the count itself, so that the override can go.
//
// avsc decodes records into instances of classes it generates per record type, with the fields
// as own properties: typed values already, so there is no copy.
//
// avsc reads and writes Node Buffers; `buffer` is Node's module here and the npm `buffer` package
// in a browser bundle (which avsc's browser build needs anyway).

import avsc from "avsc";
import { Buffer } from "buffer";

import { dataset } from "../dataset/types.js";
import type { RootOf } from "../dataset/types.js";
import { guard } from "./codec.js";
import type { Codec, CodecDefinition } from "./codec.js";

const ID = "avro";

/** The parts of avsc 5.7's Tap (lib/utils.js) an array reader uses. */
interface Tap {
  readonly buf: Uint8Array;
  pos: number;
  readLong(): number;
  skipLong(): void;
}

/** The parts of avsc 5.7's types the guard touches. */
interface TypeInternals {
  readonly typeName: string;
  readonly itemsType?: TypeInternals;
  readonly fields?: readonly { readonly type: TypeInternals }[];
  readonly types?: readonly TypeInternals[];
  _read(tap: Tap): unknown;
}

/** The fewest bytes a value of the type can take (0 when unknown, which disables the bound). */
function minimumBytes(type: TypeInternals): number {
  switch (type.typeName) {
    case "null":
      return 0;
    case "record":
      return (type.fields ?? []).reduce((sum, f) => sum + minimumBytes(f.type), 0);
    case "boolean":
    case "int":
    case "long":
    case "string":
    case "bytes":
    case "enum":
    case "array":
    case "map":
    case "union:wrapped":
    case "union:unwrapped":
      return 1;
    case "float":
      return 4;
    case "double":
      return 8;
    default:
      return 0;
  }
}

/** The fewest bytes one item takes, per array type (types are frozen, so the figure lives here). */
const ITEM_BYTES = new WeakMap<object, number>();

/**
 * avsc's ArrayType with its reader (ArrayType.prototype._read in avsc 5.7) plus one check: a block
 * count above the bytes left is refused before any item is read. Built through forSchema's
 * typeHook for every array schema, nested ones included.
 */
class BoundedArrayType extends avsc.types.ArrayType {
  _read(tap: Tap): unknown[] {
    const items = this.itemsType as unknown as TypeInternals;
    let itemBytes = ITEM_BYTES.get(this);
    if (itemBytes === undefined) ITEM_BYTES.set(this, (itemBytes = minimumBytes(items)));
    let val: unknown[] | undefined;
    let i = 0;
    let n: number;
    while ((n = tap.readLong())) {
      if (n < 0) {
        n = -n;
        tap.skipLong(); // the block's size in bytes
      }
      const left = tap.buf.length - tap.pos;
      if (itemBytes > 0 && n > left / itemBytes) {
        throw new Error(`an array block claims ${n} items but ${Math.max(left, 0)} bytes remain`);
      }
      val = val || new Array<unknown>(n);
      while (n--) val[i++] = items._read(tap);
    }
    return val || [];
  }
}

/** Parses an .avsc with every array type bounded. */
function avroType(schemaText: string): avsc.Type {
  const typeHook = (schema: avsc.Schema, opts: avsc.ForSchemaOptions): avsc.Type | undefined =>
    typeof schema === "object" && !Array.isArray(schema) && (schema as { type?: unknown }).type === "array"
      ? (new BoundedArrayType(schema, opts) as unknown as avsc.Type)
      : undefined;
  return avsc.Type.forSchema(JSON.parse(schemaText) as avsc.Schema, { typeHook });
}

export const avro: CodecDefinition = {
  id: ID,
  create(env): Codec {
    const types = { users: avroType(env.avro.users), numeric: avroType(env.avro.numeric), dummy: avroType(env.avro.dummy) };
    return {
      id: ID,
      library: env.library("avsc"),
      encode: (data) => guard(ID, "encode", data.kind, () => types[data.kind].toBuffer(data.root)),
      decode: (bytes, kind) =>
        guard(ID, "decode", kind, () => {
          // A view of the same memory, not a copy.
          const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          return dataset(kind, types[kind].fromBuffer(buffer) as RootOf[typeof kind]);
        }),
    };
  },
};
