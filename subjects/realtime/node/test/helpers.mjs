// Starts server.mjs as a child process on free ports (--port 0, --tls-port 0, --h2-port 0) and
// reads the ports it prints.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import https from "node:https";

export const SERVER = fileURLToPath(new URL("../server.mjs", import.meta.url));
export const TEXT = "1234567890".repeat(10);

/**
 * @param {string[]} args  e.g. ["--port", "0", "--tls-port", "0"]
 * @returns {Promise<{ plain?: string, tls?: string, h2?: string, lines: string[], child: import("node:child_process").ChildProcess, stop: () => Promise<number | null> }>}
 *   plain, tls and h2 are origins such as http://127.0.0.1:40123
 */
export function startServer(args) {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const lines = [];
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  const expected = 1 + ["--tls-port", "--h2-port"].filter((f) => args.includes(f)).length;
  return new Promise((resolve, reject) => {
    let buffered = "";
    const result = {
      /** @type {string | undefined} */ plain: undefined,
      /** @type {string | undefined} */ tls: undefined,
      /** @type {string | undefined} */ h2: undefined,
      lines,
      child,
      stop: async () => {
        child.kill("SIGTERM");
        return exited;
      },
    };
    let found = 0;
    child.stdout.on("data", (d) => {
      buffered += d;
      let i;
      while ((i = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        lines.push(line);
        const m = /listening on (https?):\/\/(\S+)( \(h2\))?/.exec(line);
        if (m) {
          if (m[3]) result.h2 = `https://${m[2]}`;
          else if (m[1] === "https" && !args.includes("--encryption=yes")) result.tls = `https://${m[2]}`;
          else result.plain = `${m[1]}://${m[2]}`;
          if (++found === expected) resolve(result);
        }
      }
    });
    exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)));
  });
}

/** Extra request headers as the study's: nazwa-1: zawartosc ... nazwa-count: zawartosc. */
export function extraHeaders(count) {
  /** @type {Record<string, string>} */
  const h = {};
  for (let i = 1; i <= count; i++) h[`nazwa-${i}`] = "zawartosc";
  return h;
}

/**
 * One HTTPS request that accepts the self-signed certificate.
 * @returns {Promise<{ status: number, headers: import("node:http").IncomingHttpHeaders, body: string, cert: import("node:tls").PeerCertificate }>}
 */
export function httpsRequest(url, { method = "GET", body } = {}) {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, rejectUnauthorized: false, agent: false }, (res) => {
      const cert = /** @type {import("node:tls").TLSSocket} */ (res.socket).getPeerCertificate();
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, cert }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
