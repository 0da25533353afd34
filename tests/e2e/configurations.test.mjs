// The table that says where each end-to-end file runs (tests/README.md,
// "Where each file runs"), as build.sh reads it through
// tests/support/configurations.mjs: a file without a row, a row for no file,
// a row that marks nothing or a cell that is neither ✓ nor empty stops the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIGURATIONS, checkTable, readTable } from '../support/configurations.mjs';

const README = (rows) => `# Tests\n\n## Where each file runs\n\nSome words.\n\n| file | 148 | 156 | 148 native | 156 native | why there |\n|---|---|---|---|---|---|\n${rows.join('\n')}\n\nMore words.\n`;

test('the table in tests/README.md has a row, with a configuration, for every file in tests/e2e/', () => {
  const table = readTable();
  checkTable(table);
  const files = readdirSync(fileURLToPath(new URL('.', import.meta.url))).filter((f) => f.endsWith('.test.mjs'));
  assert.deepEqual([...table.keys()].sort(), files.sort());
  for (const marked of table.values()) assert.ok([...marked].every((c) => CONFIGURATIONS.includes(c)));
});

test('a row says its configurations; a missing row, a stray row, a row of nothing or a bad cell is an error', () => {
  const table = readTable(README(['| `a.test.mjs` | ✓ | ✓ | | | both |', '| `b.test.mjs` | | ✓ | | | once |']));
  assert.deepEqual(Object.fromEntries([...table].map(([f, m]) => [f, [...m]])), { 'a.test.mjs': ['148', '156'], 'b.test.mjs': ['156'] });
  assert.throws(() => checkTable(table, ['a.test.mjs', 'b.test.mjs', 'c.test.mjs']), /no row for c\.test\.mjs/);
  assert.throws(() => checkTable(table, ['a.test.mjs']), /rows for files that are not in tests\/e2e\/: b\.test\.mjs/);
  assert.throws(() => checkTable(readTable(README(['| `a.test.mjs` | | | | | nowhere |'])), ['a.test.mjs']), /a\.test\.mjs would run nowhere/);
  assert.throws(() => readTable(README(['| `a.test.mjs` | yes | | | | |'])), /neither ✓ nor empty/);
  assert.throws(() => readTable(README(['| `a.test.mjs` | ✓ | | | | |', '| `a.test.mjs` | ✓ | | | | |'])), /two rows/);
  assert.throws(() => readTable('# Tests\n'), /no "## Where each file runs" section/);
});
