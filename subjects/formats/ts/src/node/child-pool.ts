// Node only: runs a numbered list of cases in child processes, one child at a time, replacing a
// child that dies or hangs and resuming after the case that ended it. Used where one case can take
// a whole process down (a decoder exhausting a capped heap), so the test process survives to
// report it.
//
// The contract between the two sides, and why each part of it is there:
// - The child learns where to start from its command line (`childStart()`), not from an IPC
//   message. A message that arrives while the child's ES modules are still loading is replayed by
//   Node from a nextTick in its `newListener` hook; a handler that finished the work and called
//   `process.disconnect()` inside that replay made Node itself throw ("Cannot set properties of
//   null (setting 'Symbol(kPendingMessages)')", lib/internal/child_process.js) and the child exit
//   1 at a random case, about one run in three on a loaded machine.
// - The child reports each case with `report()` and waits until the message is written before it
//   starts the next case, so when it dies, every earlier outcome is already in the socket and the
//   death is charged to the case that caused it, not to one whose outcome was still queued.
// - The child never calls `process.disconnect()` (which closes the channel with writes still
//   queued); it exits by itself once its work and writes are done, because a child with no
//   'message' listener does not keep its IPC channel referenced.
// - The parent judges a child on 'close', not 'exit': Node may emit 'exit' before it has read the
//   last messages and the last of stderr, which made a finished child look dead mid-corpus and
//   hid the FATAL ERROR line of one that really died.

import { fork } from "node:child_process";

/** What a child sends for each case: its index plus whatever the caller's child reports. */
export interface Indexed {
  readonly index: number;
}

/** A child that ended before reporting case `index` (or, when `index` equals the case count, after the last one). */
export interface Death {
  readonly index: number;
  readonly message: string;
}

export interface PoolOptions {
  /** The child module: calls `childStart()`, then `report()` once per case from there on, in order. */
  readonly script: URL;
  /** Extra arguments after the start index (a fixture's behaviour, for instance). */
  readonly args?: readonly string[];
  readonly execArgv?: readonly string[];
  readonly caseCount: number;
  /** A child that reports nothing for this long is killed and its current case counted as hung. */
  readonly caseTimeLimitMs: number;
}

export interface PoolResult<O extends Indexed> {
  readonly outcomes: Map<number, O>;
  readonly deaths: Death[];
}

/** Most of stderr kept per child: enough for a fatal error's first lines. */
const STDERR_KEEP = 8192;

/** Runs cases 0..caseCount in children until every case has an outcome or a death. */
export async function runInChildren<O extends Indexed>(options: PoolOptions): Promise<PoolResult<O>> {
  const outcomes = new Map<number, O>();
  const deaths: Death[] = [];
  let next = 0;
  while (next < options.caseCount) {
    next = await runOneChild(options, next, outcomes, deaths);
  }
  return { outcomes, deaths };
}

/** Runs one child from case `start`; resolves to the case the next child starts at. */
function runOneChild<O extends Indexed>(options: PoolOptions, start: number, outcomes: Map<number, O>, deaths: Death[]): Promise<number> {
  return new Promise<number>((resolve) => {
    const child = fork(options.script, [String(start), ...(options.args ?? [])], {
      execArgv: [...(options.execArgv ?? [])],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      if (stderr.length < STDERR_KEEP) stderr += chunk.toString();
    });
    let current = start;
    let settled = false;
    const die = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      deaths.push({ index: current, message });
      child.kill("SIGKILL");
      resolve(current + 1);
    };
    const arm = (): NodeJS.Timeout => setTimeout(() => die(`still running after ${options.caseTimeLimitMs} ms`), options.caseTimeLimitMs);
    let timer = arm();
    child.on("message", (outcome: O) => {
      if (settled) return;
      if (outcome.index !== current) return die(`the child reported case ${outcome.index} while case ${current} was due`);
      outcomes.set(outcome.index, outcome);
      current = outcome.index + 1;
      clearTimeout(timer);
      timer = arm();
    });
    child.on("error", (e) => die(`the child process failed: ${e.message}`));
    child.on("close", (code, signal) => {
      if (settled) return;
      if (code === 0 && current === options.caseCount) {
        settled = true;
        clearTimeout(timer);
        return resolve(current);
      }
      die(`the child process died (${signal ?? `exit ${code}`})${whyFrom(stderr)}`);
    });
  });
}

/** The line of stderr that says why a child died: V8's FATAL ERROR line, else the last error line. */
function whyFrom(stderr: string): string {
  const fatal = /FATAL ERROR: [^\n]*/.exec(stderr)?.[0];
  if (fatal) return `: ${fatal}`;
  const lines = stderr.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("at ") && !l.startsWith("Node.js v"));
  const error = lines.filter((l) => /^\w*Error\b/.test(l)).at(-1) ?? lines.at(-1);
  return error ? `: ${error}` : "";
}

/** Child side: the first case this child runs (the pool passes it as the first argument). */
export function childStart(): number {
  const start = Number(process.argv[2]);
  if (!process.send || !Number.isInteger(start) || start < 0) {
    throw new Error("this module runs as a child of runInChildren(): start index expected as the first argument");
  }
  return start;
}

/** Child side: reports one case and resolves once the message is written, so a death after it cannot lose it. */
export function report<O extends Indexed>(outcome: O): Promise<void> {
  return new Promise((resolve, reject) => {
    process.send!(outcome, undefined, {}, (e: Error | null) => (e ? reject(e) : resolve()));
  });
}
