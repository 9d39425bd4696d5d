// BSON through js-bson (`bson`). A BSON file is one document, so the list datasets are wrapped as
// {"items": [...]}; `users` is a document already.
//
// Number types: left alone, js-bson writes a JS number as int32 when it is an integer that fits
// and as double otherwise, whatever the field's type, so an i64 id of 1 would become int32 and a
// float that happens to be whole would too. To write the types of the Rust vectors (i32 → int32,
// i64 → int64, f64 → double) encoding first copies the dataset with every i64 as a bigint (js-bson
// writes bigint as int64) and every f64 as a Double; that copy is part of the measured encode.
// With it the bytes equal the vectors.
//
// Decoding: promoteLongs turns each int64 into a JS number when it fits in 53 bits and leaves a
// Long object otherwise, which the shape check then refuses; useBigInt64 stays off so that all
// integers come back as numbers. The decoded value's shape is checked in place.

import { Double, deserialize, serialize } from "bson";

import { check, convert, PLAIN_READER, ShapeError } from "../dataset/shape.js";
import type { ScalarType, ValueReader } from "../dataset/shape.js";
import { dataset } from "../dataset/types.js";
import type { RootOf } from "../dataset/types.js";
import { guard } from "./codec.js";
import type { Codec, CodecDefinition } from "./codec.js";

const ID = "bson";

/** Plain values in, BSON-typed values out: i64 → bigint (int64), f64 → Double. */
const BSON_TYPES: ValueReader = {
  scalar(type: ScalarType, value: unknown): unknown {
    PLAIN_READER.scalar(type, value);
    if (type === "i64") return BigInt(value as number);
    if (type === "f64") return new Double(value as number);
    return value;
  },
  list: (value) => PLAIN_READER.list(value),
  record: (value, name) => PLAIN_READER.record(value, name),
};

const DESERIALIZE = { promoteLongs: true, promoteValues: true, useBigInt64: false } as const;

export const bson: CodecDefinition = {
  id: ID,
  create(env): Codec {
    return {
      id: ID,
      library: env.library("bson"),
      encode: (data) =>
        guard(ID, "encode", data.kind, () => {
          const typed = convert(env.shapes[data.kind], data.root, BSON_TYPES);
          return serialize(data.kind === "users" ? (typed as Record<string, unknown>) : { items: typed });
        }),
      decode: (bytes, kind) =>
        guard(ID, "decode", kind, () => {
          const document = deserialize(bytes, DESERIALIZE);
          let root: unknown = document;
          if (kind !== "users") {
            try {
              root = check(env.shapes[kind], document["items"]);
            } catch (e) {
              throw e instanceof ShapeError ? e.within(".items") : e;
            }
          } else {
            check(env.shapes[kind], document);
          }
          return dataset(kind, root as RootOf[typeof kind]);
        }),
    };
  },
};
