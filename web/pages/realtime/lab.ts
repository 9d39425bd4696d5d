// The realtime lab in the browser (study "Comparison of WebSocket and HTTP protocol
// performance"): N copies of a 100-character text sent to or received from the study's app
// (subjects/realtime: Express, Socket.IO, and a raw RFC 6455 endpoint) over HTTP GET/POST,
// Socket.IO and raw WebSocket, timed with performance.now() on the page the app itself serves.
//
// The clock: by default it starts with the first message on a connection that is already open
// (HTTP: a keep-alive connection warmed by the previous call; WebSocket and Socket.IO: after the
// handshake). The `connect` rows start it before opening the WebSocket or Socket.IO connection,
// so the handshake is inside. Every call checks what arrived (each text, the server's count)
// before its time counts.

import { io } from "socket.io-client";
import type { Socket } from "socket.io-client";

export const TEXT = "1234567890".repeat(10);

export type Protocol = "http" | "socketio" | "ws";
export type Direction = "upload" | "download";

export interface Scenario {
  protocol: Protocol;
  direction: Direction;
  n: number;
  /** Extra request headers (HTTP only): `nazwa-i: zawartosc`, as the study. */
  headers: number;
  /** HTTP: all N requests at once, so the browser uses its parallel connections. */
  parallel: boolean;
  /** WebSocket and Socket.IO: the handshake inside the clock. */
  connect: boolean;
}

/** Profiles: the study's N (1 … 3000), its header counts (10 … 300 at N = 100). */
export const SIZES: Readonly<Record<string, readonly number[]>> = {
  smoke: [1, 10],
  quick: [1, 3, 10, 30, 100, 300, 1000],
  full: [1, 3, 10, 30, 100, 300, 1000, 3000],
};
export const HEADERS: Readonly<Record<string, readonly number[]>> = {
  smoke: [10],
  quick: [10, 50, 100, 200, 300],
  full: [10, 50, 100, 200, 300],
};

/** The study's names: HTTP GET is its download, POST its upload; WebSocket "send" and "receive". */
export function scenarioId(s: Scenario, suffix: string): string {
  const verb =
    s.protocol === "http"
      ? s.direction === "download"
        ? "http-get"
        : "http-post"
      : `${s.protocol}-${s.direction === "download" ? "receive" : "send"}`;
  const extra = [s.parallel ? "parallel" : "", s.connect ? "connect" : "", s.headers ? `h${s.headers}` : ""]
    .filter(Boolean)
    .map((x) => `-${x}`)
    .join("");
  return `${verb}${extra}-n${s.n}${suffix}`;
}

/**
 * Every scenario of a set: `all` (the N sweep of each protocol and direction, parallel HTTP,
 * the handshake variants, the header sweep), `core` (the N sweep alone, for the TLS, slow
 * client and disk runs) or `http` (HTTP's N sweep, sequential and parallel, and the header
 * sweep: for the HTTP/2 origin, where WebSocket would still go over HTTP/1.1). `maxN` leaves
 * out the profile's larger N: across a link of 80 ms, 1,000 sequential requests take 80 s a
 * call.
 */
export function scenarios(profile: string, set: string, maxN = Infinity): Scenario[] {
  const sizes = (SIZES[profile] ?? SIZES["quick"]!).filter((n) => n <= maxN);
  if (sizes.length === 0) throw new Error(`max_n ${maxN} leaves no N of profile ${profile}`);
  const protocols: readonly Protocol[] = set === "http" ? ["http"] : ["http", "socketio", "ws"];
  const variants = set !== "core";
  const out: Scenario[] = [];
  const add = (protocol: Protocol, direction: Direction, n: number, more: Partial<Scenario> = {}) =>
    out.push({ protocol, direction, n, headers: 0, parallel: false, connect: false, ...more });
  for (const n of sizes)
    for (const protocol of protocols)
      for (const direction of ["upload", "download"] as const) {
        add(protocol, direction, n);
        if (!variants) continue;
        if (protocol === "http" && n > 1) add(protocol, direction, n, { parallel: true });
        if (protocol !== "http") add(protocol, direction, n, { connect: true });
      }
  if (variants) {
    const n = sizes.includes(100) ? 100 : sizes[sizes.length - 1]!;
    for (const headers of HEADERS[profile] ?? HEADERS["quick"]!)
      for (const direction of ["upload", "download"] as const) add("http", direction, n, { headers });
  }
  return out;
}

function extraHeaders(count: number): Record<string, string> {
  const h: Record<string, string> = {};
  for (let i = 1; i <= count; i++) h[`nazwa-${i}`] = "zawartosc";
  return h;
}

async function httpOnce(s: Scenario, headers: Record<string, string>): Promise<void> {
  if (s.direction === "download") {
    const r = await fetch("/text", { headers, cache: "no-store" });
    const body = await r.text();
    if (r.status !== 200 || body !== TEXT) throw new Error(`GET /text answered ${r.status} with ${body.length} characters`);
  } else {
    const r = await fetch("/text", { method: "POST", body: TEXT, headers: { ...headers, "content-type": "text/plain" } });
    await r.arrayBuffer();
    if (r.status !== 204) throw new Error(`POST /text answered ${r.status}`);
  }
}

async function http(s: Scenario, now: () => number): Promise<number> {
  const headers = extraHeaders(s.headers);
  // One request first, so a keep-alive connection is open when the clock starts.
  await httpOnce(s, headers);
  const t = now();
  if (s.parallel) await Promise.all(Array.from({ length: s.n }, () => httpOnce(s, headers)));
  else for (let i = 0; i < s.n; i++) await httpOnce(s, headers);
  return now() - t;
}

function wsUrl(): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

function openWs(): Promise<WebSocket> {
  return new Promise((ok, err) => {
    const ws = new WebSocket(wsUrl());
    ws.onopen = () => ok(ws);
    ws.onerror = () => err(new Error(`cannot open ${wsUrl()}`));
  });
}

/** Resolves with the next `count` messages of `ws`. */
function nextMessages(ws: WebSocket, count: number): Promise<string[]> {
  return new Promise((ok, err) => {
    const got: string[] = [];
    ws.onmessage = (e) => {
      got.push(String(e.data));
      if (got.length === count) ok(got);
    };
    ws.onclose = (e) => err(new Error(`the WebSocket closed (${e.code}) after ${got.length} of ${count} messages`));
  });
}

async function rawWs(s: Scenario, now: () => number, kept: { ws?: WebSocket }): Promise<number> {
  const t0 = now();
  const ws = s.connect || !kept.ws || kept.ws.readyState !== WebSocket.OPEN ? await openWs() : kept.ws;
  if (!s.connect) kept.ws = ws;
  const t = s.connect ? t0 : now();
  if (s.direction === "upload") {
    const answer = nextMessages(ws, 1);
    for (let i = 0; i < s.n; i++) ws.send(TEXT);
    ws.send("done");
    const [line] = await answer;
    const elapsed = now() - t;
    if (line !== `ok ${s.n} 1`) throw new Error(`the server answered \`${line}\` to ${s.n} texts`);
    if (s.connect) ws.close();
    return elapsed;
  }
  const answer = nextMessages(ws, s.n);
  ws.send(`download ${s.n}`);
  const texts = await answer;
  const elapsed = now() - t;
  if (texts.some((x) => x !== TEXT)) throw new Error("a received text differs from the sent one");
  if (s.connect) ws.close();
  return elapsed;
}

function openSocket(): Promise<Socket> {
  return new Promise((ok, err) => {
    // WebSocket from the start: Socket.IO's default first connects by HTTP long-polling.
    const socket = io({ transports: ["websocket"], reconnection: false });
    socket.once("connect", () => ok(socket));
    socket.once("connect_error", (e) => err(new Error(`Socket.IO cannot connect: ${e.message}`)));
  });
}

async function socketIo(s: Scenario, now: () => number, kept: { socket?: Socket }): Promise<number> {
  const t0 = now();
  const socket = s.connect || !kept.socket?.connected ? await openSocket() : kept.socket;
  if (!s.connect) kept.socket = socket;
  const t = s.connect ? t0 : now();
  let elapsed: number;
  if (s.direction === "upload") {
    socket.emit("upload-start");
    for (let i = 0; i < s.n; i++) socket.emit("text", TEXT);
    const ack = (await socket.timeout(60_000).emitWithAck("upload-done")) as { received: number; ok: boolean };
    elapsed = now() - t;
    if (ack.received !== s.n || !ack.ok) throw new Error(`the server received ${ack.received} of ${s.n} texts (ok: ${ack.ok})`);
  } else {
    let count = 0;
    let wrong = 0;
    const onText = (x: string) => {
      count++;
      if (x !== TEXT) wrong++;
    };
    socket.on("text", onText);
    const ack = (await socket.timeout(60_000).emitWithAck("download", { n: s.n })) as { sent?: number; error?: string };
    elapsed = now() - t;
    socket.off("text", onText);
    if (ack.error) throw new Error(`download: ${ack.error}`);
    if (count !== s.n || wrong > 0) throw new Error(`received ${count} of ${s.n} texts, ${wrong} wrong`);
  }
  if (s.connect) socket.disconnect();
  return elapsed;
}

/** Connections kept open between calls of the rows that do not time the handshake. */
export interface Kept {
  ws?: WebSocket;
  socket?: Socket;
}

/** One timed call: milliseconds for N messages, verified. */
export function measure(s: Scenario, now: () => number, kept: Kept): Promise<number> {
  switch (s.protocol) {
    case "http":
      return http(s, now);
    case "ws":
      return rawWs(s, now, kept);
    case "socketio":
      return socketIo(s, now, kept);
  }
}
