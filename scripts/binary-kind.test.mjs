// The header check `./build.sh test` runs on the macOS builds
// (scripts/binary-kind.mjs): each kind it accepts, and the wrong files it
// must refuse. `node --test scripts/binary-kind.test.mjs`.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { check, identify, KINDS } from "./binary-kind.mjs";

const SCRIPT = fileURLToPath(new URL("./binary-kind.mjs", import.meta.url));

/** A Mach-O 64-bit header: magic, cputype, cpusubtype, filetype. */
function macho(cpu, filetype = 2) {
  const b = Buffer.alloc(32);
  b.writeUInt32LE(0xfeedfacf, 0);
  b.writeUInt32LE(cpu, 4);
  b.writeUInt32LE(filetype, 12);
  return b;
}

/** An ELF header: class, data, e_type, e_machine. */
function elf(machine, { type = 3, elfClass = 2, data = 1 } = {}) {
  const b = Buffer.alloc(64);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, elfClass, data, 1]).copy(b);
  b.writeUInt16LE(type, 16);
  b.writeUInt16LE(machine, 18);
  return b;
}

/** An MZ stub pointing at a PE header: machine, characteristics, optional header magic. */
function pe(machine, { characteristics = 0x22, magic = 0x20b } = {}) {
  const b = Buffer.alloc(0x80 + 26);
  b.write("MZ", 0, "latin1");
  b.writeUInt32LE(0x80, 0x3c);
  b.write("PE\0\0", 0x80, "latin1");
  b.writeUInt16LE(machine, 0x84);
  b.writeUInt16LE(characteristics, 0x80 + 22);
  b.writeUInt16LE(magic, 0x80 + 24);
  return b;
}

test("each kind is told from its header", () => {
  const cases = [
    [macho(0x0100000c), "macos-arm64"],
    [macho(0x01000007), "macos-x86_64"],
    [elf(183), "linux-aarch64"],
    [elf(62), "linux-x86_64"],
    [elf(62, { type: 2 }), "linux-x86_64"],
    [pe(0x8664), "windows-x86_64"],
  ];
  for (const [bytes, kind] of cases) assert.equal(identify(bytes).kind, kind);
  // Every kind is among them.
  assert.deepEqual(new Set(cases.map(([, kind]) => kind)), new Set(KINDS));
});

test("what is not an executable of a known kind is refused, saying what it is", () => {
  const cases = [
    [macho(0x0100000c, 6), /Mach-O file of type 6/], // a dylib
    [macho(0x00000012), /cputype 0x12/], // PowerPC
    [elf(183, { elfClass: 1 }), /not 64-bit/],
    [elf(183, { data: 2 }), /not 64-bit little-endian/],
    [elf(183, { type: 1 }), /type 1, not an executable/], // an object file
    [elf(40), /e_machine 40/], // 32-bit ARM
    [pe(0x8664, { characteristics: 0x2022 }), /DLL/],
    [pe(0x14c, { magic: 0x10b }), /not PE32\+/],
    [pe(0xaa64), /machine 0xaa64/],
    [Buffer.from("MZ"), /without a PE header/],
    [Buffer.from("#!/bin/sh\n"), /starts 23212f62/],
    [Buffer.alloc(0), /empty/],
    // Mach-O's big-endian and fat (universal) magics are not what zig writes.
    [Buffer.from([0xfe, 0xed, 0xfa, 0xcf, 1, 0, 0, 0xc]), /not an executable this knows/],
    [Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]), /not an executable this knows/],
  ];
  for (const [bytes, what] of cases) {
    const found = identify(bytes);
    assert.equal(found.kind, null, what.source);
    assert.match(found.what, what);
  }
});

test("the right architecture in the wrong format, or the reverse, fails", () => {
  const dir = mkdtempSync(join(tmpdir(), "binary-kind-"));
  try {
    const arm = join(dir, "arm");
    const linux = join(dir, "linux");
    writeFileSync(arm, macho(0x0100000c));
    writeFileSync(linux, elf(183));
    assert.deepEqual(check("macos-arm64", [arm]), []);
    assert.deepEqual(check("macos-x86_64", [arm]), [`${arm} is macos-arm64, not macos-x86_64`]);
    assert.deepEqual(check("macos-arm64", [linux, arm]), [`${linux} is linux-aarch64, not macos-arm64`]);
    // This machine's node is no Mach-O.
    assert.equal(check("macos-arm64", [process.execPath]).length, 1);
    assert.match(check("macos", [arm])[0], /not a kind this knows/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the command exits 1 naming each wrong file, 0 when all are right", () => {
  const dir = mkdtempSync(join(tmpdir(), "binary-kind-"));
  try {
    const a = join(dir, "a");
    const b = join(dir, "b");
    writeFileSync(a, macho(0x01000007));
    writeFileSync(b, macho(0x0100000c));
    const run = (...args) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });
    assert.equal(run("macos-x86_64", a).status, 0);
    const wrong = run("macos-x86_64", a, b);
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /\/b is macos-arm64, not macos-x86_64/);
    assert.doesNotMatch(wrong.stderr, /\/a is/);
    assert.equal(run("macos-x86_64").status, 2);
    assert.notEqual(run("macos-x86_64", join(dir, "missing")).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
