// The wasm lab's page: by hand, pick a kernel and a way to run it and see the filtered image and
// the time; driven (`?auto=1`, by web/harness/browser.mjs), every row of the profile, verified
// first, then timed in a shuffled order per repeat, each result a measurement line.

import * as js from "../../../subjects/wasm/js/kernels.js";
import { order, settle, showResult } from "../shared/harness.js";
import { check, isFilter, line, rowId, rows, runHere, sizes } from "./lab.js";
import type { Row, Sizes, Timing, WorkerAnswer } from "./lab.js";

const query = new URLSearchParams(location.search);
const results = document.getElementById("results")!;
const status = document.getElementById("status")!;
const canvas = document.getElementById("image") as HTMLCanvasElement;
const runtime = query.get("runtime") ?? navigator.userAgent;
const profile = query.get("profile") ?? (query.get("auto") === "1" ? "quick" : "smoke");

const s = sizes(profile);
const image = js.image(s.width, s.height);
const array = js.array(s.len);
const shown = new Uint8ClampedArray(image.length);
canvas.width = s.width;
canvas.height = s.height;
canvas.getContext("2d")!.putImageData(new ImageData(image.slice(), s.width, s.height), 0, 0);

let worker: Worker | undefined;
/** Runs a worker-kernel row in the Web Worker: the array is copied to it outside any timer. */
function inWorker(row: Row): Promise<Timing & { roundtrip_ms: number }> {
  worker ??= new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
  const w = worker;
  return new Promise((ok, fail) => {
    const copy = array.slice();
    const t0 = performance.now();
    w.onmessage = (e: MessageEvent<WorkerAnswer>) => {
      const roundtrip_ms = performance.now() - t0;
      if (e.data.ok) ok({ ...e.data.timing, roundtrip_ms });
      else fail(new Error(e.data.error));
    };
    w.onerror = (e) => fail(new Error(`the worker failed: ${e.message}`));
    w.postMessage({ row, array: copy }, [copy.buffer]);
  });
}

/** Runs a row once and checks its result against the native reference. */
async function run(row: Row, sz: Sizes): Promise<Timing & { roundtrip_ms?: number }> {
  const t = row.thread === "worker" ? await inWorker(row) : await runHere(row, sz, image, array, () => performance.now(), shown);
  check(row.kernel, t.result, s.results[row.kernel]);
  return t;
}

function show(row: Row, r: (Timing & { roundtrip_ms?: number }) | Error): void {
  const ms = (v: number | undefined) => (v === undefined ? "" : v.toFixed(2));
  const cells = r instanceof Error ? [rowId(row), r.message] : [rowId(row), ms(r.kernel_ms), ms(r.copy_in_ms), ms(r.copy_out_ms), ms(r.roundtrip_ms)];
  showResult(results, cells, r instanceof Error, 5);
  if (!(r instanceof Error) && isFilter(row.kernel) && row.thread === "main") {
    canvas.getContext("2d")!.putImageData(new ImageData(shown.slice(), s.width, s.height), 0, 0);
  }
}

const all = rows();
const select = document.getElementById("row") as HTMLSelectElement;
for (const row of all) select.add(new Option(rowId(row), rowId(row)));
const button = document.getElementById("run") as HTMLButtonElement;
document.getElementById("sizes")!.textContent =
  `image ${s.width} × ${s.height}, array of ${s.len.toLocaleString("en")} doubles (profile ${profile})`;
button.addEventListener("click", async () => {
  const row = all.find((r) => rowId(r) === select.value)!;
  button.disabled = true;
  status.textContent = `Running ${rowId(row)} …`;
  try {
    show(row, await run(row, s));
    status.textContent = "Done.";
  } catch (e) {
    show(row, e instanceof Error ? e : new Error(String(e)));
    status.textContent = "Failed.";
  }
  button.disabled = false;
});

async function auto(): Promise<void> {
  const runId = query.get("run_id") ?? "";
  const repeats = Number(query.get("repeats") ?? "1");
  const report = (row: Row, repeat: number, r: (Timing & { roundtrip_ms?: number }) | Error) => {
    show(row, r);
    return window.wirebenchReport?.(JSON.stringify(line(runId, runtime, row, s, repeat, r)));
  };
  button.disabled = true;
  status.textContent = "Verifying every row …";
  // Warm-up and verification: one call per row; a row that fails is reported once and dropped.
  const live: Row[] = [];
  for (const row of all) {
    try {
      await run(row, s);
      live.push(row);
    } catch (e) {
      await report(row, 0, e instanceof Error ? e : new Error(String(e)));
    }
  }
  for (let repeat = 1; repeat <= repeats; repeat++) {
    status.textContent = `Repeat ${repeat} of ${repeats} …`;
    for (const i of order(live.length, repeat)) {
      const row = live[i]!;
      await settle();
      let r: (Timing & { roundtrip_ms?: number }) | Error;
      try {
        r = await run(row, s);
      } catch (e) {
        r = e instanceof Error ? e : new Error(String(e));
      }
      await report(row, r instanceof Error ? 0 : repeat, r);
    }
  }
  worker?.terminate();
  status.textContent = "Done.";
  await window.wirebenchDone?.();
}

if (query.get("auto") === "1") {
  auto().catch((e) => window.wirebenchDone?.(e instanceof Error ? e.message : String(e)));
}
