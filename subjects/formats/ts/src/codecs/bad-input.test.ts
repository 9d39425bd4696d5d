// Every file of the bad-input corpus (vectors/bad/) through every decoder, as every dataset. A
// decoder must return a dataset of the requested kind with the right types, or throw a CodecError.
// It fails the test if it throws anything else, runs longer than DECODE_TIME_LIMIT_MS, or needs
// more memory than the caps: the decodes run in a child process with a capped heap (a fatal
// out-of-memory ends only the child; bad-input.child.ts says why not a worker thread), and the
// memory outside the heap (ArrayBuffers, which the heap cap does not cover) is read after every
// decode. A child that dies or hangs is replaced and the run resumes after the case that ended it.

import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { test } from "node:test";

import { DATASET_KINDS } from "../dataset/spec.js";
import { badFiles } from "../node/vectors.js";
import type { ChildInput, DecodeCase, Outcome } from "./bad-input.child.js";
import { FORMAT_IDS } from "./index.js";

/** Generous for a loaded 2-core machine; every decode of the corpus takes milliseconds. */
const DECODE_TIME_LIMIT_MS = 10_000;

/**
 * The child's caps. The corpus's inputs are at most 140 KB and a whole golden vector decodes in a
 * few MB, so a decoder that needs more than this trusted a forged length. The stack keeps Node's
 * default size: recursion without a depth limit shows up as a RangeError (reported, see README).
 */
const HEAP_CAP_MB = 128;
const EXTERNAL_MEMORY_CAP_BYTES = 64 << 20;

interface Run {
  readonly outcomes: Map<number, Outcome | { index: number; result: "died"; message: string }>;
}

/** Runs the cases in child processes, replacing a child that dies or hangs. */
async function runCases(cases: readonly DecodeCase[]): Promise<Run> {
  const outcomes: Run["outcomes"] = new Map();
  let next = 0;
  while (next < cases.length) {
    next = await new Promise<number>((resolve) => {
      const child = fork(new URL("./bad-input.child.js", import.meta.url), [], {
        execArgv: [`--max-old-space-size=${HEAP_CAP_MB}`],
        stdio: ["ignore", "ignore", "pipe", "ipc"],
      });
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        if (stderr.length < 4096) stderr += chunk.toString();
      });
      let current = next;
      let settled = false;
      const settle = (resumeAt: number): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(resumeAt);
      };
      const fail = (message: string): void => {
        if (settled) return;
        outcomes.set(current, { index: current, result: "died", message });
        child.kill("SIGKILL");
        settle(current + 1);
      };
      const arm = (): NodeJS.Timeout => setTimeout(() => fail(`still running after ${DECODE_TIME_LIMIT_MS} ms`), DECODE_TIME_LIMIT_MS);
      let timer = arm();
      child.on("message", (outcome: Outcome) => {
        outcomes.set(outcome.index, outcome);
        current = outcome.index + 1;
        clearTimeout(timer);
        timer = arm();
      });
      child.on("exit", (code, signal) => {
        if (current >= cases.length && code === 0) return settle(cases.length);
        const fatal = /FATAL ERROR: [^\n]*/.exec(stderr)?.[0];
        fail(`the decoding process died (${signal ?? `exit ${code}`})${fatal ? `: ${fatal}` : ""}`);
      });
      const input: ChildInput = { cases, start: next };
      child.send(input);
    });
  }
  return { outcomes };
}

function describeCase(c: DecodeCase): string {
  return `bad/${c.file} → ${c.format} as ${c.kind}`;
}

test("no decoder crashes, hangs or over-allocates on bad input", async (t) => {
  const files = badFiles();
  assert.ok(files.includes("empty") && files.length > 250, `corpus too small: ${files.length} files`);
  const cases: DecodeCase[] = [];
  for (const file of files) {
    for (const format of FORMAT_IDS) {
      for (const kind of DATASET_KINDS) {
        cases.push({ file, format, kind });
      }
    }
  }
  const { outcomes } = await runCases(cases);
  const failures: string[] = [];
  let values = 0;
  let slowest = { ms: 0, name: "" };
  let peakExternal = 0;
  cases.forEach((c, index) => {
    const outcome = outcomes.get(index);
    if (!outcome) return failures.push(`${describeCase(c)}: no outcome`);
    if (outcome.result === "misbehaved" || outcome.result === "died") return failures.push(`${describeCase(c)}: ${outcome.message}`);
    if (outcome.result === "value") values++;
    if (outcome.ms > slowest.ms) slowest = { ms: outcome.ms, name: describeCase(c) };
    peakExternal = Math.max(peakExternal, outcome.externalBytes);
    if (outcome.externalBytes > EXTERNAL_MEMORY_CAP_BYTES) {
      failures.push(`${describeCase(c)}: ${outcome.externalBytes} bytes outside the heap (cap ${EXTERNAL_MEMORY_CAP_BYTES})`);
    }
    return undefined;
  });
  t.diagnostic(
    `${cases.length} decodes: ${values} returned a dataset, the rest a CodecError; ` +
      `slowest ${slowest.ms.toFixed(1)} ms (${slowest.name}); peak memory outside the heap ${(peakExternal / 2 ** 20).toFixed(1)} MiB`,
  );
  assert.ok(cases.length > 5000, `too few decodes: ${cases.length}`);
  assert.equal(failures.length, 0, `${failures.length} of ${cases.length} decodes misbehaved:\n${failures.join("\n")}`);
});
