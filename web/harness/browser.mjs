// The browser harness of every browser lab (docs/ARCHITECTURE.md, "Browser labs"): serves the
// built pages (dist/) on loopback, opens one lab's page in a headless browser and prints each
// measurement line the page reports on stdout, so the runner ingests it as an ordinary
// [[harnesses]] entry. The browser is Debian's Chromium (/usr/bin/chromium, driven by
// playwright-core over CDP) or, with --browser firefox, Debian's Firefox ESR
// (/usr/bin/firefox-esr, driven by puppeteer-core over WebDriver BiDi: playwright-core's BiDi
// Firefox sends `emulation.setMediaFeaturesOverride` with every new context, which Firefox 153
// ESR answers "unknown command").
//
//   node harness/browser.mjs <lab> [--param name=value]... [--profile P] [--timeout-s S]
//        [--origin URL] [--browser chromium|firefox] [--cpu-throttle RATE] [--keep-serving]
//        --repeats R --run-id ID
//
// The page is opened as /<lab>/?auto=1&repeats=R&run_id=ID&profile=P&runtime=<browser>&<params>;
// it calls window.wirebenchReport(line) per measurement and window.wirebenchDone(error?) at the
// end. --origin opens the page where a subject serves it (same-origin with its API, as a study's
// app served its own page) instead of serving dist/ here; certificates of loopback subjects are
// self-signed and accepted. --cpu-throttle slows the page's CPU by RATE (DevTools' CPU
// throttling, Chromium only: a slow client). --keep-serving opens no browser: it prints the page's URL (with
// the params) and serves until stopped, for a person to click through.

import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { chromium } from "playwright-core";
import puppeteer from "puppeteer-core";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const CHROMIUM = "/usr/bin/chromium";
/**
 * Firefox through `setpriv --pdeathsig KILL`: puppeteer starts it detached and talks to it over a
 * WebSocket, so unlike Chromium on its pipe it would outlive a SIGKILLed harness.
 */
const FIREFOX = join(dirname(fileURLToPath(import.meta.url)), "firefox-esr");
/** The browsers a page can run in. */
export const BROWSERS = ["chromium", "firefox"];

/**
 * What is wrong with running in `browser` at `cpuThrottle`, as one line, or undefined.
 * @param {string} browser @param {number} cpuThrottle
 */
export function browserProblem(browser, cpuThrottle) {
  if (!BROWSERS.includes(browser)) return `--browser ${browser}: expected one of ${BROWSERS.join(", ")}`;
  if (browser === "firefox" && cpuThrottle !== 1) return "--cpu-throttle needs Chromium: Firefox has no CPU throttling";
  return undefined;
}
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** @param {string} message @returns {never} */
function fail(message) {
  process.stderr.write(`browser-harness: ${message}\n`);
  process.exit(2);
}

/**
 * Serves `dir` on a free loopback port; resolves to the server and its base URL.
 * @param {string} dir
 * @returns {Promise<{ server: import("node:http").Server, base: string }>}
 */
export function serveStatic(dir) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    let file = join(dir, path);
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[/** @type {keyof TYPES} */ (extname(file))] ?? "application/octet-stream",
      // Cross-origin isolation, so pages may use SharedArrayBuffer and precise timers.
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-embedder-policy": "credentialless",
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok, err) => {
    server.once("error", err);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") return err(new Error("no port"));
      ok({ server, base: `http://127.0.0.1:${address.port}` });
    });
  });
}

/**
 * Opens the page `url` gives for the browser's version (`chromium@156…`, `firefox@153…`, so the
 * page can record it) in the headless `browser` and calls `onLine` with each line the page
 * reports; resolves when the page says it is done, rejects on its error, a page crash or the
 * timeout.
 * @param {{ url: (version: string) => string, onLine: (line: string) => void, timeoutMs: number, cpuThrottle?: number, browser?: string }} o
 */
export async function runPage({ url, onLine, timeoutMs, cpuThrottle, browser = "chromium" }) {
  const problem = browserProblem(browser, cpuThrottle ?? 1);
  if (problem) throw new Error(problem);
  const open = browser === "firefox" ? openFirefox : openChromium;
  const { page, version, close } = await open(cpuThrottle);
  try {
    /** @type {(error?: string) => void} */
    let done = () => {};
    const finished = new Promise((ok, err) => {
      done = (error) => (error ? err(new Error(`the page failed: ${error}`)) : ok(undefined));
      page.on("pageerror", (/** @type {Error} */ e) => err(new Error(`the page threw: ${e.message}`)));
      page.on(browser === "firefox" ? "error" : "crash", () => err(new Error("the page crashed")));
    });
    page.on("console", (/** @type {{ type: () => string, text: () => string }} */ m) => process.stderr.write(`page ${m.type()}: ${m.text()}\n`));
    await page.exposeFunction("wirebenchReport", (/** @type {string} */ line) => onLine(line));
    await page.exposeFunction("wirebenchDone", (/** @type {string | undefined} */ error) => done(error));
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const timeout = new Promise((_, err) => {
      timer = setTimeout(() => err(new Error(`the page did not finish within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      await page.goto(url(version));
      await Promise.race([finished, timeout]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await close();
  }
}

/** @param {number | undefined} cpuThrottle @returns {Promise<{ page: any, version: string, close: () => Promise<void> }>} */
async function openChromium(cpuThrottle) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    // Loopback subjects serve TLS with a certificate they generated at start.
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    if (cpuThrottle && cpuThrottle !== 1) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpuThrottle });
    }
    return { page, version: `chromium@${browser.version()}`, close: () => browser.close() };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/** @returns {Promise<{ page: any, version: string, close: () => Promise<void> }>} */
async function openFirefox() {
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    // Loopback subjects serve TLS with a certificate they generated at start.
    acceptInsecureCerts: true,
    // Traffic only to loopback: puppeteer's profile points updates, telemetry and blocklists at
    // a dummy host; these two probes it leaves on would reach detectportal.firefox.com.
    extraPrefsFirefox: {
      "network.captive-portal-service.enabled": false,
      "network.connectivity-service.enabled": false,
    },
  });
  try {
    const page = await browser.newPage();
    // `firefox/153.8.0` as the page records it: `firefox@153.8.0`.
    const version = (await browser.version()).replace("/", "@");
    return { page, version, close: () => browser.close() };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

async function main() {
  /** @type {ReturnType<typeof parseArgs>["values"]} */
  let values;
  /** @type {string[]} */
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      allowPositionals: true,
      options: {
        param: { type: "string", multiple: true },
        profile: { type: "string", default: "quick" },
        "timeout-s": { type: "string", default: "1500" },
        "keep-serving": { type: "boolean", default: false },
        origin: { type: "string" },
        "cpu-throttle": { type: "string", default: "1" },
        browser: { type: "string", default: "chromium" },
        repeats: { type: "string", default: "1" },
        "run-id": { type: "string", default: "" },
      },
    }));
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  const [lab] = positionals;
  if (!lab || positionals.length > 1) fail("usage: browser.mjs <lab> [--param name=value]... --repeats R --run-id ID");
  const origin = values.origin ? String(values.origin).replace(/\/$/, "") : undefined;
  if (!origin && !existsSync(join(DIST, lab, "index.html"))) fail(`no page dist/${lab}/index.html: run \`npm run build\` in web/`);
  const cpuThrottle = Number(values["cpu-throttle"]);
  if (!(cpuThrottle >= 1)) fail(`--cpu-throttle ${values["cpu-throttle"]}: expected a rate of 1 or more`);
  const browser = String(values.browser);
  const problem = browserProblem(browser, cpuThrottle);
  if (problem) fail(problem);
  const query = new URLSearchParams();
  for (const p of /** @type {string[]} */ (values.param ?? [])) {
    const at = p.indexOf("=");
    if (at < 1) fail(`--param ${p}: expected name=value`);
    query.set(p.slice(0, at), p.slice(at + 1));
  }
  const { server, base } = origin
    ? { server: undefined, base: origin }
    : await serveStatic(DIST).catch((e) => fail(`cannot serve dist/: ${e.message}`));
  if (values["keep-serving"]) {
    process.stderr.write(`browser-harness: open ${base}/${lab}/?${query} (Ctrl-C stops)\n`);
    for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => (server ? server.close(() => process.exit(0)) : process.exit(0)));
    return;
  }
  query.set("auto", "1");
  query.set("repeats", String(values.repeats));
  query.set("run_id", String(values["run-id"]));
  query.set("profile", String(values.profile));
  if (cpuThrottle !== 1) query.set("cpu_throttle", String(cpuThrottle));
  const timeoutMs = Number(values["timeout-s"]) * 1000;
  if (!(timeoutMs > 0)) fail(`--timeout-s ${values["timeout-s"]}: expected seconds`);
  let lines = 0;
  try {
    await runPage({
      url: (version) => {
        query.set("runtime", version);
        return `${base}/${lab}/?${query}`;
      },
      timeoutMs,
      cpuThrottle,
      browser,
      onLine: (line) => {
        lines++;
        process.stdout.write(line + "\n");
      },
    });
  } catch (e) {
    server?.close();
    fail(e instanceof Error ? e.message.split("\n")[0] ?? "" : String(e));
  }
  server?.close();
  if (lines === 0) fail("the page reported no measurement");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
