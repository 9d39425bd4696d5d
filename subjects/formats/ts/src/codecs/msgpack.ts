// MessagePack through @msgpack/msgpack: objects as maps keyed by field name (the named encoding
// the Rust vectors use), integers in their smallest width, non-integer numbers as float64.
// Decoding checks the decoded value's shape in place. int64 values decode to JS numbers
// (useBigInt64 off) and the shape check refuses one beyond ±(2^53-1).

import { Decoder, Encoder } from "@msgpack/msgpack";

import { check } from "../dataset/shape.js";
import { dataset } from "../dataset/types.js";
import type { RootOf } from "../dataset/types.js";
import { guard } from "./codec.js";
import type { Codec, CodecDefinition } from "./codec.js";

const ID = "msgpack";

export const msgpack: CodecDefinition = {
  id: ID,
  create(env): Codec {
    // One encoder and decoder reused for every call, as the library recommends for speed.
    // encode() returns a copy, so a result is never overwritten by the next call.
    const encoder = new Encoder();
    const decoder = new Decoder({ useBigInt64: false });
    return {
      id: ID,
      library: env.library("@msgpack/msgpack"),
      encode: (data) => guard(ID, "encode", data.kind, () => encoder.encode(data.root)),
      decode: (bytes, kind) =>
        guard(ID, "decode", kind, () => dataset(kind, check(env.shapes[kind], decoder.decode(bytes)) as RootOf[typeof kind])),
    };
  },
};
