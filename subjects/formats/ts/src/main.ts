// Entry point: parse the command line, read the schemas, build the codecs, measure. Usage errors
// are one line on stderr with exit code 2; any other failure one line with exit code 1; never a
// stack trace.

import { performance } from "node:perf_hooks";

import { parseArgs, USAGE, UsageError } from "./cli.js";
import { messageOf } from "./codecs/codec.js";
import { createCodecs } from "./codecs/index.js";
import { generate } from "./dataset/generate.js";
import { runBench } from "./harness/run.js";
import { nodeCompressors } from "./node/compress.js";
import { loadEnvironment } from "./node/environment.js";

/** The run could not do its job (unreadable schema, broken environment). */
const EXIT_FAILURE = 1;
/** The command line is wrong. */
const EXIT_USAGE = 2;

async function main(argv: readonly string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  if (parsed.command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const { args } = parsed;
  const env = loadEnvironment();
  const failed = runBench(
    {
      runId: args.runId,
      repeats: args.repeats,
      datasets: args.datasets,
      codecs: createCodecs(env, args.formats),
      samples: args.samples,
      minSampleMs: args.minSampleMs,
      warmupMs: args.warmupMs,
    },
    {
      clock: { nowMs: () => performance.now() },
      compressors: await nodeCompressors(),
      shapes: env.shapes,
      generate: (kind) => generate(env.spec, kind),
      // stdout writes to files and pipes are synchronous in Node on Linux: each line is out
      // before the next measurement starts.
      writeLine: (line) => process.stdout.write(`${line}\n`),
    },
  );
  if (failed > 0) {
    // The failures are in the output as status "failed" rows; say so where a person looks.
    process.stderr.write(`formats-ts: ${failed} (dataset, format) pairs failed: see the "failed" rows\n`);
  }
}

// A reader that goes away (`| head`) ends the run quietly.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
});

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`formats-ts: ${messageOf(e).split("\n")[0]}\n`);
  process.exitCode = EXIT_FAILURE;
});
