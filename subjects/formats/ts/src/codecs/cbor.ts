// CBOR through cbor-x, configured for plain CBOR any decoder reads: no record extension (objects
// are maps keyed by field name), definite lengths with the smallest map header. Decoding checks
// the decoded value's shape in place; an integer beyond 2^53 decodes to a number at or past 2^53,
// which the shape check refuses.
//
// Two ways cbor-x's bytes differ from the Rust vectors (ciborium), both the library's own number
// handling: a JS number that is an integer beyond 32 bits (numeric's timestamps) is written as a
// float64 (exact below 2^53, the same 9 bytes as a uint64, but a float on the wire), and every
// non-integer is a float64 where ciborium writes the narrowest exact width (numeric has one value
// exact in float32). users and dummy have neither, and their bytes equal the vectors.
//
// cbor-x runs as pure JavaScript here: its optional native string decoder (cbor-extract) is not
// installed (.npmrc omit=optional), so Node runs the same code a browser would.

import { Decoder, Encoder } from "cbor-x";
import type { Options } from "cbor-x";

import { check } from "../dataset/shape.js";
import { dataset } from "../dataset/types.js";
import type { RootOf } from "../dataset/types.js";
import { guard } from "./codec.js";
import type { Codec, CodecDefinition } from "./codec.js";

const ID = "cbor";

export const cbor: CodecDefinition = {
  id: ID,
  create(env): Codec {
    const encoder = new Encoder({ useRecords: false, variableMapSize: true, tagUint8Array: false });
    // int64AsNumber: 64-bit integers (the timestamps of the Rust vectors) decode to numbers, not
    // bigints. The option exists in decode.js but not in cbor-x's typings, hence the cast.
    const decoder = new Decoder({ useRecords: false, mapsAsObjects: true, int64AsNumber: true } as Options);
    return {
      id: ID,
      library: env.library("cbor-x"),
      encode: (data) => guard(ID, "encode", data.kind, () => encoder.encode(data.root)),
      decode: (bytes, kind) =>
        guard(ID, "decode", kind, () => dataset(kind, check(env.shapes[kind], decoder.decode(bytes)) as RootOf[typeof kind])),
    };
  },
};
