// The parse lab in a JavaScript runtime (study "JSON vs binary encoded objects"): fetch N objects
// from a provider (subjects/parse/README.md) and time their decoding, JSON with the runtime's
// JSON.parse, BSON with the npm `bson` package the study used. Shared by the browser page and
// the Node row (built twice by Vite, see vite.config.mjs), so both run the same code.
//
// One row is measured twice over the same objects:
// - parse_us: every answer is read into memory first, then one timer wraps only decoding them;
//   total_us runs from the first request to the end of decoding (io_us = the difference);
// - study_us: the study's method, a timer started after each answer's headers arrive and stopped
//   when its object exists (`await response.json()`, or arrayBuffer + deserialize), summed over
//   the objects, so body reading and the event loop are inside it.
// Every decoded object is compared with the formats lab's dataset before any time counts.

import { deserialize } from "bson";

import { order } from "../shared/harness.js";

import specJson from "../../../subjects/formats/schema/datasets.json";
import { generate } from "../../../subjects/formats/ts/src/dataset/generate.js";
import { compileShapes, difference } from "../../../subjects/formats/ts/src/dataset/shape.js";
import type { Shape } from "../../../subjects/formats/ts/src/dataset/shape.js";
import type { Spec } from "../../../subjects/formats/ts/src/dataset/spec.js";

export const OBJECTS = ["numeric", "dummy"] as const;
export const FORMATS = ["json", "bson"] as const;
export type ObjectId = (typeof OBJECTS)[number];
export type FormatId = (typeof FORMATS)[number];

/** N by profile: the study's page went from 100 to 5,000 objects. */
export const SIZES: Readonly<Record<string, readonly number[]>> = {
  smoke: [20],
  quick: [100, 1000],
  full: [100, 500, 1000, 2000, 3000, 4000, 5000],
};

export interface Row {
  object: ObjectId;
  format: FormatId;
  provider: string;
  n: number;
}

/** The study's 8 scenarios per N: object × format × provider. */
export function rows(providers: readonly string[], sizes: readonly number[]): Row[] {
  const out: Row[] = [];
  for (const n of sizes)
    for (const provider of providers)
      for (const object of OBJECTS) for (const format of FORMATS) out.push({ object, format, provider, n });
  return out;
}

/** `<object>-<format>-<runtime>-from-<provider>-<n>`, as the servers' rows are named. */
export function rowId(row: Row, runtime: string): string {
  return `${row.object}-${row.format}-${runtime}-from-${row.provider}-${row.n}`;
}

const spec = specJson as unknown as Spec;
const shapes = compileShapes(spec);
const canonical: Record<ObjectId, unknown[]> = {
  numeric: generate(spec, "numeric").root as unknown[],
  dummy: generate(spec, "dummy").root as unknown[],
};

function elementShape(object: ObjectId): Shape {
  const shape = shapes[object];
  if (shape.type !== "list") throw new Error(`datasets.json: ${object} is not a list`);
  return shape.of;
}

function url(base: string, row: Row, i: number): string {
  return `${base}/objects/${row.object}?format=${row.format}&count=1&start=${i}`;
}

async function fetchOk(u: string): Promise<Response> {
  let r: Response;
  try {
    r = await fetch(u);
  } catch (e) {
    throw new Error(`cannot fetch ${u}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!r.ok) throw new Error(`${u} answered ${r.status}`);
  return r;
}

const utf8 = new TextDecoder();
const BSON_OPTIONS = { promoteLongs: true, promoteValues: true } as const;

function decode(format: FormatId, bytes: ArrayBuffer): unknown {
  return format === "json" ? JSON.parse(utf8.decode(bytes)) : deserialize(new Uint8Array(bytes), BSON_OPTIONS);
}

/** Throws naming the first object that differs from the dataset. */
function verify(row: Row, objects: readonly unknown[]): void {
  const shape = elementShape(row.object);
  const want = canonical[row.object];
  for (let i = 0; i < objects.length; i++) {
    const d = difference(shape, objects[i], want[i % want.length]);
    if (d !== undefined) throw new Error(`object ${i} differs from the dataset at ${d}`);
  }
}

export interface Timings {
  parse_us: number;
  total_us: number;
  io_us: number;
  study_us: number;
  parse_ns_per_object: number;
  size_bytes: number;
  requests: number;
}

/** Measures one row against the provider at `base` (both methods), verified. */
export async function measure(base: string, row: Row, now: () => number): Promise<Timings> {
  const started = now();
  const bodies: ArrayBuffer[] = [];
  for (let i = 0; i < row.n; i++) bodies.push(await (await fetchOk(url(base, row, i))).arrayBuffer());
  const parseStarted = now();
  const objects = bodies.map((b) => decode(row.format, b));
  const ended = now();
  verify(row, objects);

  let study = 0;
  const again: unknown[] = [];
  for (let i = 0; i < row.n; i++) {
    const r = await fetchOk(url(base, row, i));
    const t = now();
    again.push(row.format === "json" ? await r.json() : deserialize(new Uint8Array(await r.arrayBuffer()), BSON_OPTIONS));
    study += now() - t;
  }
  verify(row, again);

  const ms = { parse: ended - parseStarted, total: ended - started };
  return {
    parse_us: ms.parse * 1000,
    total_us: ms.total * 1000,
    io_us: (ms.total - ms.parse) * 1000,
    study_us: study * 1000,
    parse_ns_per_object: (ms.parse * 1e6) / row.n,
    size_bytes: bodies.reduce((s, b) => s + b.byteLength, 0),
    requests: 2 * row.n,
  };
}

/** A measurement line of the runner's schema (schemas/measurement.schema.json). */
export function line(
  runId: string,
  runtime: string,
  version: string,
  row: Row,
  repeat: number,
  result: Timings | Error,
): Record<string, unknown> {
  const failed = result instanceof Error;
  return {
    schema_version: 1,
    run_id: runId,
    suite: "parse",
    scenario: rowId(row, runtime),
    subject: `parse-${runtime}`,
    lang: "ts",
    params: { object: row.object, format: row.format, parser: runtime, provider: row.provider, n: row.n, runtime: version },
    repeat,
    status: failed ? "failed" : "ok",
    ...(failed ? { error: result.message.replace(/\n/g, " ") } : {}),
    metrics: failed ? {} : result,
  };
}

/**
 * Runs every row: a verified warm-up call each (a failure is a repeat-0 row), then the repeats;
 * `settle` before each call (the page lets its results render outside the timers).
 */
export async function runAll(
  servers: Readonly<Record<string, string>>,
  sizes: readonly number[],
  repeats: number,
  /** Awaited: a page's report to its harness must land before the page says it is done. */
  emit: (row: Row, repeat: number, result: Timings | Error) => void | Promise<void>,
  now: () => number,
  settle: () => Promise<void> = async () => {},
): Promise<void> {
  const live: Row[] = [];
  for (const row of rows(Object.keys(servers), sizes)) {
    try {
      await settle();
      await measure(servers[row.provider]!, { ...row, n: Math.min(row.n, 1000) }, now);
      live.push(row);
    } catch (e) {
      await emit(row, 0, new Error(`warm-up failed: ${e instanceof Error ? e.message : String(e)}`));
    }
  }
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const i of order(live.length, repeat)) {
      const row = live[i]!;
      try {
        await settle();
        const result = await measure(servers[row.provider]!, row, now);
        await emit(row, repeat, result);
      } catch (e) {
        await emit(row, repeat, e instanceof Error ? e : new Error(String(e)));
      }
    }
  }
}
