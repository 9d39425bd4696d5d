// @ts-check
// Runs the smoke suite for real, serves its report.html on loopback and checks in Debian's
// Chromium that the tables and charts render and that the page fetches nothing else.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wirebench = path.join(root, 'target/release/wirebench');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** @type {string} */ let reportPath;
/** @type {import('node:http').Server} */ let server;
/** @type {string} */ let url;
/** Scenarios of the smoke suite as it ran (run.json's `parameters`). */
let scenarioCount = 0;

before(async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'wirebench-web-'));
  const run = spawnSync(wirebench, ['run', 'smoke', '--no-build', '--out', out], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, `wirebench run smoke failed (did \`make build\` run?): ${run.stderr}`);
  reportPath = run.stdout.trim().split('\n').pop() ?? '';
  assert.match(reportPath, /report\.html$/);
  const ran = JSON.parse(readFileSync(path.join(path.dirname(reportPath), 'run.json'), 'utf8'));
  scenarioCount = ran.parameters.scenarios.length;
  assert.ok(scenarioCount >= 10, `the smoke suite has ${scenarioCount} scenarios`);
  const html = readFileSync(reportPath);
  server = createServer((req, res) => {
    if (req.url === '/report.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  url = `http://127.0.0.1:${address.port}/report.html`;
});

after(() => server?.close());

test('the smoke report renders its tables and charts offline', async () => {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    /** @type {string[]} */ const requests = [];
    /** @type {string[]} */ const errors = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(url, { waitUntil: 'load' });

    assert.deepEqual(requests, [url], 'the report is self-contained: it fetches nothing but itself');
    assert.deepEqual(errors, []);

    const scenarioRows = await page.locator('table#scenarios tbody tr').count();
    assert.equal(scenarioRows, scenarioCount, 'one row per smoke scenario');
    const scenarioText = await page.locator('table#scenarios').innerText();
    for (const id of ['rest-h1-1kb', 'rest-h2c-1kb', 'rest-h1-tls-1kb', 'rest-h2-tls-1kb', 'rest-h2c-hol']) {
      assert.ok(scenarioText.includes(id), `scenarios table lists ${id}`);
    }
    const claims = await page.locator('table#claims tbody tr').count();
    assert.equal(claims, 1, 'the smoke claim is judged');
    // Any verdict the report gives (docs/METHODOLOGY.md, "Direction and size"), as its badge shows it.
    const verdict = /confirmed|differs in size|refuted|no difference|inconclusive|not judged|not run/;
    assert.match(await page.locator('table#claims').innerText(), verdict);
    assert.ok((await page.locator('#headline').innerText()).length > 0);

    const charts = page.locator('svg.chart');
    const n = await charts.count();
    assert.ok(n >= 2, `at least two charts, got ${n}`);
    for (let i = 0; i < n; i++) {
      const box = await charts.nth(i).boundingBox();
      assert.ok(box && box.width > 100 && box.height > 50, `chart ${i} is laid out: ${JSON.stringify(box)}`);
      const marks = await charts.nth(i).locator('rect, path, line, polyline, circle').count();
      assert.ok(marks > 3, `chart ${i} draws marks`);
    }
    mkdirSync(path.join(root, 'web/test-results'), { recursive: true });
    await page.screenshot({ path: path.join(root, 'web/test-results/report.png'), fullPage: true });
  } finally {
    await browser.close();
  }
});
