// The main job, as the README gives it: `./build.sh example` serves the Notes
// example, loads Toolgate in Chromium and prints the palette. This runs the
// same script headless and checks the table says what docs/classes.md says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../examples/run.mjs', import.meta.url));

for (const native of [false, true]) {
  test(`the Notes example prints the seed's badges (${native ? 'native API' : 'polyfill'})`, async () => {
    const args = [script, '--headless', ...(native ? ['--native'] : [])];
    const { stdout } = await run(process.execPath, args, { timeout: 60_000 });
    const row = (tool) => stdout.split('\n').find((line) => line.includes(tool)) ?? '';
    assert.match(row('(list_notes)'), /List Notes \(list_notes\)\s+Read only\s/);
    assert.match(row('(add_note)'), /Add Note \(add_note\)\s+Mutating\s/);
    assert.match(row('(delete_note)'), /Delete Note \(delete_note\)\s+Consequential\s/);
    assert.match(row('(notes_house_style)'), /Notes House Style \(notes_house_style\)\s+Skill\s/);
    assert.match(row('pin_note'), /Mutating, off-site\s+declared nothing; registered on document.modelContext/);
    assert.match(row('export_notes'), /Consequential, off-site\s+declared nothing; registered on navigator.modelContext/);
    assert.match(row('find_note'), /Consequential, off-site\s+declared nothing; declared by a <form toolname>/);
    assert.equal(stdout.split('\n').filter((l) => l.startsWith('notes.localhost')).length, 10, 'ten rows');
  });
}
