// Socket.IO: upload and download of N texts, bad input, the 64 KiB limit, TLS.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { io } from "socket.io-client";
import WebSocket from "ws";
import { startServer, TEXT } from "./helpers.mjs";

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
before(async () => {
  server = await startServer(["--port", "0", "--tls-port", "0"]);
});
after(async () => {
  assert.equal(await server.stop(), 0);
});

/** @returns {Promise<import("socket.io-client").Socket>} */
function connect(origin, options = {}) {
  return new Promise((resolve, reject) => {
    const socket = io(origin, { transports: ["websocket"], reconnection: false, forceNew: true, ...options });
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}

/** Uploads n copies of `text`; resolves with the server's ack. */
async function upload(socket, n, text = TEXT) {
  socket.emit("upload-start");
  for (let i = 0; i < n; i++) socket.emit("text", text);
  return socket.timeout(5000).emitWithAck("upload-done");
}

/** Asks for n texts; resolves with the texts received before the ack, and the ack. */
async function download(socket, n) {
  const texts = [];
  const onText = (t) => texts.push(t);
  socket.on("text", onText);
  const ack = await socket.timeout(5000).emitWithAck("download", { n });
  socket.off("text", onText);
  return { texts, ack };
}

test("upload of 50 texts is acked with received 50, ok", async () => {
  const socket = await connect(server.plain);
  assert.deepEqual(await upload(socket, 50), { received: 50, ok: true });
  // upload-start resets the count
  assert.deepEqual(await upload(socket, 3), { received: 3, ok: true });
  socket.disconnect();
});

test("a text that differs is counted as not ok", async () => {
  const socket = await connect(server.plain);
  socket.emit("upload-start");
  socket.emit("text", TEXT);
  socket.emit("text", "hello");
  socket.emit("text", { not: "a string" });
  assert.deepEqual(await socket.timeout(5000).emitWithAck("upload-done"), { received: 3, ok: false });
  assert.deepEqual(await upload(socket, 2), { received: 2, ok: true });
  socket.disconnect();
});

test("download of 50 texts: all 50 arrive before the ack { sent: 50 }", async () => {
  const socket = await connect(server.plain);
  const { texts, ack } = await download(socket, 50);
  assert.deepEqual(ack, { sent: 50 });
  assert.equal(texts.length, 50);
  assert.ok(texts.every((t) => t === TEXT));
  socket.disconnect();
});

test("download with a bad n is acked with an error", async () => {
  const socket = await connect(server.plain);
  for (const n of [0, -1, 1.5, 100_001, "10", null]) {
    const ack = await socket.timeout(5000).emitWithAck("download", { n });
    assert.equal(typeof ack.error, "string", `n = ${JSON.stringify(n)}`);
  }
  const ack = await socket.timeout(5000).emitWithAck("download");
  assert.equal(typeof ack.error, "string");
  assert.deepEqual((await download(socket, 1)).ack, { sent: 1 });
  socket.disconnect();
});

test("a message over 64 KiB disconnects that client; another still works", async () => {
  const big = await connect(server.plain);
  const other = await connect(server.plain);
  const reason = new Promise((resolve) => big.once("disconnect", resolve));
  big.emit("text", "x".repeat(64 * 1024 + 1));
  assert.equal(await reason, "transport close");
  assert.deepEqual(await upload(other, 5), { received: 5, ok: true });
  other.disconnect();
  const fresh = await connect(server.plain);
  assert.equal((await download(fresh, 5)).texts.length, 5);
  fresh.disconnect();
});

test("malformed Socket.IO packets close only their sender's connection", { timeout: 10_000 }, async () => {
  const other = await connect(server.plain);
  // Engine.IO over a raw WebSocket: "40" opens the default namespace; then packets that do not
  // parse (bad JSON, an unknown packet type, an event without a name).
  for (const bad of ['42["text", oops', "9nonsense", "42{}"]) {
    const raw = new WebSocket(`${server.plain.replace(/^http/, "ws")}/socket.io/?EIO=4&transport=websocket`);
    const opened = new Promise((resolve, reject) => {
      raw.once("message", (d) => (String(d).startsWith("0{") ? resolve(undefined) : reject(new Error(String(d)))));
      raw.once("error", reject);
    });
    await opened;
    const closed = new Promise((resolve) => raw.once("close", resolve));
    raw.send("40");
    raw.send(bad);
    await closed;
  }
  assert.deepEqual(await upload(other, 5), { received: 5, ok: true });
  other.disconnect();
});

test("over TLS (WSS): upload and download of 50 texts", async () => {
  const socket = await connect(server.tls, { rejectUnauthorized: false });
  assert.deepEqual(await upload(socket, 50), { received: 50, ok: true });
  const { texts, ack } = await download(socket, 50);
  assert.deepEqual(ack, { sent: 50 });
  assert.equal(texts.length, 50);
  socket.disconnect();
});
