// HTTP API over the plain port, the TLS port and the static files.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { extraHeaders, httpsRequest, startServer, TEXT } from "./helpers.mjs";

const staticDir = fs.mkdtempSync(path.join(os.tmpdir(), "realtime-static-"));
fs.mkdirSync(path.join(staticDir, "realtime"));
fs.writeFileSync(path.join(staticDir, "realtime", "index.html"), "<!doctype html><title>realtime</title>\n");

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
before(async () => {
  server = await startServer(["--port", "0", "--tls-port", "0", "--static", staticDir]);
});
after(async () => {
  assert.equal(await server.stop(), 0, "SIGTERM ends the server with 0");
  fs.rmSync(staticDir, { recursive: true, force: true });
});

describe("plain HTTP", () => {
  test("GET /health is 200 ok", async () => {
    const r = await fetch(`${server.plain}/health`);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), "ok");
  });

  test("GET /text is the text, text/plain, no-store, kept alive", async () => {
    const r = await fetch(`${server.plain}/text`);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), TEXT);
    assert.match(r.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(r.headers.get("cache-control"), "no-store");
    assert.equal(r.headers.get("content-encoding"), null);
    assert.equal(r.headers.get("connection"), "keep-alive");
  });

  test("POST /text with the text is 204", async () => {
    const r = await fetch(`${server.plain}/text`, { method: "POST", body: TEXT, headers: { "content-type": "text/plain" } });
    assert.equal(r.status, 204);
    assert.equal(await r.text(), "");
  });

  test("POST /text with another body is 400 with one line", async () => {
    for (const body of ["hello", TEXT + "1", ""]) {
      const r = await fetch(`${server.plain}/text`, { method: "POST", body, headers: { "content-type": "text/plain" } });
      assert.equal(r.status, 400, `body ${JSON.stringify(body)}`);
      const text = await r.text();
      assert.match(text, /^[^\n]+\n$/);
    }
  });

  test("POST /text over 64 KiB is 413, and the server keeps serving", async () => {
    const r = await fetch(`${server.plain}/text`, { method: "POST", body: "x".repeat(64 * 1024 + 1), headers: { "content-type": "text/plain" } });
    assert.equal(r.status, 413);
    assert.match(await r.text(), /^the body is over 65536 bytes\n$/);
    const ok = await fetch(`${server.plain}/text`, { method: "POST", body: TEXT });
    assert.equal(ok.status, 204);
  });

  test("300 extra request headers are accepted on GET and POST", async () => {
    const headers = extraHeaders(300);
    const bytes = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    assert.ok(bytes > 6000 && bytes < 16 * 1024, `${bytes} bytes of headers`);
    const get = await fetch(`${server.plain}/text`, { headers });
    assert.equal(get.status, 200);
    assert.equal(await get.text(), TEXT);
    const post = await fetch(`${server.plain}/text`, { method: "POST", body: TEXT, headers: { ...headers, "content-type": "text/plain" } });
    assert.equal(post.status, 204);
  });

  test("static files with COOP and COEP", async () => {
    const r = await fetch(`${server.plain}/realtime/`);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /<title>realtime<\/title>/);
    assert.equal(r.headers.get("cross-origin-opener-policy"), "same-origin");
    assert.equal(r.headers.get("cross-origin-embedder-policy"), "require-corp");
    const redirect = await fetch(`${server.plain}/realtime`, { redirect: "manual" });
    assert.equal(redirect.status, 301);
    assert.equal((await fetch(`${server.plain}/nothing-here`)).status, 404);
  });
});

describe("TLS port", () => {
  test("GET /text over HTTPS with the self-signed certificate", async () => {
    const r = await httpsRequest(`${server.tls}/text`);
    assert.equal(r.status, 200);
    assert.equal(r.body, TEXT);
    assert.match(r.cert.subjectaltname ?? "", /IP Address:127\.0\.0\.1/);
    assert.match(r.cert.subjectaltname ?? "", /DNS:localhost/);
  });

  test("POST /text over HTTPS", async () => {
    const r = await httpsRequest(`${server.tls}/text`, { method: "POST", body: TEXT });
    assert.equal(r.status, 204);
  });
});
