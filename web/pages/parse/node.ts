// The parse lab's Node row: the page's code (lab.ts) in Node, with Node's fetch, JSON.parse and
// the same `bson` package, on the same providers. Built by Vite for Node (vite.config.mjs);
// `node dist-node/parse-node.js --server rust=URL [--server java=URL] [--profile P] [--n LIST]
// --repeats R --run-id ID` prints measurement lines like every harness.

import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import { SIZES, line, runAll } from "./lab.js";

function fail(message: string): never {
  process.stderr.write(`parse-node: ${message}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      server: { type: "string", multiple: true },
      profile: { type: "string", default: "quick" },
      n: { type: "string" },
      repeats: { type: "string", default: "3" },
      "run-id": { type: "string", default: "" },
    },
  }));
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
const servers: Record<string, string> = {};
for (const s of values.server ?? []) {
  const [name, url] = s.split("=", 2);
  if (!name || !url || !["rust", "java"].includes(name)) fail(`--server ${s}: expected rust=<url> or java=<url>`);
  servers[name] = url.replace(/\/$/, "");
}
if (Object.keys(servers).length === 0) fail("give at least one --server");
const sizes = values.n ? values.n.split(",").map(Number) : SIZES[values.profile];
if (!sizes || sizes.some((n) => !Number.isInteger(n) || n < 1)) fail(`no sizes for profile ${values.profile} / --n ${values.n}`);
const repeats = Number(values.repeats);
if (!Number.isInteger(repeats) || repeats < 1) fail(`--repeats ${values.repeats}: expected a positive integer`);
const runtime = `node@${process.versions.node}`;

await runAll(
  servers,
  sizes,
  repeats,
  (row, repeat, result) => {
    process.stdout.write(JSON.stringify(line(values["run-id"], "node", runtime, row, repeat, result)) + "\n");
  },
  () => performance.now(),
);
