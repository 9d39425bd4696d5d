// The parse lab's page: by hand, one button per scenario (the study's 8: object × format ×
// provider); driven (`?auto=1`, by web/harness/browser.mjs), every row at the profile's sizes,
// each result handed to the harness as a measurement line.

import { settle, showResult } from "../shared/harness.js";
import { FORMATS, OBJECTS, SIZES, line, measure, rowId, runAll } from "./lab.js";
import type { Row, Timings } from "./lab.js";

const query = new URLSearchParams(location.search);
const input = (id: string) => document.getElementById(id) as HTMLInputElement;
const results = document.getElementById("results")!;
const status = document.getElementById("status")!;
input("rust").value = query.get("rust") ?? "http://127.0.0.1:8081";
input("java").value = query.get("java") ?? "http://127.0.0.1:8080";
const runtime = query.get("runtime") ?? navigator.userAgent;

function show(row: Row, result: Timings | Error): void {
  const cells =
    result instanceof Error
      ? [rowId(row, "browser"), result.message]
      : [
          rowId(row, "browser"),
          (result.parse_us / 1000).toFixed(2),
          (result.total_us / 1000).toFixed(1),
          (result.study_us / 1000).toFixed(2),
          result.parse_ns_per_object.toFixed(0),
          (result.size_bytes / 1024).toFixed(0),
        ];
  showResult(results, cells, result instanceof Error, 6);
}

const buttons: HTMLButtonElement[] = [];
for (const provider of ["rust", "java"])
  for (const object of OBJECTS)
    for (const format of FORMATS) {
      const button = document.createElement("button");
      button.textContent = `${object} · ${format.toUpperCase()} · from ${provider}`;
      button.addEventListener("click", async () => {
        const row: Row = { object, format, provider, n: Number(input("n").value) };
        buttons.forEach((b) => (b.disabled = true));
        status.textContent = `Running ${rowId(row, "browser")} …`;
        try {
          show(row, await measure(input(provider).value, row, () => performance.now()));
          status.textContent = "Done.";
        } catch (e) {
          show(row, e instanceof Error ? e : new Error(String(e)));
          status.textContent = "Failed.";
        }
        buttons.forEach((b) => (b.disabled = false));
      });
      buttons.push(button);
      document.getElementById("scenarios")!.append(button);
    }

async function auto(): Promise<void> {
  const servers: Record<string, string> = {};
  for (const name of ["rust", "java"]) {
    const url = query.get(name);
    if (url) servers[name] = url;
  }
  const sizes = query.get("n")?.split(",").map(Number) ?? SIZES[query.get("profile") ?? "quick"] ?? SIZES["quick"]!;
  const repeats = Number(query.get("repeats") ?? "1");
  buttons.forEach((b) => (b.disabled = true));
  status.textContent = "Running every scenario …";
  await runAll(
    servers,
    sizes,
    repeats,
    async (row, repeat, result) => {
      show(row, result);
      await window.wirebenchReport?.(JSON.stringify(line(query.get("run_id") ?? "", "browser", runtime, row, repeat, result)));
    },
    () => performance.now(),
    settle,
  );
  status.textContent = "Done.";
  await window.wirebenchDone?.();
}

if (query.get("auto") === "1") {
  auto().catch((e) => window.wirebenchDone?.(e instanceof Error ? e.message : String(e)));
}
