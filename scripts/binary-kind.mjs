// Tells which system an executable is for, from its first bytes alone (no
// `file` command needed). `./build.sh test` checks with it the macOS builds of
// toolgate-mcp that nothing on this machine can run, and `./build.sh dist`
// every host it writes.
//
//   node scripts/binary-kind.mjs KIND FILE...
//
// exits 0 when every FILE is an executable of KIND, else names each that is
// not and what it is, and exits 1. The kinds are the names dist gives its
// files: macos-arm64, macos-x86_64, linux-x86_64, linux-aarch64, windows-x86_64.

import { closeSync, openSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";

// Mach-O: a 64-bit header (magic 0xfeedfacf) little-endian, then cputype.
const MACHO_64 = 0xfeedfacf;
const MH_EXECUTE = 2;
const MACHO_CPUS = { 0x0100000c: "macos-arm64", 0x01000007: "macos-x86_64" };
// ELF: 64-bit (class 2), little-endian (data 1), then e_machine.
const ET_EXEC = 2;
const ET_DYN = 3; // a position-independent executable is one of these
const ELF_MACHINES = { 62: "linux-x86_64", 183: "linux-aarch64" };
// PE: "MZ", the PE header's offset at 0x3c, "PE\0\0", then the machine.
const PE_MACHINES = { 0x8664: "windows-x86_64" };
const IMAGE_FILE_DLL = 0x2000;
const PE32_PLUS = 0x20b;

export const KINDS = [
  ...Object.values(MACHO_CPUS),
  ...Object.values(ELF_MACHINES),
  ...Object.values(PE_MACHINES),
];

/** How many of a file's first bytes `identify` reads. */
export const HEADER_BYTES = 4096;

const hex = (n) => `0x${n.toString(16)}`;

/**
 * What the header `bytes` (a Buffer of a file's first bytes) is: a kind of
 * KINDS, or `null` and a sentence saying what it is instead.
 */
export function identify(bytes) {
  const u16 = (at) => (at + 2 <= bytes.length ? bytes.readUInt16LE(at) : null);
  const u32 = (at) => (at + 4 <= bytes.length ? bytes.readUInt32LE(at) : null);
  if (u32(0) === MACHO_64) {
    const cpu = u32(4);
    const type = u32(12);
    if (type !== MH_EXECUTE) return { kind: null, what: `a Mach-O file of type ${type}, not an executable` };
    return MACHO_CPUS[cpu]
      ? { kind: MACHO_CPUS[cpu] }
      : { kind: null, what: `a Mach-O executable for cputype ${hex(cpu ?? 0)}` };
  }
  if (bytes.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) {
    if (bytes[4] !== 2 || bytes[5] !== 1) return { kind: null, what: "an ELF file, not 64-bit little-endian" };
    const type = u16(16);
    const machine = u16(18);
    if (type !== ET_EXEC && type !== ET_DYN) return { kind: null, what: `an ELF file of type ${type}, not an executable` };
    return ELF_MACHINES[machine]
      ? { kind: ELF_MACHINES[machine] }
      : { kind: null, what: `an ELF executable for e_machine ${machine}` };
  }
  if (bytes.subarray(0, 2).toString("latin1") === "MZ") {
    const pe = u32(0x3c);
    if (pe === null || pe + 26 > bytes.length || bytes.subarray(pe, pe + 4).toString("latin1") !== "PE\0\0") {
      return { kind: null, what: "an MZ file without a PE header" };
    }
    const machine = u16(pe + 4);
    if (u16(pe + 22) & IMAGE_FILE_DLL) return { kind: null, what: "a Windows DLL, not an executable" };
    if (u16(pe + 24) !== PE32_PLUS) return { kind: null, what: "a PE file that is not PE32+ (64-bit)" };
    return PE_MACHINES[machine]
      ? { kind: PE_MACHINES[machine] }
      : { kind: null, what: `a PE32+ executable for machine ${hex(machine)}` };
  }
  return { kind: null, what: `not an executable this knows (it starts ${bytes.subarray(0, 4).toString("hex") || "empty"})` };
}

/** The first HEADER_BYTES of the file at `path`. */
export function readHeader(path) {
  const fd = openSync(path, "r");
  try {
    const bytes = Buffer.alloc(HEADER_BYTES);
    return bytes.subarray(0, readSync(fd, bytes, 0, HEADER_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

/** Checks each of `paths` is of `kind`: the sentences saying which are not (none when all are). */
export function check(kind, paths) {
  if (!KINDS.includes(kind)) return [`${kind} is not a kind this knows (${KINDS.join(", ")})`];
  const wrong = [];
  for (const path of paths) {
    const { kind: found, what } = identify(readHeader(path));
    if (found !== kind) wrong.push(`${path} is ${found ?? what}, not ${kind}`);
  }
  return wrong;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [kind, ...paths] = process.argv.slice(2);
  if (!kind || paths.length === 0) {
    console.error(`usage: node scripts/binary-kind.mjs KIND FILE...\nKIND: ${KINDS.join(", ")}`);
    process.exit(2);
  }
  const wrong = check(kind, paths);
  for (const sentence of wrong) console.error(`binary-kind: ${sentence}`);
  if (wrong.length === 0) console.error(`binary-kind: ${paths.join(", ")}: ${kind}`);
  process.exit(wrong.length === 0 ? 0 : 1);
}
