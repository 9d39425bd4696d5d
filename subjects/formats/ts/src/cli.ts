// Command-line interface: the `bench` command, its flags and defaults. The --format and --dataset
// values come from the codec table and the dataset list. Portable (it parses a list of strings).

import { FORMAT_IDS } from "./codecs/index.js";
import { DATASET_KINDS, isDatasetKind } from "./dataset/spec.js";
import type { DatasetKind } from "./dataset/spec.js";

/** Value of --format and --dataset that selects every one. */
const ALL = "all";

export interface BenchArgs {
  readonly repeats: number;
  readonly runId: string;
  readonly datasets: readonly DatasetKind[];
  readonly formats: readonly string[];
  readonly samples: number;
  readonly minSampleMs: number;
  readonly warmupMs: number;
}

export type Command = { readonly command: "bench"; readonly args: BenchArgs } | { readonly command: "help" };

/** A command line that cannot run; the message says what to change. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const USAGE = `usage: formats-ts bench --repeats R --run-id ID [options]

Verifies every (dataset, format) pair, then times encode and decode; one JSON measurement per line on stdout.

  --repeats R          repeats of every (dataset, format) measurement (>= 1)
  --run-id ID          id of the run, copied into every line
  --dataset D          ${[...DATASET_KINDS, ALL].join(" | ")} (default ${ALL})
  --format F           ${[...FORMAT_IDS, ALL].join(" | ")} (default ${ALL})
  --samples N          samples per measurement; the reported time is their median (1..100000, default 15)
  --min-sample-ms M    shortest duration of one sample, in ms; operations are batched to reach it (1..60000, default 1)
  --warmup-ms W        warm-up before each measurement, in ms (0..600000, default 200)`;

interface IntFlag {
  readonly min: number;
  readonly max: number;
}

const INT_FLAGS: Readonly<Record<string, IntFlag>> = {
  "--repeats": { min: 1, max: 1_000_000 },
  "--samples": { min: 1, max: 100_000 },
  "--min-sample-ms": { min: 1, max: 60_000 },
  "--warmup-ms": { min: 0, max: 600_000 },
};
const STRING_FLAGS = ["--run-id", "--dataset", "--format"];

function integer(flag: string, text: string): number {
  const range = INT_FLAGS[flag]!;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw new UsageError(`invalid value '${text}' for ${flag}: expected an integer in ${range.min}..${range.max}`);
  }
  return n;
}

/** Parses the arguments after the program name. Throws UsageError on anything it cannot run. */
export function parseArgs(argv: readonly string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError("a command is required: bench (see --help)");
  if (command === "--help" || command === "-h" || command === "help") return { command: "help" };
  if (command !== "bench") throw new UsageError(`unknown command '${command}': expected bench (see --help)`);

  const values = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--help" || arg === "-h") return { command: "help" };
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!(flag in INT_FLAGS) && !STRING_FLAGS.includes(flag)) {
      throw new UsageError(`unexpected argument '${arg}' (see --help)`);
    }
    const value = eq > 0 ? arg.slice(eq + 1) : rest[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    if (values.has(flag)) throw new UsageError(`${flag} given twice`);
    values.set(flag, value);
  }

  const repeats = values.get("--repeats");
  const runId = values.get("--run-id");
  if (repeats === undefined) throw new UsageError("--repeats is required");
  if (runId === undefined) throw new UsageError("--run-id is required");

  const dataset = values.get("--dataset") ?? ALL;
  if (dataset !== ALL && !isDatasetKind(dataset)) {
    throw new UsageError(`invalid value '${dataset}' for --dataset: expected one of ${[...DATASET_KINDS, ALL].join(", ")}`);
  }
  const format = values.get("--format") ?? ALL;
  if (format !== ALL && !FORMAT_IDS.includes(format)) {
    throw new UsageError(`invalid value '${format}' for --format: expected one of ${[...FORMAT_IDS, ALL].join(", ")}`);
  }
  const int = (flag: string, fallback: number): number => {
    const text = values.get(flag);
    return text === undefined ? fallback : integer(flag, text);
  };
  return {
    command: "bench",
    args: {
      repeats: integer("--repeats", repeats),
      runId,
      datasets: dataset === ALL ? DATASET_KINDS : [dataset as DatasetKind],
      formats: format === ALL ? FORMAT_IDS : [format],
      samples: int("--samples", 15),
      minSampleMs: int("--min-sample-ms", 1),
      warmupMs: int("--warmup-ms", 200),
    },
  };
}
