// A `node --test` reporter: how long each end-to-end file took, in seconds,
// one line a file, longest first (the sum of its top-level tests and suites).
// build.sh writes it beside each configuration's TAP
// (`target/e2e-<configuration>-times.txt`); tests/README.md's table of files
// takes its "seconds" from these.
import { basename } from 'node:path';

export default async function* fileTimes(source) {
  const seconds = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const file = basename(event.data.file);
      seconds.set(file, (seconds.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0) / 1000);
    }
  }
  for (const [file, s] of [...seconds].sort((a, b) => b[1] - a[1])) yield `${file} ${s.toFixed(0)}\n`;
}
