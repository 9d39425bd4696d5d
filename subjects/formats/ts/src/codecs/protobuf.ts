// Protocol Buffers through protobufjs (reflection: schema/datasets.proto is parsed at start-up,
// no generated code), proto3: a field equal to its default (0, "", false) is not written. List
// datasets travel as NumericList / DummyList (`repeated ... items = 1`).
//
// The message properties are renamed to the fields' proto3 JSON names, which datasets.proto sets
// (json_name) to the dataset's own field names (`_id`, `isActive`, `is_active`); so the dataset
// objects go to protobufjs as they are, with no copy on encode.
//
// int64: protobufjs decodes int64 as Long objects (long.js). Decoding turns each into a JS number
// and refuses one beyond ±(2^53-1) rather than round it; the datasets stay far below. Decoding
// then copies the message tree into plain objects, since protobufjs leaves absent (default) fields
// on the message prototype.

import protobuf from "protobufjs";

import { convert, PLAIN_READER, shapeErrors } from "../dataset/shape.js";
import type { ScalarType, ValueReader } from "../dataset/shape.js";
import type { DatasetKind } from "../dataset/spec.js";
import { dataset } from "../dataset/types.js";
import type { RootOf } from "../dataset/types.js";
import { guard } from "./codec.js";
import type { Codec, CodecDefinition } from "./codec.js";

const ID = "protobuf";
const PACKAGE = "wirebench.formats";

/** The message each dataset is, and whether it is a list wrapped as `items`. */
const MESSAGES: Readonly<Record<DatasetKind, { message: string; list: boolean }>> = {
  users: { message: "UsersDocument", list: false },
  numeric: { message: "NumericList", list: true },
  dummy: { message: "DummyList", list: true },
};

type Descriptor = { fields?: Record<string, protobuf.IField & { jsonName?: string }>; nested?: Record<string, Descriptor> };

/** Parses the .proto and rebuilds it with every field named by its proto3 JSON name. */
function rootWithJsonNames(proto: string): protobuf.Root {
  const parsed = protobuf.parse(proto, { keepCase: true }).root;
  parsed.resolveAll(); // fills in each field's jsonName
  const rename = (ns: Descriptor): Descriptor => {
    if (ns.fields) {
      ns.fields = Object.fromEntries(
        Object.entries(ns.fields).map(([name, field]) => [field.jsonName ?? protobuf.util.camelCase(name), field]),
      );
    }
    for (const child of Object.values(ns.nested ?? {})) rename(child);
    return ns;
  };
  const root = protobuf.Root.fromJSON(rename(parsed.toJSON() as Descriptor) as protobuf.INamespace);
  root.resolveAll();
  return root;
}

/** A long.js Long, as protobufjs returns int64 fields. */
function isLong(value: unknown): value is protobuf.Long {
  return typeof value === "object" && value !== null && typeof (value as protobuf.Long).low === "number";
}

/** Message trees: Long int64s, everything else plain. */
const PROTOBUF_READER: ValueReader = {
  scalar(type: ScalarType, value: unknown): unknown {
    if (type === "i64" && isLong(value)) {
      // Exact up to 2^53; anything larger comes out at or beyond 2^53 and is refused here.
      const n = protobuf.util.LongBits.from(value).toNumber(value.unsigned);
      if (!Number.isSafeInteger(n)) throw shapeErrors.mismatch(n, "an i64 within ±(2^53-1)");
      return n;
    }
    return PLAIN_READER.scalar(type, value);
  },
  list: (value) => PLAIN_READER.list(value),
  record: (value, name) => PLAIN_READER.record(value, name),
};

export const protobufCodec: CodecDefinition = {
  id: ID,
  create(env): Codec {
    const root = rootWithJsonNames(env.proto);
    const types = {
      users: root.lookupType(`${PACKAGE}.${MESSAGES.users.message}`),
      numeric: root.lookupType(`${PACKAGE}.${MESSAGES.numeric.message}`),
      dummy: root.lookupType(`${PACKAGE}.${MESSAGES.dummy.message}`),
    };
    return {
      id: ID,
      library: env.library("protobufjs"),
      encode: (data) =>
        guard(ID, "encode", data.kind, () => {
          const message = MESSAGES[data.kind].list ? { items: data.root } : data.root;
          return types[data.kind].encode(message).finish();
        }),
      decode: (bytes, kind) =>
        guard(ID, "decode", kind, () => {
          const message = types[kind].decode(bytes) as unknown as Record<string, unknown>;
          const value = MESSAGES[kind].list ? message["items"] : message;
          return dataset(kind, convert(env.shapes[kind], value, PROTOBUF_READER) as RootOf[typeof kind]);
        }),
    };
  },
};
