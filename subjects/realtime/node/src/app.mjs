// The realtime lab's app, as the study "Comparison of WebSocket and HTTP protocol performance"
// built it: Express for HTTP, Socket.IO for WebSocket, and beside them a raw RFC 6455 endpoint
// (the `ws` package) without Socket.IO's framing. The API is described in ../README.md.
import fs from "node:fs";
import path from "node:path";
import bodyParser from "body-parser";
import express from "express";
import finalhandler from "finalhandler";
import Router from "router";
import serveStatic from "serve-static";
import { Server as SocketIoServer } from "socket.io";
import { WebSocketServer } from "ws";

/** The study's text: "1234567890" 10 times, 100 ASCII characters. */
export const TEXT = "1234567890".repeat(10);
/** The largest HTTP body, Socket.IO packet or WebSocket message accepted, in bytes (64 KiB). */
export const MAX_MESSAGE = 64 * 1024;
/** The largest N of one download. */
export const MAX_DOWNLOAD = 100_000;
/** Node's default request-header limit, set explicitly: 300 headers `nazwa-300: zawartosc` are ~6.3 KB. */
export const MAX_HEADER_SIZE = 16 * 1024;
/**
 * Header fields per request on the HTTP/2 port: HTTP/1.1's `maxHeadersCount` (2,000). Node's
 * HTTP/2 default, 128, would refuse the header sweep's 300 fields with ENHANCE_YOUR_CALM.
 */
export const MAX_HEADER_PAIRS = 2000;
/** The name of the file in --write-dir that every received text is appended to. */
export const WRITTEN_FILE = "received.txt";

/**
 * @typedef {(text: string) => void} Recorder  called with every received text equal to TEXT
 */

/**
 * Without `writeDir`, a recorder that writes nothing. With it, one that appends each text and a
 * newline to `writeDir/received.txt`, synchronously (open, write, close per text, as a plain
 * `fs.appendFileSync` in the study's app would), so the disk write is inside every message's
 * handling. The file is emptied at start.
 * @param {string | undefined} writeDir
 * @returns {{ record: Recorder, file: string | undefined }}
 */
export function createRecorder(writeDir) {
  if (writeDir === undefined) return { record: () => {}, file: undefined };
  fs.mkdirSync(writeDir, { recursive: true });
  const file = path.join(writeDir, WRITTEN_FILE);
  fs.writeFileSync(file, "");
  return { record: (text) => fs.appendFileSync(file, text + "\n"), file };
}

/** @param {unknown} body */
function describe(body) {
  if (typeof body !== "string") return "no text body";
  const shown = body.length > 20 ? `${JSON.stringify(body.slice(0, 20))}...` : JSON.stringify(body);
  return `${body.length} characters ${shown}`;
}

/** @typedef {import("node:http").IncomingMessage | import("node:http2").Http2ServerRequest} Request */
/** @typedef {import("node:http").ServerResponse | import("node:http2").Http2ServerResponse} Response */

/**
 * Answers with a text body. Node's own response API, which HTTP/1.1 and HTTP/2's compatibility
 * layer share, so one handler serves both.
 * @param {Response} res @param {number} status @param {string} body @param {Record<string, string>} [headers]
 */
function sendText(res, status, body, headers = {}) {
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/**
 * The HTTP API (health, GET and POST /text), the optional static files and the error answers, as
 * one router (Express 5's own, the `router` package) on Node's request and response alone: the
 * Express app mounts it for HTTP/1.1, and the HTTP/2 port runs it directly, since Express does
 * not run on Node's HTTP/2 (expressjs/express#5462).
 * @param {{ staticDir?: string, record: Recorder }} options
 */
export function createRoutes({ staticDir, record }) {
  const routes = Router();

  routes.get("/health", (/** @type {Request} */ _req, /** @type {Response} */ res) => sendText(res, 200, "ok"));

  // One download message.
  routes.get("/text", (/** @type {Request} */ _req, /** @type {Response} */ res) =>
    sendText(res, 200, TEXT, { "Cache-Control": "no-store" }),
  );

  // One upload message. Any Content-Type is read as text (the page sends text/plain); over 64 KiB
  // the body parser answers 413 (through the error handler below).
  routes.post(
    "/text",
    bodyParser.text({ type: () => true, limit: MAX_MESSAGE }),
    (/** @type {Request & { body?: unknown }} */ req, /** @type {Response} */ res) => {
      if (req.body !== TEXT) {
        sendText(res, 400, `the body must be the 100-character text, not ${describe(req.body)}\n`);
        return;
      }
      record(TEXT);
      res.writeHead(204);
      res.end();
    },
  );

  if (staticDir !== undefined) {
    // Cross-origin isolation for the page, so that its timers are precise. The app's own answers
    // are same-origin and need no Cross-Origin-Resource-Policy.
    routes.use(
      serveStatic(staticDir, {
        setHeaders(res) {
          res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
          res.setHeader("Cross-Origin-Embedder-Policy", "require-corp");
        },
      }),
    );
  }

  // Errors as one line of text, never an HTML page with a stack trace.
  routes.use(
    (
      /** @type {any} */ err,
      /** @type {Request} */ _req,
      /** @type {Response} */ res,
      /** @type {(err?: unknown) => void} */ next,
    ) => {
      if (res.headersSent) return next(err);
      const status = Number(err?.status ?? err?.statusCode);
      const code = Number.isInteger(status) && status >= 400 && status < 600 ? status : 500;
      let message;
      if (err?.type === "entity.too.large") message = `the body is over ${MAX_MESSAGE} bytes`;
      else if (code < 500) message = String(err?.message ?? "bad request").split("\n")[0];
      else {
        message = "internal error";
        console.error(`realtime-node: ${String(err?.stack ?? err)}`);
      }
      sendText(res, code, `${message}\n`);
    },
  );
  return routes;
}

/**
 * The Express app of the HTTP/1.1 servers (plain and TLS), as the study's: the routes mounted.
 * @param {ReturnType<typeof createRoutes>} routes
 */
export function createApp(routes) {
  const app = express();
  app.use(routes);
  return app;
}

/**
 * The handler of the HTTP/2 port (TLS, with HTTP/1.1 allowed by ALPN): HTTP/2 requests go to the
 * routes directly (unknown paths get `finalhandler`'s 404, as Express's), HTTP/1.1 requests to the
 * Express app, so only the protocol differs from the TLS port.
 * @param {ReturnType<typeof createRoutes>} routes
 * @param {import("express").Express} app
 */
export function http2Handler(routes, app) {
  return (/** @type {any} */ req, /** @type {any} */ res) => {
    if (req.httpVersionMajor < 2) return app(req, res);
    // HTTP/2 frames delimit a body, so Content-Length is optional; body-parser (type-is's
    // hasBody) would take a body without it for none. Such a body is read as HTTP/1.1 reads a
    // chunked one: to its end.
    const headers = req.headers;
    if (!req.stream.endAfterHeaders && headers["content-length"] === undefined) headers["transfer-encoding"] = "chunked";
    routes(req, res, finalhandler(req, res));
  };
}

/** The last argument if it is a function (a Socket.IO acknowledgement). @param {unknown[]} args */
function ackOf(args) {
  const last = args.at(-1);
  return typeof last === "function" ? /** @type {(answer: unknown) => void} */ (last) : undefined;
}

/**
 * Socket.IO on `server` (default path /socket.io/, default transports), its packets limited to
 * 64 KiB (a bigger one disconnects that client).
 * @param {import("node:http").Server} server
 * @param {Recorder} record
 */
export function attachSocketIo(server, record) {
  const io = new SocketIoServer(server, { maxHttpBufferSize: MAX_MESSAGE });
  io.on("connection", (socket) => {
    let received = 0;
    let ok = true;
    socket.on("upload-start", () => {
      received = 0;
      ok = true;
    });
    socket.on("text", (payload) => {
      received++;
      if (payload === TEXT) record(TEXT);
      else ok = false;
    });
    socket.on("upload-done", (...args) => {
      ackOf(args)?.({ received, ok });
    });
    socket.on("download", (...args) => {
      const ack = ackOf(args);
      const arg = typeof args[0] === "function" ? undefined : args[0];
      const n = arg !== null && typeof arg === "object" ? /** @type {{ n?: unknown }} */ (arg).n : undefined;
      if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_DOWNLOAD) {
        ack?.({ error: `download wants { n } with n an integer 1..${MAX_DOWNLOAD}, not ${JSON.stringify(n) ?? "none"}` });
        return;
      }
      for (let i = 0; i < n; i++) socket.emit("text", TEXT);
      ack?.({ sent: n }); // after the N texts: Socket.IO keeps the order
    });
  });
  return io;
}

/**
 * A raw WebSocket endpoint at `/ws` on `server` (messages limited to 64 KiB: a bigger one closes
 * that connection with 1009; invalid UTF-8 closes it with 1007). Upgrades to other paths but
 * /socket.io/ are refused with 404 at once.
 * @param {import("node:http").Server} server
 * @param {Recorder} record
 */
export function attachWs(server, record) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE });
  server.on("upgrade", (req, socket, head) => {
    const pathname = (req.url ?? "").split("?")[0];
    if (pathname === "/ws") wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
    else if (!pathname.startsWith("/socket.io/")) {
      // Socket.IO's own upgrade listener takes /socket.io/.
      socket.on("error", () => {});
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    }
  });
  wss.on("connection", (ws) => {
    let count = 0;
    let allEqual = true;
    // ws closes the connection itself on a protocol error (1009 too big, 1007 invalid UTF-8) and
    // then emits `error`: that concerns this connection only.
    ws.on("error", () => {});
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        ws.send("error binary frames are not accepted: send text frames");
        return;
      }
      const message = data.toString();
      if (message === TEXT) {
        count++;
        record(TEXT);
      } else if (message === "done") {
        ws.send(`ok ${count} ${allEqual ? 1 : 0}`);
        count = 0;
        allEqual = true;
      } else if (message === "download" || message.startsWith("download ")) {
        const m = /^download ([1-9]\d{0,5})$/.exec(message);
        const n = m ? Number(m[1]) : NaN;
        if (!(n <= MAX_DOWNLOAD)) {
          ws.send(`error download wants an integer 1..${MAX_DOWNLOAD}: \`download <n>\``);
          return;
        }
        for (let i = 0; i < n; i++) ws.send(TEXT);
      } else {
        // Any other text frame is an upload text that differs from TEXT.
        count++;
        allEqual = false;
      }
    });
  });
  return wss;
}
