// The command line: flag parsing, and the compiled program as a runner starts it (measurement lines
// on stdout; a bad command line is one line on stderr and exit code 2, never a stack trace).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { parseArgs, UsageError } from "./cli.js";
import { FORMAT_IDS } from "./codecs/index.js";
import { DATASET_KINDS } from "./dataset/spec.js";

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));

function formatsTs(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", timeout: 60_000 });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe("parseArgs", () => {
  it("applies the defaults", () => {
    assert.deepEqual(parseArgs(["bench", "--repeats", "3", "--run-id", "r"]), {
      command: "bench",
      args: { repeats: 3, runId: "r", datasets: DATASET_KINDS, formats: FORMAT_IDS, samples: 15, minSampleMs: 1, warmupMs: 200 },
    });
  });

  it("takes --flag value and --flag=value", () => {
    const parsed = parseArgs(["bench", "--run-id=x", "--repeats", "1", "--dataset=dummy", "--format", "avro", "--samples=5", "--warmup-ms", "0"]);
    assert.equal(parsed.command, "bench");
    if (parsed.command !== "bench") return;
    assert.deepEqual(parsed.args.datasets, ["dummy"]);
    assert.deepEqual(parsed.args.formats, ["avro"]);
    assert.equal(parsed.args.samples, 5);
    assert.equal(parsed.args.warmupMs, 0);
  });

  for (const [argv, message] of [
    [["bench", "--repeats", "1", "--run-id", "r", "--format", "yaml"], /--format: expected one of json, xml/],
    [["bench", "--repeats", "zero", "--run-id", "r"], /invalid value 'zero' for --repeats/],
    [["bench", "--repeats", "0", "--run-id", "r"], /--repeats: expected an integer in 1\.\./],
    [["bench", "--run-id", "r"], /--repeats is required/],
    [["bench", "--repeats", "1"], /--run-id is required/],
    [["bench", "--repeats", "1", "--run-id", "r", "--samples"], /--samples needs a value/],
    [["bench", "--repeats", "1", "--run-id", "r", "--frobnicate", "1"], /unexpected argument '--frobnicate'/],
    [["bench", "--repeats", "1", "--repeats", "2", "--run-id", "r"], /--repeats given twice/],
    [["frobnicate"], /unknown command 'frobnicate'/],
    [[], /a command is required/],
  ] as const) {
    it(`refuses ${JSON.stringify(argv)}`, () => {
      assert.throws(() => parseArgs(argv), (e: unknown) => e instanceof UsageError && message.test(e.message));
    });
  }
});

describe("formats-ts (dist/main.js)", () => {
  it("prints one valid measurement per line for a short bench", () => {
    const out = formatsTs(["bench", "--repeats", "2", "--run-id", "cli-test", "--dataset", "numeric", "--format", "cbor", "--samples", "3", "--warmup-ms", "0"]);
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stderr, "");
    const rows = out.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    assert.equal(rows.length, 2);
    rows.forEach((row, i) => {
      assert.equal(row["scenario"], "numeric-cbor-ts");
      assert.equal(row["repeat"], i + 1);
      assert.equal(row["status"], "ok");
      assert.ok(row["metrics"]["serialize_ns"] > 0 && row["metrics"]["deserialize_ns"] > 0);
      assert.ok(row["metrics"]["size_zstd_bytes"] > 0 && row["metrics"]["size_gzip_bytes"] > 0);
      assert.match(row["params"]["library"], /^cbor-x@\d/);
    });
  });

  for (const args of [
    ["bench", "--repeats", "1", "--run-id", "r", "--format", "yaml"],
    ["bench", "--repeats", "zero", "--run-id", "r"],
    ["bench", "--run-id", "r"],
    ["frobnicate"],
    [],
  ]) {
    it(`fails on one line with exit code 2: ${JSON.stringify(args)}`, () => {
      const out = formatsTs(args);
      assert.equal(out.status, 2, out.stderr);
      assert.equal(out.stdout, "");
      assert.equal(out.stderr.trimEnd().split("\n").length, 1, out.stderr);
      assert.match(out.stderr, /^error: /);
      assert.doesNotMatch(out.stderr, /\n\s+at /);
    });
  }

  it("prints the usage with --help", () => {
    const out = formatsTs(["--help"]);
    assert.equal(out.status, 0);
    assert.match(out.stdout, /^usage: formats-ts bench --repeats R --run-id ID/);
  });
});
