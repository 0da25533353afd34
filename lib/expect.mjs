// `--expect` files (docs/ci.md): a JSON or YAML mapping of tool name to the
// class it should have ("Read only", "Mutating", "Consequential", or "Skill").
import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import YAML from 'yaml';
import { CLASSES } from './tools.mjs';

export class ExpectFileError extends Error {}

const isYaml = (file) => ['.yaml', '.yml'].includes(extname(file).toLowerCase());

// The mapping in `file` as a Map, in its order; throws ExpectFileError
// saying what is wrong (a missing file, bad syntax, a value not a class).
export async function readExpect(file) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ExpectFileError(`cannot read the expect file ${file}: ${error.code === 'ENOENT' ? 'there is no such file' : error.message}`);
  }
  let value;
  try {
    // YAML is a superset of JSON: one parser reads both.
    value = YAML.parse(text, { uniqueKeys: true });
  } catch (error) {
    throw new ExpectFileError(`the expect file ${file} is not ${isYaml(file) ? 'YAML' : 'JSON or YAML'}: ${error.message.split('\n')[0]}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ExpectFileError(`the expect file ${file} must map tool names to classes, as {"list_notes": "Read only"}`);
  }
  const expected = new Map();
  for (const [name, cls] of Object.entries(value)) {
    if (!CLASSES.includes(cls)) {
      throw new ExpectFileError(`the expect file ${file} gives ${name} the class ${JSON.stringify(cls)}; a class is one of ${CLASSES.map((c) => JSON.stringify(c)).join(', ')}`);
    }
    expected.set(name, cls);
  }
  return expected;
}

// Writes `classes` (a Map of name to class) to `file`: YAML for a .yaml or
// .yml file, else JSON.
export async function writeExpect(file, classes) {
  const value = Object.fromEntries(classes);
  await writeFile(file, isYaml(file) ? YAML.stringify(value) : `${JSON.stringify(value, null, 2)}\n`);
}
