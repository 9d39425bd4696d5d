#!/usr/bin/env node
// The realtime lab's app. node server.mjs --port N [--tls-port M] [--static DIR] [--write-dir DIR]
// (or --encryption=yes|no as the study's app: yes serves only TLS on --port). See ../README.md.
import fs from "node:fs";
import http from "node:http";
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
const { attachSocketIo, attachWs, createApp, createRecorder, MAX_HEADER_SIZE } = await import("./src/app.mjs");

let recorder;
try {
  recorder = createRecorder(options.writeDir);
} catch (e) {
  usageExit(`--write-dir ${options.writeDir}: ${/** @type {Error} */ (e).message}`);
}
const { record, file } = /** @type {ReturnType<typeof createRecorder>} */ (recorder);

const app = createApp({ staticDir: options.staticDir, record });

/** @type {{ scheme: string, port: number, server: http.Server, close: () => void }[]} */
const listeners = [];

/** @param {string} scheme @param {http.Server} server @param {number} port */
function serve(scheme, server, port) {
  const io = attachSocketIo(server, record);
  const wss = attachWs(server, record);
  listeners.push({
    scheme,
    port,
    server,
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      io.close(); // disconnects Socket.IO clients and closes the server
      server.closeAllConnections();
    },
  });
}

// maxHeaderSize is Node's default (16 KiB), set so that no NODE_OPTIONS changes it; the header
// count limit (maxHeadersCount, 2000 by default) is left as is: 300 extra fields fit both.
if (options.plainPort !== undefined)
  serve("http", http.createServer({ maxHeaderSize: MAX_HEADER_SIZE }, app), options.plainPort);
if (options.tlsPort !== undefined) {
  const { selfSignedCert } = await import("./src/tls.mjs");
  const { key, cert } = await selfSignedCert();
  serve("https", https.createServer({ key, cert, maxHeaderSize: MAX_HEADER_SIZE }, app), options.tlsPort);
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
  process.stdout.write(`realtime-node: listening on ${l.scheme}://127.0.0.1:${address.port}\n`);
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
