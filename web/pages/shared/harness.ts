// What every browser lab's page shares: the functions the browser harness exposes to it
// (web/harness/browser.mjs) and the per-repeat shuffle of its rows.

declare global {
  interface Window {
    /** Set by the browser harness: one measurement line. */
    wirebenchReport?: (line: string) => Promise<void>;
    /** Set by the browser harness: the page is done (with an error, it failed). */
    wirebenchDone?: (error?: string) => Promise<void>;
  }
}

/** A deterministic shuffle (xorshift32) of 0..n-1 for one repeat, so rows do not share a slow phase. */
export function order(n: number, seed: number): number[] {
  const v = Array.from({ length: n }, (_, i) => i);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = n - 1; i > 0; i--) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const j = x % (i + 1);
    [v[i], v[j]] = [v[j]!, v[i]!];
  }
  return v;
}

/**
 * The rows a page's results table keeps. Its layout runs in the page's next frame, which may
 * fall inside the next timed call: a driven run's 2,000-row table made one WebSocket exchange
 * take 2.5 ms instead of 0.6 (and its p90 40 ms), and one GET 45 ms instead of 5.
 */
export const MAX_ROWS = 100;

/**
 * Resolves once the page has rendered what changed (the next frame, then one task), so that a
 * timer started next holds no layout or paint of the page's own results. A hidden page gets no
 * frames: it waits at most 100 ms.
 */
export function settle(): Promise<void> {
  return new Promise((ok) => {
    const done = () => setTimeout(ok, 0);
    const timeout = setTimeout(done, 100);
    requestAnimationFrame(() => {
      clearTimeout(timeout);
      done();
    });
  });
}

/**
 * Prepends a result to a page's table (the newest `MAX_ROWS` stay): the cells of a measurement,
 * or the scenario and the error across the table's other `width - 1` columns.
 */
export function showResult(tbody: HTMLElement, cells: readonly string[], error: boolean, width: number): void {
  const tr = document.createElement("tr");
  cells.forEach((text, i) => {
    const td = document.createElement("td");
    td.textContent = text;
    if (error && i === 1) {
      td.colSpan = width - 1;
      td.className = "error";
    }
    tr.append(td);
  });
  tbody.prepend(tr);
  while (tbody.childElementCount > MAX_ROWS) tbody.lastElementChild?.remove();
}
