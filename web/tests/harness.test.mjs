// @ts-check
// The browser harness (harness/browser.mjs) in each browser it drives, on a page served here: every
// line the page reports arrives, in order, before the page's "done"; a bad option is one line and
// exit 2; and the browser dies with the harness, even when the harness is SIGKILLed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const harness = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../harness/browser.mjs');
const BROWSERS = ['chromium', 'firefox'];
const LINES = 200;

// `/lab/?lines=K`: reports K lines, each awaited, then says it is done; `?lines=-1` reports one
// line and never finishes.
const PAGE = `<!doctype html><script>
const q = new URLSearchParams(location.search);
const k = Number(q.get('lines'));
(async () => {
  for (let i = 0; i < Math.max(k, 1); i++) await window.wirebenchReport(JSON.stringify({ i, runtime: q.get('runtime') }));
  if (k >= 0) await window.wirebenchDone();
})();
</script>`;

/** @type {import('node:http').Server} */ let server;
/** @type {string} */ let origin;

before(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(undefined)));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  origin = `http://127.0.0.1:${address.port}`;
});

after(() => server?.close());

/**
 * Runs the harness to its end (not spawnSync: the page's server runs in this process).
 * @param {string[]} args
 * @returns {Promise<{ status: number | null, stdout: string, stderr: string }>}
 */
function harnessRun(args) {
  const child = spawn('node', [harness, 'lab', '--origin', origin, ...args], { timeout: 120_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((ok) => child.on('close', (status) => ok({ status, stdout, stderr })));
}

/** The processes whose parent is `pid`. @param {number} pid */
function children(pid) {
  /** @type {number[]} */ const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: comm may hold spaces, so split after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

const alive = (/** @type {number} */ pid) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

for (const browser of BROWSERS) {
  test(`${browser}: every reported line arrives, in order, with the browser's version`, async () => {
    const run = await harnessRun(['--browser', browser, '--param', `lines=${LINES}`]);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => l.i),
      Array.from({ length: LINES }, (_, i) => i),
    );
    assert.match(lines[0].runtime, new RegExp(`^${browser}@\\d+\\.`));
  });

  test(`${browser}: the browser dies with a SIGKILLed harness`, async () => {
    const child = spawn('node', [harness, 'lab', '--origin', origin, '--browser', browser, '--param', 'lines=-1'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // Ready when the page has reported: the browser is up and running it.
    await new Promise((ok, err) => {
      child.stdout.once('data', ok);
      child.once('exit', (code) => err(new Error(`the harness exited (${code}) before the page reported`)));
    });
    const pid = /** @type {number} */ (child.pid);
    const browsers = children(pid);
    assert.ok(browsers.length > 0, 'the harness started a browser');
    child.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while (browsers.some(alive)) {
      assert.ok(Date.now() < deadline, `${browser} outlived the SIGKILLed harness: ${browsers.filter(alive)}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  });
}

test('bad options are one line and exit 2', async () => {
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--browser', 'edge'], /^browser-harness: --browser edge: expected one of chromium, firefox\n$/],
    [['--browser', 'firefox', '--cpu-throttle', '4'], /^browser-harness: --cpu-throttle needs Chromium: Firefox has no CPU throttling\n$/],
  ];
  for (const [args, message] of cases) {
    const run = await harnessRun(args);
    assert.equal(run.status, 2);
    assert.match(run.stderr, message);
  }
});
