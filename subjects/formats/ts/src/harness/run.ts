// The measurement: verify every (dataset, format) pair, then time encode and decode per repeat and
// write one measurement line each. Portable: the clock, the compressors and the output come from
// the host (src/main.ts in Node).
//
// A time is the median over `samples` samples of the per-operation time; each sample runs the
// operation in a batch sized once per measurement (by doubling) so that it lasts at least
// `minSampleMs`, which keeps the clock's resolution and overhead out of the result. Repeats are the
// outer loop, so slow drift of the machine spreads over all formats instead of landing on
// whichever ran last. Garbage collection inside a sample is part of what is measured: a program
// that decodes pays for it too.

import type { Codec } from "../codecs/codec.js";
import { messageOf } from "../codecs/codec.js";
import type { Shapes } from "../dataset/shape.js";
import { difference } from "../dataset/shape.js";
import type { DatasetKind } from "../dataset/spec.js";
import type { Dataset } from "../dataset/types.js";
import { objectCount } from "../dataset/types.js";
import type { Measurement, Metrics, Status } from "./measurement.js";
import { LANG, SCHEMA_VERSION, scenario, SUBJECT, SUITE } from "./measurement.js";

/** A batch never grows past this many operations, even if the clock does not advance. */
const MAX_BATCH = 2 ** 24;

export interface BenchOptions {
  readonly runId: string;
  readonly repeats: number;
  readonly datasets: readonly DatasetKind[];
  readonly codecs: readonly Codec[];
  readonly samples: number;
  readonly minSampleMs: number;
  readonly warmupMs: number;
}

/** Where time comes from; tests substitute a clock that advances by a fixed step per reading. */
export interface Clock {
  /** Milliseconds since an arbitrary origin, monotonic. */
  nowMs(): number;
}

/** Sizes of compressed encodings. `zstd` is absent where no zstd compressor is available. */
export interface Compressors {
  readonly gzipLevel: number;
  gzipSize(bytes: Uint8Array): number;
  readonly zstd?: { readonly level: number; size(bytes: Uint8Array): number };
}

export interface Host {
  readonly clock: Clock;
  readonly compressors: Compressors;
  readonly shapes: Shapes;
  generate(kind: DatasetKind): Dataset;
  /** Receives each line as soon as it exists (and must flush it), so an interrupted run keeps what it measured. */
  writeLine(line: string): void;
}

/** A verified pair, ready to time. */
interface Subject {
  codec: Codec;
  data: Dataset;
  encoded: Uint8Array;
  sizes: Pick<Metrics, "size_bytes" | "size_gzip_bytes" | "size_zstd_bytes">;
}

/**
 * Results of the timed operations flow into this sum so no engine can prove the work unused; it
 * is exported, so it is observable.
 */
let sink = 0;

export function blackhole(): number {
  return sink;
}

/** Runs the whole measurement. Returns how many pairs failed (verification or timing). */
export function runBench(opts: BenchOptions, host: Host): number {
  const subjects: Subject[] = [];
  let failed = 0;
  for (const kind of opts.datasets) {
    const data = host.generate(kind);
    for (const codec of opts.codecs) {
      try {
        subjects.push(verify(codec, data, host));
      } catch (e) {
        failed++;
        write(host, measurement(opts, host, codec, data, 0, "failed", messageOf(e), {}));
      }
    }
  }
  for (let repeat = 1; repeat <= opts.repeats; repeat++) {
    for (const subject of subjects) {
      let row: Measurement;
      try {
        const [serializeNs, deserializeNs] = time(opts, host.clock, subject);
        const metrics: Metrics = { serialize_ns: roundNs(serializeNs), deserialize_ns: roundNs(deserializeNs), ...subject.sizes };
        row = measurement(opts, host, subject.codec, subject.data, repeat, "ok", null, metrics);
      } catch (e) {
        // Verified pairs do not fail; if one does mid-run, say so on its line and go on.
        failed++;
        row = measurement(opts, host, subject.codec, subject.data, repeat, "failed", messageOf(e), {});
      }
      write(host, row);
    }
  }
  return failed;
}

/** Verify before timing: the encoding decodes to a value equal to the input. */
function verify(codec: Codec, data: Dataset, host: Host): Subject {
  const encoded = codec.encode(data);
  const decoded = codec.decode(encoded, data.kind);
  const diff = difference(host.shapes[data.kind], decoded.root, data.root);
  if (decoded.kind !== data.kind || diff !== undefined) {
    throw new Error(`${codec.id}: decoded ${data.kind} differs from the input at ${diff ?? "the root"}`);
  }
  const { compressors } = host;
  const sizes: Subject["sizes"] = { size_bytes: encoded.length, size_gzip_bytes: compressors.gzipSize(encoded) };
  if (compressors.zstd) sizes.size_zstd_bytes = compressors.zstd.size(encoded);
  return { codec, data, encoded, sizes };
}

/** Warm-up (the JIT compiles the hot paths), then the median per-operation times in ns. */
function time(opts: BenchOptions, clock: Clock, subject: Subject): [number, number] {
  const { codec, data, encoded } = subject;
  const kind = data.kind;
  const encode = (): void => {
    sink = (sink + codec.encode(data).length) | 0;
  };
  const decode = (): void => {
    sink = (sink + objectCount(codec.decode(encoded, kind))) | 0;
  };
  const start = clock.nowMs();
  while (clock.nowMs() - start < opts.warmupMs) {
    encode();
    decode();
  }
  return [perOpNs(opts, clock, encode), perOpNs(opts, clock, decode)];
}

function perOpNs(opts: BenchOptions, clock: Clock, op: () => void): number {
  let batch = 1;
  while (batch < MAX_BATCH && runBatchMs(clock, batch, op) < opts.minSampleMs) batch *= 2;
  const samples: number[] = [];
  for (let s = 0; s < opts.samples; s++) samples.push((runBatchMs(clock, batch, op) * 1e6) / batch);
  return median(samples);
}

function runBatchMs(clock: Clock, batch: number, op: () => void): number {
  const start = clock.nowMs();
  for (let i = 0; i < batch; i++) op();
  return clock.nowMs() - start;
}

/** Rounded to a picosecond: the float noise of ms arithmetic (…999999917) is not information. */
function roundNs(ns: number): number {
  return Math.round(ns * 1000) / 1000;
}

/** Median of a non-empty list (mean of the middle two for an even length). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function measurement(
  opts: BenchOptions,
  host: Host,
  codec: Codec,
  data: Dataset,
  repeat: number,
  status: Status,
  error: string | null,
  metrics: Metrics,
): Measurement {
  const { compressors } = host;
  return {
    schema_version: SCHEMA_VERSION,
    run_id: opts.runId,
    suite: SUITE,
    scenario: scenario(data.kind, codec.id),
    subject: SUBJECT,
    lang: LANG,
    format: codec.id,
    params: {
      dataset: data.kind,
      objects: objectCount(data),
      samples: opts.samples,
      library: codec.library,
      min_sample_ms: opts.minSampleMs,
      warmup_ms: opts.warmupMs,
      gzip_level: compressors.gzipLevel,
      ...(compressors.zstd ? { zstd_level: compressors.zstd.level } : {}),
    },
    repeat,
    status,
    error,
    metrics,
  };
}

function write(host: Host, row: Measurement): void {
  host.writeLine(JSON.stringify(row));
}
