// The WebAssembly-vs-JavaScript lab (section 5.10 of "Ways to optimize web applications"): the
// study's Canvas filters and Web Worker kernels, hand-written JS (subjects/wasm/js) beside
// Rust compiled to wasm32 (subjects/wasm/rust, wasm-bindgen), run in this page or in a Web
// Worker. Shared by the page (main.ts) and its worker (worker.ts).
//
// How a wasm kernel meets its data is the variable the study did not hold still:
// - `wasm`: as the study called it. A filter takes `&mut [u8]`: wasm-bindgen's glue copies the
//   image into wasm memory and back around the call, inside the timer. A worker kernel reads the
//   JS Float64Array with `get_index`, one call out of wasm per element (`wasm-per-element`).
// - `wasm-buffer`: the data lives in wasm memory; copying it in and out is timed apart
//   (copy_in_ms, copy_out_ms) and the timer holds the kernel alone. `wasm-simd-buffer`: the
//   same, from the build with the simd128 target feature.
// Each call starts from a fresh copy of the input (outside the timer), and its result is
// compared with the native reference (subjects/wasm/reference.json) before any time counts.

import * as js from "../../../subjects/wasm/js/kernels.js";
import reference from "../../../subjects/wasm/reference.json";

export const FILTERS = js.FILTERS;
export const WORKER_KERNELS = ["small", "large"] as const;
export type Kernel = js.Filter | (typeof WORKER_KERNELS)[number];

/** The ways a kernel runs: JavaScript, and wasm in the study's way or over its own memory. */
export const IMPLS = ["js", "wasm", "wasm-buffer", "wasm-simd-buffer"] as const;
export type Impl = (typeof IMPLS)[number];
export type Thread = "main" | "worker";

/** The wasm-bindgen module's exports this lab calls (../../../subjects/wasm/rust/src/wasm.rs). */
export interface WasmKernels {
  default: (input?: unknown) => Promise<{ memory: WebAssembly.Memory }>;
  grayscale(data: Uint8Array): void;
  brightness(data: Uint8Array, amount: number): void;
  contrast(data: Uint8Array, factor: number): void;
  blur(data: Uint8Array, width: number, height: number, radius: number): void;
  small_per_element(data: Float64Array): number;
  large_per_element(data: Float64Array): number;
  Image: new (width: number, height: number) => { ptr(): number; len(): number; filter(name: string): void; free(): void };
  Floats: new (len: number) => { ptr(): number; len(): number; small(): number; large(): number; free(): void };
}

/** The two builds, `plain` and `simd` (web/pages/wasm/pkg/<build>/, made by `make build-wasm`). */
const builds = import.meta.glob<WasmKernels>("./pkg/*/wasm_kernels.js");

export interface Loaded {
  module: WasmKernels;
  memory: WebAssembly.Memory;
}

const loaded = new Map<string, Promise<Loaded>>();

/** Loads a build once; rejects with one line when it was not built. */
export function load(build: "plain" | "simd"): Promise<Loaded> {
  let l = loaded.get(build);
  if (!l) {
    const importer = builds[`./pkg/${build}/wasm_kernels.js`];
    l = importer
      ? importer().then(async (module) => ({ module, memory: (await module.default()).memory }))
      : Promise.reject(new Error(`the ${build} wasm module is not built: run \`make build-wasm\` (needs the wasm32-unknown-unknown target)`));
    loaded.set(build, l);
  }
  return l;
}

/** Input sizes by profile, as `wasm_kernels::Sizes`. */
export interface Sizes {
  width: number;
  height: number;
  len: number;
}

type Reference = Record<string, Sizes & { results: Record<string, number> }>;

export function sizes(profile: string): Sizes & { results: Record<string, number> } {
  const r = (reference as Reference)[profile];
  if (!r) throw new Error(`unknown profile \`${profile}\`; known: ${Object.keys(reference).join(", ")}`);
  return r;
}

export interface Row {
  kernel: Kernel;
  impl: Impl;
  thread: Thread;
}

/** The lab's rows: the filters on the page's thread (as the study ran them), the worker kernels
 * in a Web Worker (as the study) and on the page's thread; `wasm-per-element` names the study's
 * way for worker kernels. */
export function rows(): Row[] {
  const out: Row[] = [];
  for (const kernel of FILTERS) for (const impl of IMPLS) out.push({ kernel, impl, thread: "main" });
  for (const thread of ["worker", "main"] as const)
    for (const kernel of WORKER_KERNELS) for (const impl of IMPLS) out.push({ kernel, impl, thread });
  return out;
}

export function isFilter(kernel: Kernel): kernel is js.Filter {
  return (FILTERS as readonly string[]).includes(kernel);
}

/** `<kernel>-<impl>[-worker]`; the worker kernels' study-style wasm is `wasm-per-element`. */
export function rowId(row: Row): string {
  const impl = row.impl === "wasm" && !isFilter(row.kernel) ? "wasm-per-element" : row.impl;
  return `${row.kernel}-${impl}${row.thread === "worker" ? "-worker" : ""}`;
}

/** What one call measured. `result` is the image's checksum or the kernel's sum. */
export interface Timing {
  kernel_ms: number;
  copy_in_ms?: number;
  copy_out_ms?: number;
  result: number;
}

/** Checks a result against the native reference: images exactly, sums within 1e-9. */
export function check(kernel: Kernel, result: number, want: number | undefined): void {
  if (want === undefined) throw new Error(`${kernel}: no reference result`);
  const ok = isFilter(kernel) ? result === want : Math.abs(result - want) <= 1e-9 * Math.abs(want);
  if (!ok) throw new Error(`${kernel}: result ${result} is not the native reference ${want}`);
}

/**
 * Runs one row once on this thread. `image` and `array` are the pristine inputs; `out`, when
 * given, receives the filtered image (the page draws it).
 */
export async function runHere(row: Row, s: Sizes, image: Uint8ClampedArray, array: Float64Array, now: () => number, out?: Uint8ClampedArray): Promise<Timing> {
  const { kernel, impl } = row;
  if (isFilter(kernel)) {
    const data = image.slice();
    let t: Timing;
    if (impl === "js") {
      const t0 = now();
      js.filter(kernel, data, s.width, s.height);
      t = { kernel_ms: now() - t0, result: 0 };
    } else if (impl === "wasm") {
      const { module } = await load("plain");
      // The study passed the canvas bytes to wasm-bindgen's `&mut [u8]`: the glue copies them in
      // and out inside the call. A Uint8Array view, as wasm-bindgen's typing asks.
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const t0 = now();
      callFilter(module, kernel, bytes, s);
      t = { kernel_ms: now() - t0, result: 0 };
    } else {
      const { module, memory } = await load(impl === "wasm-buffer" ? "plain" : "simd");
      const img = new module.Image(s.width, s.height);
      try {
        const t0 = now();
        new Uint8Array(memory.buffer, img.ptr(), img.len()).set(data);
        const t1 = now();
        img.filter(kernel);
        const t2 = now();
        data.set(new Uint8Array(memory.buffer, img.ptr(), img.len()));
        const t3 = now();
        t = { copy_in_ms: t1 - t0, kernel_ms: t2 - t1, copy_out_ms: t3 - t2, result: 0 };
      } finally {
        img.free();
      }
    }
    t.result = js.checksum(data);
    out?.set(data);
    return t;
  }
  if (impl === "js") {
    const t0 = now();
    const result = kernel === "small" ? js.small(array) : js.large(array);
    return { kernel_ms: now() - t0, result };
  }
  if (impl === "wasm") {
    const { module } = await load("plain");
    const t0 = now();
    const result = kernel === "small" ? module.small_per_element(array) : module.large_per_element(array);
    return { kernel_ms: now() - t0, result };
  }
  const { module, memory } = await load(impl === "wasm-buffer" ? "plain" : "simd");
  const floats = new module.Floats(array.length);
  try {
    const t0 = now();
    new Float64Array(memory.buffer, floats.ptr(), floats.len()).set(array);
    const t1 = now();
    const result = kernel === "small" ? floats.small() : floats.large();
    return { copy_in_ms: t1 - t0, kernel_ms: now() - t1, result };
  } finally {
    floats.free();
  }
}

function callFilter(m: WasmKernels, kernel: js.Filter, bytes: Uint8Array, s: Sizes): void {
  if (kernel === "grayscale") m.grayscale(bytes);
  else if (kernel === "brightness") m.brightness(bytes, js.BRIGHTNESS);
  else if (kernel === "contrast") m.contrast(bytes, js.CONTRAST);
  else m.blur(bytes, s.width, s.height, js.BLUR_RADIUS);
}

/** A message to the worker and its answer. */
export interface WorkerRequest {
  row: Row;
  array: Float64Array;
}
export type WorkerAnswer = { ok: true; timing: Timing } | { ok: false; error: string };

/** One measurement line (schema: schemas/measurement.schema.json). */
export function line(runId: string, runtime: string, row: Row, s: Sizes, repeat: number, result: (Timing & { roundtrip_ms?: number }) | Error): object {
  const params: Record<string, unknown> = { kernel: row.kernel, impl: row.impl, thread: row.thread, runtime };
  if (isFilter(row.kernel)) {
    Object.assign(params, { width: s.width, height: s.height });
    if (row.kernel === "brightness") params["amount"] = js.BRIGHTNESS;
    if (row.kernel === "contrast") params["factor"] = js.CONTRAST;
    if (row.kernel === "blur") params["radius"] = js.BLUR_RADIUS;
  } else params["len"] = s.len;
  if (row.impl !== "js") params["crossing"] = row.impl === "wasm" ? (isFilter(row.kernel) ? "copy-per-call" : "per-element") : "buffer";
  if (row.impl !== "js") params["simd"] = row.impl === "wasm-simd-buffer";
  const base = { schema_version: 1, run_id: runId, suite: "wasm", scenario: rowId(row), subject: "wasm-kernels", lang: row.impl === "js" ? "ts" : "rust", params, repeat };
  if (result instanceof Error) return { ...base, repeat: 0, status: "failed", error: result.message, metrics: {} };
  const metrics: Record<string, number> = { duration_s: result.kernel_ms / 1000, kernel_ms: result.kernel_ms, result: result.result };
  for (const k of ["copy_in_ms", "copy_out_ms", "roundtrip_ms"] as const) if (result[k] !== undefined) metrics[k] = result[k];
  return { ...base, status: "ok", metrics };
}
