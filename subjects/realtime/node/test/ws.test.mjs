// The raw WebSocket endpoint /ws: upload and download of N texts, bad input, limits, WSS.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
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

/** @returns {Promise<WebSocket>} */
function open(origin, options = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${origin.replace(/^http/, "ws")}/ws`, options);
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

/** The next `count` text messages of `ws`. @returns {Promise<string[]>} */
function next(ws, count) {
  return new Promise((resolve, reject) => {
    const got = [];
    const onMessage = (data) => {
      got.push(data.toString());
      if (got.length === count) {
        ws.off("message", onMessage);
        ws.off("close", onClose);
        resolve(got);
      }
    };
    const onClose = (code) => reject(new Error(`closed with ${code} after ${got.length} of ${count} messages`));
    ws.on("message", onMessage);
    ws.once("close", onClose);
  });
}

/** @returns {Promise<number>} the close code */
function closed(ws) {
  return new Promise((resolve) => ws.once("close", (code) => resolve(code)));
}

test("upload of 50 texts is answered `ok 50 1`, and the count starts again", async () => {
  const ws = await open(server.plain);
  let answer = next(ws, 1);
  for (let i = 0; i < 50; i++) ws.send(TEXT);
  ws.send("done");
  assert.deepEqual(await answer, ["ok 50 1"]);
  answer = next(ws, 1);
  ws.send(TEXT);
  ws.send("another text");
  ws.send("done");
  assert.deepEqual(await answer, ["ok 2 0"]);
  answer = next(ws, 1);
  ws.send("done");
  assert.deepEqual(await answer, ["ok 0 1"]);
  ws.close();
});

test("download 50 sends 50 texts", async () => {
  const ws = await open(server.plain);
  const answer = next(ws, 50);
  ws.send("download 50");
  const texts = await answer;
  assert.ok(texts.every((t) => t === TEXT));
  ws.close();
});

test("bad commands are answered `error ...` and the connection stays", async () => {
  const ws = await open(server.plain);
  for (const bad of ["download", "download 0", "download x", "download 100001", "download 5 6", "download -1"]) {
    const answer = next(ws, 1);
    ws.send(bad);
    const [line] = await answer;
    assert.match(line, /^error [^\n]+$/, bad);
  }
  const answer = next(ws, 1);
  ws.send(Buffer.from(TEXT), { binary: true });
  assert.match((await answer)[0], /^error /);
  const texts = next(ws, 2);
  ws.send("download 2");
  assert.equal((await texts).length, 2);
  ws.close();
});

test("a frame over 64 KiB closes that connection with 1009; another still works", async () => {
  const other = await open(server.plain);
  const big = await open(server.plain);
  const code = closed(big);
  big.send("x".repeat(64 * 1024 + 1));
  assert.equal(await code, 1009);
  const answer = next(other, 3);
  other.send("download 3");
  assert.equal((await answer).length, 3);
  other.close();
  const fresh = await open(server.plain);
  const one = next(fresh, 1);
  fresh.send("download 1");
  assert.deepEqual(await one, [TEXT]);
  fresh.close();
});

test("invalid UTF-8 closes that connection with 1007", async () => {
  const ws = await open(server.plain);
  const code = closed(ws);
  ws.send(Buffer.from([0x31, 0xff, 0xfe]), { binary: false });
  assert.equal(await code, 1007);
  const other = await open(server.plain);
  const one = next(other, 1);
  other.send("download 1");
  assert.deepEqual(await one, [TEXT]);
  other.close();
});

test("WSS on the TLS port: upload and download of 50 texts", async () => {
  const ws = await open(server.tls, { rejectUnauthorized: false });
  const answer = next(ws, 1);
  for (let i = 0; i < 50; i++) ws.send(TEXT);
  ws.send("done");
  assert.deepEqual(await answer, ["ok 50 1"]);
  const texts = next(ws, 50);
  ws.send("download 50");
  assert.equal((await texts).length, 50);
  ws.close();
});

test("an upgrade to another path is refused with 404", async () => {
  await assert.rejects(
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`${server.plain.replace(/^http/, "ws")}/elsewhere`);
      ws.once("open", resolve);
      ws.once("error", reject);
    }),
    /Unexpected server response: 404/,
  );
});
