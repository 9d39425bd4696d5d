// Every file of the bad-input corpus (vectors/bad/) through every decoder, as every dataset. A
// decoder must return a dataset of the requested kind with the right types, or throw a CodecError.
// It fails the test if it throws anything else, runs longer than DECODE_TIME_LIMIT_MS, or needs
// more memory than the caps: the decodes run in a child process with a capped heap (a fatal
// out-of-memory ends only the child; bad-input.child.ts says why not a worker thread), and the
// memory outside the heap (ArrayBuffers, which the heap cap does not cover) is read after every
// decode. A child that dies or hangs is replaced and the run resumes after the case that ended it.

import assert from "node:assert/strict";
import { test } from "node:test";

import { badInputCases, describeCase } from "../node/bad-input.js";
import { runInChildren } from "../node/child-pool.js";
import type { Outcome } from "./bad-input.child.js";

/** Generous for a loaded 2-core machine; every decode of the corpus takes milliseconds. */
const DECODE_TIME_LIMIT_MS = 10_000;

/**
 * The child's caps. The corpus's inputs are at most 140 KB and a whole golden vector decodes in a
 * few MB, so a decoder that needs more than this trusted a forged length. The stack keeps Node's
 * default size: recursion without a depth limit shows up as a RangeError (reported, see README).
 */
const HEAP_CAP_MB = 128;
const EXTERNAL_MEMORY_CAP_BYTES = 64 << 20;

test("no decoder crashes, hangs or over-allocates on bad input", async (t) => {
  const cases = badInputCases();
  const files = new Set(cases.map((c) => c.file));
  assert.ok(files.has("empty") && files.size > 250, `corpus too small: ${files.size} files`);
  const { outcomes, deaths } = await runInChildren<Outcome>({
    script: new URL("./bad-input.child.js", import.meta.url),
    execArgv: [`--max-old-space-size=${HEAP_CAP_MB}`],
    caseCount: cases.length,
    caseTimeLimitMs: DECODE_TIME_LIMIT_MS,
  });
  const failures = deaths.map((d) => `${cases[d.index] ? describeCase(cases[d.index]!) : "after the last case"}: ${d.message}`);
  let values = 0;
  let slowest = { ms: 0, name: "" };
  let peakExternal = 0;
  cases.forEach((c, index) => {
    const outcome = outcomes.get(index);
    if (!outcome) return deaths.some((d) => d.index === index) ? undefined : failures.push(`${describeCase(c)}: no outcome`);
    if (outcome.result === "misbehaved") return failures.push(`${describeCase(c)}: ${outcome.message}`);
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
