// Which end-to-end files run in which configuration: read from the table
// "Where each file runs" in tests/README.md, the one place that says it.
// build.sh asks this for each configuration's files:
//
//   node tests/support/configurations.mjs --check        -> the table is whole, and
//                                                           its configurations, one a line
//   node tests/support/configurations.mjs "156 native"   -> tests/e2e/… one a line
//
// Every file in tests/e2e/ must have a row, and every row must mark at least
// one configuration: a file missing from the table would silently run nowhere.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const E2E = fileURLToPath(new URL('../e2e/', import.meta.url));
export const CONFIGURATIONS = ['148', '156', '148 native', '156 native'];
const HEADING = '## Where each file runs';

// { file: Set of configurations } from the table's rows.
export function readTable(text = readFileSync(README, 'utf8')) {
  const start = text.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`tests/README.md has no "${HEADING}" section`);
  const lines = text.slice(start + HEADING.length + 2).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  const rows = lines.slice(first, end < 0 ? undefined : end);
  const cells = (line) => line.split('|').slice(1, -1).map((c) => c.trim());
  const header = cells(rows[0]);
  for (const config of CONFIGURATIONS) {
    if (!header.includes(config)) throw new Error(`the table "${HEADING}" has no column "${config}"`);
  }
  const table = new Map();
  for (const row of rows.slice(2)) {
    const values = cells(row);
    const file = /^`([\w.-]+\.test\.mjs)`$/.exec(values[0])?.[1];
    if (!file) throw new Error(`a row of "${HEADING}" names no test file: ${row}`);
    if (table.has(file)) throw new Error(`${file} has two rows in "${HEADING}"`);
    const marked = new Set();
    for (const config of CONFIGURATIONS) {
      const cell = values[header.indexOf(config)];
      if (cell === '✓') marked.add(config);
      else if (cell !== '') throw new Error(`${file}, column "${config}": "${cell}" is neither ✓ nor empty`);
    }
    table.set(file, marked);
  }
  return table;
}

// Throws unless every file in tests/e2e/ has a row that marks a configuration,
// and every row names a file that is there.
export function checkTable(table = readTable(), files = readdirSync(E2E).filter((f) => f.endsWith('.test.mjs'))) {
  const missing = files.filter((f) => !table.has(f));
  if (missing.length) throw new Error(`tests/README.md, "${HEADING}": no row for ${missing.join(', ')}`);
  const gone = [...table.keys()].filter((f) => !files.includes(f));
  if (gone.length) throw new Error(`tests/README.md, "${HEADING}": rows for files that are not in tests/e2e/: ${gone.join(', ')}`);
  const nowhere = [...table].filter(([, marked]) => marked.size === 0).map(([f]) => f);
  if (nowhere.length) throw new Error(`tests/README.md, "${HEADING}": ${nowhere.join(', ')} would run nowhere`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const table = readTable();
    checkTable(table);
    const wanted = process.argv[2];
    if (wanted === '--check') {
      for (const config of CONFIGURATIONS) console.log(config);
    } else {
      if (!CONFIGURATIONS.includes(wanted)) throw new Error(`usage: configurations.mjs (--check | ${CONFIGURATIONS.map((c) => `"${c}"`).join(' | ')})`);
      for (const [file, marked] of table) if (marked.has(wanted)) console.log(`tests/e2e/${file}`);
    }
  } catch (error) {
    console.error(`configurations.mjs: ${error.message}`);
    process.exit(1);
  }
}
