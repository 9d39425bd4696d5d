// One output line of the harness, in the shape of schemas/measurement.schema.json (version 1),
// field for field what the Rust harness prints, so the runner ingests it like its own.

export const SCHEMA_VERSION = 1;
export const SUITE = "formats";
export const LANG = "ts";
export const SUBJECT = `formats-${LANG}`;

export interface Params {
  dataset: string;
  objects: number;
  samples: number;
  /** `package@version` of the codec's library. */
  library: string;
  min_sample_ms: number;
  warmup_ms: number;
  gzip_level: number;
  /** Absent when no zstd compressor is available. */
  zstd_level?: number;
}

/** Empty for a failed row. Units are in the names. */
export interface Metrics {
  /** Median over the samples of the time of one encode, in nanoseconds. */
  serialize_ns?: number;
  /** Median over the samples of the time of one decode, in nanoseconds. */
  deserialize_ns?: number;
  /** Length of the encoding. */
  size_bytes?: number;
  size_gzip_bytes?: number;
  size_zstd_bytes?: number;
}

export type Status = "ok" | "failed";

export interface Measurement {
  schema_version: number;
  run_id: string;
  suite: string;
  /** `<dataset>-<format>-ts`. */
  scenario: string;
  subject: string;
  lang: string;
  format: string;
  params: Params;
  /** 1-based; 0 for a failure found before any repeat ran (verification). */
  repeat: number;
  status: Status;
  error: string | null;
  metrics: Metrics;
}

/** The scenario id of a dataset and format. */
export function scenario(dataset: string, format: string): string {
  return `${dataset}-${format}-${LANG}`;
}
