// The codec table: every format, in the order the harness measures them. Adding a format is a
// module in this folder and one line here; the CLI, the harness and every codec test read this
// table.

import { avro } from "./avro.js";
import { bson } from "./bson.js";
import { cbor } from "./cbor.js";
import type { Codec, CodecDefinition, CodecEnvironment } from "./codec.js";
import { json } from "./json.js";
import { msgpack } from "./msgpack.js";
import { protobufCodec } from "./protobuf.js";
import { xml } from "./xml.js";

export const CODECS: readonly CodecDefinition[] = [json, xml, protobufCodec, msgpack, avro, bson, cbor];

export const FORMAT_IDS: readonly string[] = CODECS.map((c) => c.id);

/** Builds the codecs with the given ids (all when omitted), in table order. */
export function createCodecs(env: CodecEnvironment, ids: readonly string[] = FORMAT_IDS): Codec[] {
  return CODECS.filter((c) => ids.includes(c.id)).map((c) => c.create(env));
}
