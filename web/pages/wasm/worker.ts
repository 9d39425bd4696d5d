// The lab's Web Worker: runs one worker-kernel row per message on this thread, the timer around
// the kernel alone as in the study's workers (Listings 5.11 and 5.12), and answers with the
// timing and the result. The page checks the result and times the round trip.

import { runHere } from "./lab.js";
import type { WorkerAnswer, WorkerRequest } from "./lab.js";

const scope = self as unknown as { onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null; postMessage(a: WorkerAnswer): void };
const noImage = new Uint8ClampedArray(0);

scope.onmessage = (e) => {
  const { row, array } = e.data;
  runHere(row, { width: 0, height: 0, len: array.length }, noImage, array, () => performance.now()).then(
    (timing) => scope.postMessage({ ok: true, timing }),
    (err: unknown) => scope.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
};
