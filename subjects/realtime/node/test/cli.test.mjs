// The command line: bad arguments, --encryption, --write-dir, signals.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { io } from "socket.io-client";
import WebSocket from "ws";
import { httpsRequest, SERVER, startServer, TEXT } from "./helpers.mjs";

/** Runs server.mjs to its end (it must end by itself). */
function run(args) {
  const r = spawnSync(process.execPath, [SERVER, ...args], { encoding: "utf8", timeout: 10_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("bad arguments: exit 2 with one line on stderr", () => {
  const cases = [
    [],
    ["--bogus"],
    ["--port"],
    ["--port", "x"],
    ["--port", "70000"],
    ["--port", "-1"],
    ["--port", "1", "--port", "2"],
    ["--port", "1", "--tls-port"],
    ["--port", "1", "--static", "/does/not/exist"],
    ["--port", "1", "--encryption=maybe"],
    ["--port", "1", "--encryption=yes", "--tls-port", "2"],
    ["--port", "1", "--tls-port", "1"],
    ["--port", "1", "--h2-port", "1"],
    ["--port", "1", "--tls-port", "2", "--h2-port", "2"],
    ["--port", "1", "--h2-port", "x"],
    ["--port", "1", "extra"],
  ];
  for (const args of cases) {
    const r = run(args);
    assert.equal(r.code, 2, `${args.join(" ")}: exit ${r.code}, stderr ${r.stderr}`);
    assert.match(r.stderr, /^realtime-node: [^\n]+\n$/, `${args.join(" ")}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.equal(r.stdout, "");
  }
});

test("--help prints the usage and exits 0", () => {
  const r = run(["--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^usage: node server\.mjs --port N/);
});

test("a port in use: exit 1 with one line", async () => {
  const blocker = net.createServer();
  await new Promise((resolve) => blocker.listen(0, "127.0.0.1", () => resolve(undefined)));
  const port = /** @type {net.AddressInfo} */ (blocker.address()).port;
  const r = run(["--port", String(port)]);
  blocker.close();
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^realtime-node: cannot listen on 127\.0\.0\.1:\d+ \(http\): EADDRINUSE\n$/);
});

test("--encryption=yes serves HTTPS only, on --port", async () => {
  const server = await startServer(["--port", "0", "--encryption=yes"]);
  try {
    assert.match(server.plain ?? "", /^https:/);
    const r = await httpsRequest(`${server.plain}/text`);
    assert.equal(r.body, TEXT);
    await assert.rejects(fetch(`${(server.plain ?? "").replace("https:", "http:")}/health`));
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test("--write-dir appends each received text (HTTP, Socket.IO, WebSocket) to received.txt", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "realtime-write-"));
  const dir = path.join(tmp, "not", "yet"); // made at start
  const server = await startServer(["--port", "0", "--write-dir", dir]);
  try {
    const file = path.join(dir, "received.txt");
    assert.equal(fs.readFileSync(file, "utf8"), "");
    const n = 50;
    for (let i = 0; i < n; i++) assert.equal((await fetch(`${server.plain}/text`, { method: "POST", body: TEXT })).status, 204);
    assert.equal((await fetch(`${server.plain}/text`, { method: "POST", body: "bad" })).status, 400);
    assert.equal(fs.readFileSync(file, "utf8"), `${TEXT}\n`.repeat(n));

    const socket = io(server.plain, { transports: ["websocket"], reconnection: false, forceNew: true });
    socket.emit("upload-start");
    for (let i = 0; i < n; i++) socket.emit("text", TEXT);
    assert.deepEqual(await socket.timeout(5000).emitWithAck("upload-done"), { received: n, ok: true });
    socket.disconnect();
    assert.equal(fs.readFileSync(file, "utf8"), `${TEXT}\n`.repeat(2 * n));

    const ws = new WebSocket(`${server.plain.replace("http:", "ws:")}/ws`);
    await new Promise((resolve) => ws.once("open", resolve));
    const answer = new Promise((resolve) => ws.once("message", (d) => resolve(d.toString())));
    for (let i = 0; i < n; i++) ws.send(TEXT);
    ws.send("done");
    assert.equal(await answer, `ok ${n} 1`);
    ws.close();
    assert.equal(fs.readFileSync(file, "utf8"), `${TEXT}\n`.repeat(3 * n));
  } finally {
    assert.equal(await server.stop(), 0);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("SIGINT ends the server with 0 while a client is connected", async () => {
  const server = await startServer(["--port", "0"]);
  const ws = new WebSocket(`${server.plain?.replace("http:", "ws:")}/ws`);
  await new Promise((resolve) => ws.once("open", resolve));
  const closed = new Promise((resolve) => ws.once("close", resolve));
  const exited = new Promise((resolve) => server.child.once("exit", (code) => resolve(code)));
  server.child.kill("SIGINT");
  assert.equal(await exited, 0);
  await closed;
});
