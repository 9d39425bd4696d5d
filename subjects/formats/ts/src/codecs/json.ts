// JSON through the runtime's built-in JSON.stringify / JSON.parse: compact, fields in the
// objects' order (the declaration order, as the generator builds them). Decoding validates UTF-8
// first (TextDecoder, fatal), as serde_json does, then checks the parsed value's shape in place.

import { check } from "../dataset/shape.js";
import { dataset } from "../dataset/types.js";
import type { RootOf } from "../dataset/types.js";
import { guard } from "./codec.js";
import type { Codec, CodecDefinition } from "./codec.js";

const ID = "json";

export const json: CodecDefinition = {
  id: ID,
  create(env): Codec {
    const utf8 = new TextEncoder();
    const text = new TextDecoder("utf-8", { fatal: true });
    return {
      id: ID,
      library: env.library(null),
      encode: (data) => guard(ID, "encode", data.kind, () => utf8.encode(JSON.stringify(data.root))),
      decode: (bytes, kind) =>
        guard(ID, "decode", kind, () => {
          const value = JSON.parse(text.decode(bytes)) as unknown;
          return dataset(kind, check(env.shapes[kind], value) as RootOf[typeof kind]);
        }),
    };
  },
};
