// Runs decodes for bad-input.test.ts in a child process whose heap is capped
// (--max-old-space-size), so a decoder that allocates without bound kills this process, not the
// test's. Started by runInChildren() (node/child-pool.ts, which states the contract): decodes the
// corpus's cases from the index on its command line and reports one outcome per decode.
//
// A child process rather than a worker thread: a worker's resourceLimits do not reliably stop an
// allocation at the cap. One large array filled by index (what a decoder trusting a forged count
// does) aborts the whole process with "FATAL ERROR: CALL_AND_RETRY_LAST Allocation failed" instead
// of ending the worker with ERR_WORKER_OUT_OF_MEMORY (nodejs/node#47224, still open); this corpus
// triggers exactly that.

import { getHeapStatistics } from "node:v8";

import { check } from "../dataset/shape.js";
import { badInputCases } from "../node/bad-input.js";
import { childStart, report } from "../node/child-pool.js";
import { loadEnvironment } from "../node/environment.js";
import { readBad } from "../node/vectors.js";
import { CodecError, messageOf } from "./codec.js";
import { createCodecs } from "./index.js";

export type Outcome =
  | { readonly index: number; readonly result: "value" | "error"; readonly ms: number; readonly externalBytes: number }
  | { readonly index: number; readonly result: "misbehaved"; readonly message: string };

async function run(start: number): Promise<void> {
  const cases = badInputCases();
  const env = loadEnvironment();
  const codecs = new Map(createCodecs(env).map((c) => [c.id, c]));
  const files = new Map<string, Uint8Array>();
  for (let index = start; index < cases.length; index++) {
    const { file, format, kind } = cases[index]!;
    let bytes = files.get(file);
    if (!bytes) files.set(file, (bytes = readBad(file)));
    const codec = codecs.get(format)!;
    let outcome: Outcome;
    const began = performance.now();
    try {
      const data = codec.decode(bytes, kind);
      // A decoder that returns must return the dataset it was asked for, with its types.
      if (data.kind !== kind) throw new Error(`returned a ${data.kind} dataset`);
      check(env.shapes[kind], data.root);
      outcome = { index, result: "value", ms: performance.now() - began, externalBytes: external() };
    } catch (e) {
      outcome =
        e instanceof CodecError
          ? { index, result: "error", ms: performance.now() - began, externalBytes: external() }
          : { index, result: "misbehaved", message: `threw ${e instanceof Error ? e.name : typeof e}, not a CodecError: ${messageOf(e)}` };
    }
    await report(outcome);
  }
}

/** Memory outside the JS heap (ArrayBuffers), which the heap cap does not cover. */
function external(): number {
  return getHeapStatistics().external_memory;
}

await run(childStart());
