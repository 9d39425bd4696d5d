// A child for child-pool.test.ts: reports cases from its start index and misbehaves on purpose
// at one case. Arguments: <start> <mode> <at> <cases>, where mode is
//   finish  report every case, then exit 0
//   exit    exit 1 (after a line on stderr) when case <at> is due
//   signal  kill itself with SIGKILL when case <at> is due
//   fatal   write a V8-style FATAL ERROR line and exit 134 when case <at> is due
//   hang    spin forever when case <at> is due

import { childStart, report } from "./child-pool.js";

const start = childStart();
const [mode, at, cases] = process.argv.slice(3);

for (let index = start; index < Number(cases); index++) {
  if (index === Number(at)) {
    if (mode === "exit") {
      process.stderr.write(`TypeError: fixture broke at case ${index}\n    at fixture.js:1:1\n`);
      process.exit(1);
    }
    if (mode === "signal") process.kill(process.pid, "SIGKILL");
    if (mode === "fatal") {
      process.stderr.write("\n<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n");
      process.exit(134);
    }
    if (mode === "hang") for (;;);
  }
  await report({ index, square: index * index });
}
