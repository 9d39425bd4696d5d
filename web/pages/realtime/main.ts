// The realtime lab's page: by hand, one scenario at a time; driven (`?auto=1`, by
// web/harness/browser.mjs against the page the app serves), every scenario of the profile with
// a verified warm-up call each, then the repeats in a shuffled order per repeat, each result
// handed to the harness as a measurement line.

import { order, settle, showResult } from "../shared/harness.js";
import { measure, scenarioId, scenarios } from "./lab.js";
import type { Direction, Kept, Protocol, Scenario } from "./lab.js";

const query = new URLSearchParams(location.search);
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $("status");
const now = () => performance.now();
const kept: Kept = {};

const tls = location.protocol === "https:";
/** The page's own protocol (`http/1.1`, `h2`): its requests to the app reuse that connection. */
const http =
  (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined)?.nextHopProtocol || "http/1.1";
const h2 = http === "h2";
const cpu = Number(query.get("cpu_throttle") ?? "1");
const disk = query.get("disk") === "1";
/** The round trip of the network link the runner put between browser and app (a label: the page cannot see the link). */
const rtt = Number(query.get("rtt_ms") ?? "0");
/** The browser (`chromium@156…`, `firefox@153…`); rows of a browser other than Chromium say which. */
const runtime = query.get("runtime") ?? navigator.userAgent;
const browser = /^([a-z]+)@/.exec(runtime)?.[1] ?? (navigator.userAgent.includes("Firefox/") ? "firefox" : "chromium");
const suffix = `${h2 ? "-h2" : tls ? "-tls" : ""}${cpu > 1 ? `-cpu${cpu}` : ""}${disk ? "-disk" : ""}${rtt > 0 ? `-rtt${rtt}` : ""}${
  browser !== "chromium" ? `-${browser}` : ""
}`;

/** The protocol of the page's last request to /text (Resource Timing), to check HTTP rows ran over `http`. */
function lastTextProtocol(): string | undefined {
  const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
  return entries.filter((e) => new URL(e.name).pathname === "/text").at(-1)?.nextHopProtocol;
}

function show(id: string, result: number | Error, n: number): void {
  const cells =
    result instanceof Error
      ? [id, result.message]
      : [id, result.toFixed(1), (result / n).toFixed(3), ((n * 1000) / result).toFixed(0)];
  showResult($("results"), cells, result instanceof Error, 4);
}

function line(s: Scenario, repeat: number, result: number | Error): string {
  const failed = result instanceof Error;
  const seconds = failed ? 0 : result / 1000;
  return JSON.stringify({
    schema_version: 1,
    run_id: query.get("run_id") ?? "",
    suite: "realtime",
    scenario: scenarioId(s, suffix),
    subject: "realtime-node",
    lang: "ts",
    protocol: s.protocol === "http" ? (h2 ? "http2" : "http1") : s.protocol === "ws" ? "websocket" : "socketio",
    params: {
      lab: "realtime",
      protocol: s.protocol,
      direction: s.direction,
      n: s.n,
      headers: s.headers,
      parallel: s.parallel,
      connect: s.connect,
      tls,
      http,
      cpu_throttle: cpu,
      disk,
      rtt_ms: rtt,
      runtime,
    },
    repeat,
    status: failed ? "failed" : "ok",
    ...(failed ? { error: result.message.replace(/\n/g, " ") } : {}),
    metrics: failed
      ? {}
      : { messages: s.n, duration_s: seconds, messages_per_s: s.n / seconds, ms_per_message: result / s.n },
  });
}

/** One call of `s`, after the page has rendered the previous result. */
async function timed(s: Scenario): Promise<number | Error> {
  await settle();
  try {
    return await measure(s, now, kept);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

$("start").addEventListener("click", async () => {
  const s: Scenario = {
    protocol: $<HTMLSelectElement>("protocol").value as Protocol,
    direction: $<HTMLSelectElement>("direction").value as Direction,
    n: Number($<HTMLInputElement>("n").value),
    headers: Number($<HTMLInputElement>("headers").value),
    parallel: $<HTMLInputElement>("parallel").checked,
    connect: $<HTMLInputElement>("connect").checked,
  };
  $<HTMLButtonElement>("start").disabled = true;
  status.textContent = `Running ${scenarioId(s, suffix)} …`;
  show(scenarioId(s, suffix), await timed(s), s.n);
  status.textContent = "Done.";
  $<HTMLButtonElement>("start").disabled = false;
});

async function auto(): Promise<void> {
  const all = scenarios(query.get("profile") ?? "quick", query.get("set") ?? "all", Number(query.get("max_n") ?? Infinity));
  const repeats = Number(query.get("repeats") ?? "1");
  // Each line is awaited: the harness may close the browser once the page says it is done, and
  // a report still in flight then was lost (Firefox lost the last line of a run that way).
  const report = async (s: Scenario, repeat: number, result: number | Error) => {
    show(scenarioId(s, suffix), result, s.n);
    await window.wirebenchReport?.(line(s, repeat, result));
  };
  $<HTMLButtonElement>("start").disabled = true;
  status.textContent = "Running every scenario …";
  const live: Scenario[] = [];
  for (const s of all) {
    performance.clearResourceTimings();
    const r = await timed(s);
    const over = s.protocol === "http" ? lastTextProtocol() : http;
    if (r instanceof Error) await report(s, 0, new Error(`warm-up failed: ${r.message}`));
    else if (over !== http) await report(s, 0, new Error(`warm-up went over ${over || "an unknown protocol"}, not the page's ${http}`));
    else live.push(s);
  }
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const i of order(live.length, repeat)) await report(live[i]!, repeat, await timed(live[i]!));
  }
  status.textContent = "Done.";
  await window.wirebenchDone?.();
}

if (query.get("auto") === "1") auto().catch((e) => window.wirebenchDone?.(e instanceof Error ? e.message : String(e)));
