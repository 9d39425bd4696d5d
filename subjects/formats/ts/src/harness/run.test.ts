// The harness with a step clock (every reading 2 ms after the previous one), so a whole run is
// exact: times, sizes, line shapes, the measurement schema, and a failing codec reported once.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import type { Codec } from "../codecs/codec.js";
import { createCodecs } from "../codecs/index.js";
import { generate } from "../dataset/generate.js";
import { DATASET_KINDS } from "../dataset/spec.js";
import type { DatasetKind } from "../dataset/spec.js";
import { loadEnvironment, MEASUREMENT_SCHEMA_PATH } from "../node/environment.js";
import type { BenchOptions, Host } from "./run.js";
import { median, runBench } from "./run.js";

const env = loadEnvironment();
const STEP_MS = 2;

function host(lines: string[]): Host {
  let readings = 0;
  return {
    clock: { nowMs: () => ++readings * STEP_MS },
    compressors: { gzipLevel: 6, gzipSize: (b) => Math.ceil(b.length / 4), zstd: { level: 3, size: (b) => Math.ceil(b.length / 5) } },
    shapes: env.shapes,
    generate: (kind) => generate(env.spec, kind),
    writeLine: (line) => lines.push(line),
  };
}

function options(codecs: readonly Codec[], datasets: readonly DatasetKind[] = ["numeric"], repeats = 2): BenchOptions {
  return { runId: "test-run", repeats, datasets, codecs, samples: 3, minSampleMs: 1, warmupMs: 0 };
}

function run(opts: BenchOptions): { failed: number; rows: Record<string, unknown>[] } {
  const lines: string[] = [];
  const failed = runBench(opts, host(lines));
  return { failed, rows: lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** Decodes as JSON, but encodes every dataset as an empty list: verification must catch it. */
function brokenCodec(): Codec {
  const json = createCodecs(env, ["json"])[0]!;
  return { id: "broken", library: "none@0.0.0", encode: () => new TextEncoder().encode("[]"), decode: (b, k) => json.decode(b, k) };
}

describe("runBench", () => {
  it("measures exactly with a step clock", () => {
    const json = createCodecs(env, ["json"])[0]!;
    const { failed, rows } = run(options([json]));
    assert.equal(failed, 0);
    assert.equal(rows.length, 2);
    const size = json.encode(generate(env.spec, "numeric")).length;
    rows.forEach((row, i) => {
      assert.equal(row["repeat"], i + 1);
      assert.equal(row["scenario"], "numeric-json-ts");
      assert.equal(row["subject"], "formats-ts");
      assert.equal(row["lang"], "ts");
      assert.equal(row["status"], "ok");
      assert.equal(row["error"], null);
      // A 2 ms sample already exceeds 1 ms, so every batch is one operation of 2 ms.
      assert.deepEqual(row["metrics"], {
        serialize_ns: 2_000_000,
        deserialize_ns: 2_000_000,
        size_bytes: size,
        size_gzip_bytes: Math.ceil(size / 4),
        size_zstd_bytes: Math.ceil(size / 5),
      });
      assert.deepEqual(row["params"], {
        dataset: "numeric",
        objects: 100,
        samples: 3,
        library: json.library,
        min_sample_ms: 1,
        warmup_ms: 0,
        gzip_level: 6,
        zstd_level: 3,
      });
    });
  });

  it("reports a pair that fails verification once, with repeat 0, and never times it", () => {
    const { failed, rows } = run(options([brokenCodec()]));
    assert.equal(failed, 1);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!["status"], "failed");
    assert.equal(rows[0]!["repeat"], 0);
    assert.match(rows[0]!["error"] as string, /differs from the input/);
    assert.deepEqual(rows[0]!["metrics"], {});
  });

  it("writes every row in the shape of schemas/measurement.schema.json", () => {
    const schema = JSON.parse(readFileSync(MEASUREMENT_SCHEMA_PATH, "utf8")) as Schema;
    const codecs = [...createCodecs(env), brokenCodec()];
    const { rows } = run(options(codecs, DATASET_KINDS, 1));
    assert.equal(rows.length, DATASET_KINDS.length * codecs.length);
    for (const row of rows) assert.deepEqual(validate(schema, schema, row, "$"), [], JSON.stringify(row));
  });

  it("takes the median of odd and even lists", () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
});

/** The subset of JSON Schema that measurement.schema.json uses. */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  $ref?: string;
  $defs?: Record<string, Schema>;
  enum?: unknown[];
  minimum?: number;
  items?: Schema;
  prefixItems?: Schema[];
  minItems?: number;
  maxItems?: number;
  anyOf?: Schema[];
}

function typeOf(value: unknown): string[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  if (typeof value === "number") return Number.isInteger(value) ? ["integer", "number"] : ["number"];
  return [typeof value];
}

/** Problems of `value` against `schema` (empty when valid). */
function validate(root: Schema, schema: Schema, value: unknown, path: string): string[] {
  if (schema.$ref) {
    const name = schema.$ref.replace("#/$defs/", "");
    return validate(root, root.$defs![name]!, value, path);
  }
  if (schema.anyOf) {
    return schema.anyOf.some((s) => validate(root, s, value, path).length === 0) ? [] : [`${path}: matches no anyOf branch`];
  }
  const problems: string[] = [];
  if (schema.type) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!typeOf(value).some((t) => allowed.includes(t))) return [`${path}: ${JSON.stringify(value)} is not ${allowed.join("|")}`];
  }
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if (schema.minimum !== undefined && typeof value === "number" && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in record)) problems.push(`${path}: ${key} is required`);
    for (const [key, v] of Object.entries(record)) {
      const property = schema.properties?.[key];
      if (property) problems.push(...validate(root, property, v, `${path}.${key}`));
      else if (schema.additionalProperties === false) problems.push(`${path}: ${key} is not allowed`);
      else if (typeof schema.additionalProperties === "object") problems.push(...validate(root, schema.additionalProperties, v, `${path}.${key}`));
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${path}: too few items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${path}: too many items`);
    value.forEach((item, k) => {
      const itemSchema = schema.prefixItems?.[k] ?? schema.items;
      if (itemSchema) problems.push(...validate(root, itemSchema, item, `${path}[${k}]`));
    });
  }
  return problems;
}
