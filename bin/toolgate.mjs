#!/usr/bin/env node
// The `toolgate` command (docs/ci.md): `toolgate check URL...`.
import { readFileSync } from 'node:fs';
import { check, EXIT, USAGE } from '../lib/check.mjs';

const [command, ...rest] = process.argv.slice(2);
if (command === 'check') {
  process.exitCode = await check(rest);
} else if (command === '--version') {
  console.log(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
} else if (command === '--help' || command === 'help' || command === undefined) {
  console.log(USAGE);
  if (command === undefined) process.exitCode = EXIT.usage;
} else {
  console.error(`toolgate: there is no command ${command}\n\n${USAGE}`);
  process.exitCode = EXIT.usage;
}
