// The generator against schema/datasets.json and the Rust reference values (vectors/*.json): the
// PRNG's check values, the helpers' examples, every generated dataset equal to the vector's
// values, and the TS types' fields equal to the spec's type table.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { loadEnvironment } from "../node/environment.js";
import { readVector } from "../node/vectors.js";
import { dollars, generate, paragraph } from "./generate.js";
import { check, compileShapes, difference } from "./shape.js";
import type { Shape } from "./shape.js";
import { DATASET_KINDS } from "./spec.js";
import { SplitMix64 } from "./splitmix64.js";
import { objectCount } from "./types.js";
import type { UsersDocument } from "./types.js";

const env = loadEnvironment();

describe("splitmix64", () => {
  it("matches the check values in datasets.json", () => {
    const { seed, next_hex } = env.spec.generator.check;
    const rng = new SplitMix64(seed);
    assert.deepEqual(
      next_hex.map(() => rng.hex64()),
      next_hex,
    );
  });

  it("wraps modulo 2^64 and stays unsigned", () => {
    const rng = new SplitMix64(2n ** 64n - 1n);
    for (let i = 0; i < 1000; i++) {
      const n = rng.next();
      assert.ok(n >= 0n && n < 2n ** 64n);
    }
  });

  it("draws integers in range and ids of the right length", () => {
    const rng = new SplitMix64(7);
    for (let i = 0; i < 1000; i++) {
      const n = rng.int(-3, 3);
      assert.ok(n >= -3 && n <= 3 && Number.isInteger(n));
    }
    assert.equal(rng.objectId().length, 24);
    assert.match(rng.guid(), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});

describe("helpers", () => {
  it("follow the spec's examples", () => {
    assert.equal(dollars(123_456), "$1,234.56");
    assert.equal(dollars(100_000), "$1,000.00");
    assert.equal(dollars(99_901), "$999.01");
    const rng = new SplitMix64(7);
    assert.equal(paragraph(rng, ["ab"], 5), "Ab ab.");
    assert.equal(paragraph(rng, ["ab"], 6), "Ab ab ab.");
  });
});

describe("generate", () => {
  for (const kind of DATASET_KINDS) {
    it(`${kind}: equals the values of vectors/${kind}.json`, () => {
      const data = generate(env.spec, kind);
      const reference = JSON.parse(new TextDecoder().decode(readVector(kind, "json"))) as unknown;
      // The reference is plain JSON, so a deep strict comparison also pins key order and types.
      assert.deepStrictEqual(data.root, reference);
      assert.equal(objectCount(data), env.spec.datasets[kind].count);
    });

    it(`${kind}: is deterministic and a prefix is the same objects`, () => {
      const full = generate(env.spec, kind);
      assert.deepStrictEqual(generate(env.spec, kind), full);
      const small = generate(env.spec, kind, 2);
      if (small.kind === "users" && full.kind === "users") {
        assert.deepStrictEqual(small.root.users, full.root.users.slice(0, 2));
        assert.equal(small.root.metadata.total_count, 2);
      } else {
        assert.deepStrictEqual(small.root, (full.root as unknown[]).slice(0, 2));
      }
    });

    it(`${kind}: has the spec's types, field names and field order`, () => {
      const shape = env.shapes[kind];
      const data = generate(env.spec, kind, 3);
      check(shape, data.root);
      assertFieldOrder(shape, data.root, kind);
    });
  }

  it("keeps strings ASCII and `about` at least 500 characters", () => {
    const text = JSON.stringify(generate(env.spec, "dummy").root);
    assert.match(text, /^[\x20-\x7e]*$/);
    const dummy = generate(env.spec, "dummy");
    if (dummy.kind !== "dummy") throw new Error("unreachable");
    assert.ok(dummy.root.every((d) => d.about.length >= 500 && d.about.length < 520));
  });
});

describe("shapes", () => {
  it("compile the roots of datasets.json", () => {
    const shapes = compileShapes(env.spec);
    assert.equal(shapes.users.type, "record");
    assert.equal(shapes.numeric.type, "list");
    assert.equal(shapes.dummy.type, "list");
  });

  it("name the first difference", () => {
    const a = generate(env.spec, "users", 3).root;
    const b = structuredClone(a) as UsersDocument;
    assert.equal(difference(env.shapes.users, a, b), undefined);
    b.users[2]!.tags[1] = "x";
    assert.match(difference(env.shapes.users, a, b) ?? "", /^\.users\[2\]\.tags\[1\]: /);
  });

  it("refuse wrong types with the path", () => {
    const a = structuredClone(generate(env.spec, "users", 2).root) as unknown as { users: { age: unknown }[] };
    a.users[1]!.age = 2 ** 31;
    assert.throws(() => check(env.shapes.users, a), /users\[1\]\.age: expected an i32/);
    a.users[1]!.age = 30;
    check(env.shapes.users, a);
    (a as unknown as { metadata: { total_count: unknown } }).metadata.total_count = 2 ** 53;
    assert.throws(() => check(env.shapes.users, a), /metadata\.total_count: expected an i64/);
  });
});

/** Every record's own keys, in order, are the spec's fields (nothing more, nothing less). */
function assertFieldOrder(shape: Shape, value: unknown, path: string): void {
  if (shape.type === "list") {
    (value as unknown[]).forEach((item, k) => assertFieldOrder(shape.of, item, `${path}[${k}]`));
  } else if (shape.type === "record") {
    const record = value as Record<string, unknown>;
    assert.deepEqual(Object.keys(record), shape.fields.map((f) => f.name), `${path}: field names and order`);
    for (const f of shape.fields) assertFieldOrder(f.shape, record[f.name], `${path}.${f.name}`);
  }
}
