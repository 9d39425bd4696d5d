// The child pool's bookkeeping: every outcome of a finished child is counted, a child that dies
// or hangs mid-corpus is reported at the case that was due, with why, and the run resumes after
// it. child-pool.fixture.ts is the child.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { runInChildren, type Indexed, type PoolResult } from "./child-pool.js";

const CASES = 1000;
const AT = 417;

interface Square extends Indexed {
  readonly square: number;
}

function run(mode: string, { caseTimeLimitMs = 20_000, cases = CASES } = {}): Promise<PoolResult<Square>> {
  return runInChildren<Square>({
    script: new URL("./child-pool.fixture.js", import.meta.url),
    args: [mode, String(AT), String(cases)],
    caseCount: cases,
    caseTimeLimitMs,
  });
}

/** Every case but `skipped` has its own outcome. */
function assertOutcomes({ outcomes }: PoolResult<Square>, { skipped = -1, cases = CASES } = {}): void {
  for (let index = 0; index < cases; index++) {
    if (index === skipped) {
      assert.equal(outcomes.has(index), false, `case ${index} has an outcome`);
    } else {
      assert.equal(outcomes.get(index)?.square, index * index, `case ${index}`);
    }
  }
}

test("a child that finishes has every outcome counted and no death", async () => {
  const result = await run("finish");
  assert.deepEqual(result.deaths, []);
  assertOutcomes(result);
});

test("a child that exits 1 mid-corpus is reported at the due case with its error line, and the run resumes after it", async () => {
  const result = await run("exit");
  assert.equal(result.deaths.length, 1, JSON.stringify(result.deaths));
  assert.equal(result.deaths[0]!.index, AT);
  assert.equal(result.deaths[0]!.message, `the child process died (exit 1): TypeError: fixture broke at case ${AT}`);
  assertOutcomes(result, { skipped: AT });
});

test("a child killed by a signal is reported with the signal", async () => {
  const result = await run("signal");
  assert.deepEqual(result.deaths, [{ index: AT, message: "the child process died (SIGKILL)" }]);
  assertOutcomes(result, { skipped: AT });
});

test("a fatal V8 error is quoted from stderr", async () => {
  const result = await run("fatal");
  assert.deepEqual(result.deaths, [
    { index: AT, message: "the child process died (exit 134): FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory" },
  ]);
  assertOutcomes(result, { skipped: AT });
});

test("a child that hangs is killed after the time limit and the run resumes", async () => {
  const result = await run("hang", { caseTimeLimitMs: 1_000 });
  assert.deepEqual(result.deaths, [{ index: AT, message: "still running after 1000 ms" }]);
  assertOutcomes(result, { skipped: AT });
});

test("a child that finished while the parent was starved of CPU is judged on all of its messages", async () => {
  // What a loaded machine does to the pool: the child finishes and exits while the parent gets no
  // time, so its exit, its messages and its stderr's end are all pending at once. runInChildren
  // forks before it first awaits; blocking this thread until the child is a zombie sets that up.
  // (Node documents that 'exit' may be emitted before the stdio and IPC streams are drained,
  // which is why the pool waits for 'close'.) Few cases: a blocked reader leaves the child only
  // its socket's send buffer, where each message is charged ~1 KB.
  const cases = 40;
  const pending = run("finish", { cases });
  const deadline = Date.now() + 60_000;
  while (!childExited()) {
    assert.ok(Date.now() < deadline, "the fixture child did not finish within 60 s");
  }
  const result = await pending;
  assert.deepEqual(result.deaths, []);
  assertOutcomes(result, { cases });
});

/** Whether a child of this process has exited and waits to be reaped (state Z in /proc). */
function childExited(): boolean {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(ppid) === process.pid && state === "Z") return true;
  }
  return false;
}
