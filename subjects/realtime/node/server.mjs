#!/usr/bin/env node
// The realtime lab's app. node server.mjs --port N [--tls-port M] [--h2-port P] [--static DIR] [--write-dir DIR]
// (or --encryption=yes|no as the study's app: yes serves only TLS on --port). See ../README.md.
import fs from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import https from "node:https";
import { parseArgs, UsageError, USAGE } from "./src/cli.mjs";

/** One line on stderr and exit 2. @param {string} message */
function usageExit(message) {
  process.stderr.write(`realtime-node: ${message}\n`);
  process.exit(2);
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (e) {
  if (e instanceof UsageError) usageExit(e.message);
  throw e;
}
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (options.staticDir !== undefined && !fs.statSync(options.staticDir, { throwIfNoEntry: false })?.isDirectory())
  usageExit(`--static ${options.staticDir}: not a directory`);

// Express, Socket.IO and ws are loaded once the arguments are known good.
const { attachSocketIo, attachWs, createApp, createRecorder, createRoutes, http2Handler, MAX_HEADER_PAIRS, MAX_HEADER_SIZE } =
  await import("./src/app.mjs");

let recorder;
try {
  recorder = createRecorder(options.writeDir);
} catch (e) {
  usageExit(`--write-dir ${options.writeDir}: ${/** @type {Error} */ (e).message}`);
}
const { record, file } = /** @type {ReturnType<typeof createRecorder>} */ (recorder);

const routes = createRoutes({ staticDir: options.staticDir, record });
const app = createApp(routes);

/** @typedef {http.Server | http2.Http2SecureServer} AnyServer */
/** @type {{ scheme: string, label: string, port: number, server: AnyServer, close: () => void }[]} */
const listeners = [];

/** @param {string} scheme @param {AnyServer} server @param {number} port @param {string} [label] */
function serve(scheme, server, port, label = "") {
  const io = attachSocketIo(/** @type {any} */ (server), record);
  const wss = attachWs(/** @type {any} */ (server), record);
  /** @type {Set<import("node:http2").Http2Session>} */
  const sessions = new Set();
  server.on("session", (/** @type {import("node:http2").Http2Session} */ s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  listeners.push({
    scheme,
    label,
    port,
    server,
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      io.close(); // disconnects Socket.IO clients and closes the server
      for (const s of sessions) s.destroy();
      if ("closeAllConnections" in server) server.closeAllConnections();
    },
  });
}

// maxHeaderSize is Node's default (16 KiB), set so that no NODE_OPTIONS changes it; the header
// count limit (maxHeadersCount, 2000 by default) is left as is: 300 extra fields fit both.
if (options.plainPort !== undefined)
  serve("http", http.createServer({ maxHeaderSize: MAX_HEADER_SIZE }, app), options.plainPort);
// One certificate for both TLS ports, made at start.
const tls =
  options.tlsPort !== undefined || options.h2Port !== undefined
    ? await (await import("./src/tls.mjs")).selfSignedCert()
    : undefined;
if (options.tlsPort !== undefined && tls !== undefined) {
  const { key, cert } = tls;
  serve("https", https.createServer({ key, cert, maxHeaderSize: MAX_HEADER_SIZE }, app), options.tlsPort);
}
// HTTP/2 over TLS, beyond the study: HTTP/1.1 too by ALPN (for the WebSocket upgrades and older
// clients). HTTP/2's header limits are raised to HTTP/1.1's, so the header sweep fits both.
if (options.h2Port !== undefined && tls !== undefined) {
  const { key, cert } = tls;
  const server = http2.createSecureServer(
    { key, cert, allowHTTP1: true, maxHeaderListPairs: MAX_HEADER_PAIRS, maxHeaderSize: MAX_HEADER_SIZE },
    http2Handler(routes, app),
  );
  serve("https", server, options.h2Port, " (h2)");
}

for (const l of listeners) {
  await new Promise((resolve) => {
    const failed = (/** @type {NodeJS.ErrnoException} */ e) => {
      process.stderr.write(`realtime-node: cannot listen on 127.0.0.1:${l.port} (${l.scheme}): ${e.code ?? e.message}\n`);
      process.exit(1);
    };
    l.server.once("error", failed);
    l.server.listen(l.port, "127.0.0.1", () => {
      l.server.off("error", failed);
      resolve(undefined);
    });
  });
  const address = /** @type {import("node:net").AddressInfo} */ (l.server.address());
  process.stdout.write(`realtime-node: listening on ${l.scheme}://127.0.0.1:${address.port}${l.label}\n`);
}
if (file !== undefined) process.stdout.write(`realtime-node: writing every received text to ${file}\n`);

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  for (const l of listeners) l.close();
  // Everything is closed; leave without waiting for the event loop to drain.
  setImmediate(() => process.exit(0));
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
