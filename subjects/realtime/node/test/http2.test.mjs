// The HTTP/2 port (--h2-port): the same API over HTTP/2 with TLS, HTTP/1.1 by ALPN on the same
// port (Express), WebSocket and Socket.IO upgrades there, bad input.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http2 from "node:http2";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { io } from "socket.io-client";
import WebSocket from "ws";
import { extraHeaders, httpsRequest, startServer, TEXT } from "./helpers.mjs";

const staticDir = fs.mkdtempSync(path.join(os.tmpdir(), "realtime-static-"));
fs.mkdirSync(path.join(staticDir, "realtime"));
fs.writeFileSync(path.join(staticDir, "realtime", "index.html"), "<!doctype html><title>realtime</title>\n");

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
/** @type {http2.ClientHttp2Session} */
let session;
before(async () => {
  server = await startServer(["--port", "0", "--h2-port", "0", "--static", staticDir]);
  session = http2.connect(/** @type {string} */ (server.h2), { rejectUnauthorized: false });
  await new Promise((resolve, reject) => {
    session.once("connect", resolve);
    session.once("error", reject);
  });
});
after(async () => {
  session.close();
  assert.equal(await server.stop(), 0, "SIGTERM ends the server with 0");
  fs.rmSync(staticDir, { recursive: true, force: true });
});

/**
 * One request on the shared HTTP/2 session.
 * @param {string} method @param {string} urlPath @param {{ body?: string, headers?: Record<string, string> }} [more]
 * @returns {Promise<{ status: number, headers: http2.IncomingHttpHeaders, body: string }>}
 */
function request(method, urlPath, { body, headers = {} } = {}, on = session) {
  return new Promise((resolve, reject) => {
    const stream = on.request({ ":method": method, ":path": urlPath, ...headers });
    let status = 0;
    /** @type {http2.IncomingHttpHeaders} */
    let got = {};
    let text = "";
    stream.setEncoding("utf8");
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      got = h;
    });
    stream.on("data", (d) => (text += d));
    stream.on("end", () => resolve({ status, headers: got, body: text }));
    stream.on("error", reject);
    stream.end(body);
  });
}

test("the port speaks HTTP/2 when offered (ALPN h2)", () => {
  assert.equal(session.alpnProtocol, "h2");
});

test("GET /text over HTTP/2 is the text, text/plain, no-store", async () => {
  const r = await request("GET", "/text");
  assert.equal(r.status, 200);
  assert.equal(r.body, TEXT);
  assert.match(String(r.headers["content-type"]), /^text\/plain/);
  assert.equal(r.headers["cache-control"], "no-store");
});

test("POST /text over HTTP/2: 204 for the text (with Content-Length or without), 400 with one line for another body", async () => {
  assert.equal((await request("POST", "/text", { body: TEXT })).status, 204);
  const length = { "content-length": String(TEXT.length) };
  assert.equal((await request("POST", "/text", { body: TEXT, headers: length })).status, 204);
  for (const body of ["hello", TEXT + "1", ""]) {
    const r = await request("POST", "/text", { body });
    assert.equal(r.status, 400, `body ${JSON.stringify(body)}`);
    assert.match(r.body, /^[^\n]+\n$/);
  }
});

test("POST /text over 64 KiB is 413 on its stream; the session keeps serving", async () => {
  const r = await request("POST", "/text", { body: "x".repeat(64 * 1024 + 1) });
  assert.equal(r.status, 413);
  assert.equal(r.body, "the body is over 65536 bytes\n");
  assert.equal((await request("GET", "/text")).body, TEXT);
});

test("300 extra request headers are accepted on GET and POST, as over HTTP/1.1", async () => {
  const headers = extraHeaders(300);
  const get = await request("GET", "/text", { headers });
  assert.equal(get.status, 200);
  assert.equal(get.body, TEXT);
  assert.equal((await request("POST", "/text", { body: TEXT, headers })).status, 204);
});

test("static files with COOP and COEP, 404 for unknown paths", async () => {
  const r = await request("GET", "/realtime/");
  assert.equal(r.status, 200);
  assert.match(r.body, /<title>realtime<\/title>/);
  assert.equal(r.headers["cross-origin-opener-policy"], "same-origin");
  assert.equal(r.headers["cross-origin-embedder-policy"], "require-corp");
  assert.equal((await request("GET", "/nothing-here")).status, 404);
});

test("HTTP/1.1 on the same port is the Express app", async () => {
  const r = await httpsRequest(`${server.h2}/text`);
  assert.equal(r.status, 200);
  assert.equal(r.body, TEXT);
  assert.equal(r.headers["x-powered-by"], "Express");
});

test("WebSocket and Socket.IO upgrade over HTTP/1.1 on the same port", async () => {
  const wsUrl = `${String(server.h2).replace(/^https/, "wss")}/ws`;
  const ws = new WebSocket(wsUrl, { rejectUnauthorized: false });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const texts = new Promise((resolve) => {
    const got = [];
    ws.on("message", (d) => {
      got.push(d.toString());
      if (got.length === 3) resolve(got);
    });
  });
  ws.send("download 3");
  assert.deepEqual(await texts, [TEXT, TEXT, TEXT]);
  ws.close();

  const socket = io(String(server.h2), { transports: ["websocket"], reconnection: false, forceNew: true, rejectUnauthorized: false });
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  let count = 0;
  socket.on("text", () => count++);
  assert.deepEqual(await socket.timeout(5000).emitWithAck("download", { n: 5 }), { sent: 5 });
  assert.equal(count, 5);
  socket.disconnect();
});

test("a connection that sends garbage instead of the HTTP/2 preface is closed; others go on", { timeout: 10_000 }, async () => {
  const url = new URL(String(server.h2));
  const socket = tls.connect({ host: url.hostname, port: Number(url.port), ALPNProtocols: ["h2"], rejectUnauthorized: false });
  await new Promise((resolve, reject) => {
    socket.once("secureConnect", resolve);
    socket.once("error", reject);
  });
  assert.equal(socket.alpnProtocol, "h2");
  const closed = new Promise((resolve) => socket.once("close", resolve));
  socket.on("error", () => {});
  socket.resume(); // the server's SETTINGS and GOAWAY, read so that its end arrives
  socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\nnot a preface at all, not even close\r\n\r\n");
  await closed;
  assert.equal((await request("GET", "/text")).body, TEXT);
});
