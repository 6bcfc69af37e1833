/**
 * The install's build of the native programs (src/native/build.mjs), run on a
 * copy of src/native with the real compiler: each is linked statically when
 * libc.a is there, and linked dynamically when the static link fails (a cc
 * that refuses -static stands in for a machine without libc.a): the install
 * never fails for it. musl-gcc comes first when it is on PATH: its static
 * binaries keep a small part of the text a static glibc one keeps resident.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_PATH, testEnv } from '../helpers/test-env.js';

const NATIVE = fileURLToPath(new URL('../../src/native', import.meta.url));
const cc = process.env.CC || 'cc';
const hasCc = spawnSync(cc, ['--version']).status === 0;
const hasStatic = hasCc && spawnSync(cc, ['-static', '-x', 'c', '-o', '/dev/null', '-'], { input: 'int main(void){return 0;}' }).status === 0;

const hasMusl = spawnSync('musl-gcc', ['--version'], { env: testEnv() }).status === 0;

/** The ELF64 (little-endian) program headers of the file at `path`: type, flags and bytes in the file of each. */
function segments(path: string): Array<{ type: number; flags: number; filesz: number }> {
  const elf = readFileSync(path);
  // The program headers at e_phoff, e_phnum of e_phentsize bytes each.
  const phoff = Number(elf.readBigUInt64LE(0x20));
  const size = elf.readUInt16LE(0x36);
  const count = elf.readUInt16LE(0x38);
  return Array.from({ length: count }, (_, i) => {
    const at = phoff + i * size;
    return { type: elf.readUInt32LE(at), flags: elf.readUInt32LE(at + 4), filesz: Number(elf.readBigUInt64LE(at + 0x20)) };
  });
}

/** True when the ELF file at `path` asks for a program interpreter (PT_INTERP, type 3): a dynamically linked program. */
function dynamic(path: string): boolean {
  return segments(path).some((s) => s.type === 3);
}

/** Bytes of the file's executable loaded segments (PT_LOAD with PF_X): the text a run faults in around what it touches. */
function text(path: string): number {
  return segments(path).filter((s) => s.type === 1 && (s.flags & 1) !== 0).reduce((sum, s) => sum + s.filesz, 0);
}

/**
 * A folder holding `names`, each a stand-in compiler that appends its
 * arguments to `<name>.log` there and runs the real one of that name (or cc
 * when the machine has none), so the build's PATH can be that folder alone.
 */
function fakeCompilers(names: string[]): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const name of names) {
    const real = name === 'musl-gcc' && !hasMusl ? 'cc' : name;
    writeFileSync(join(bin, name), `#!/bin/sh\necho "$*" >> '${join(bin, `${name}.log`)}'\nPATH='${TEST_PATH}' exec ${real} "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

/** The argument lines the stand-in `name` in `bin` was run with. */
function calls(bin: string, name: string): string[] {
  const log = join(bin, `${name}.log`);
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
}

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-native-build-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs build.mjs on a fresh copy of src/native (without its build), with `env`; returns the copy's folder and what it printed. */
function build(env: Record<string, string> = {}): { folder: string; out: string } {
  const folder = join(dir, 'native');
  cpSync(NATIVE, folder, { recursive: true, filter: (src) => src !== join(NATIVE, 'build') });
  const r = spawnSync(process.execPath, [join(folder, 'build.mjs')], { encoding: 'utf8', env: testEnv(env) });
  expect(r.status).toBe(0);
  return { folder, out: r.stdout };
}

describe.skipIf(process.platform !== 'linux' || !hasCc)('src/native/build.mjs', () => {
  it.skipIf(!hasStatic)('links the reaper and the client statically when it can', () => {
    const { folder, out } = build();
    expect(out).toBe('');
    for (const name of ['tai-reaper', 'tai-client']) expect(dynamic(join(folder, 'build', name))).toBe(false);
  });

  it('links them dynamically when the static link fails, and the install goes on', () => {
    const noStatic = join(dir, 'cc-no-static');
    writeFileSync(noStatic, `#!/bin/sh\nfor a in "$@"; do [ "$a" = -static ] && { echo 'cannot find -lc' >&2; exit 1; }; done\nexec ${cc} "$@"\n`);
    chmodSync(noStatic, 0o755);
    const { folder, out } = build({ CC: noStatic });
    expect(out).toBe('');
    for (const name of ['tai-reaper', 'tai-client']) expect(dynamic(join(folder, 'build', name))).toBe(true);
  });

  it('links with musl-gcc first when it is on PATH', () => {
    const bin = fakeCompilers(['musl-gcc', 'cc']);
    const { folder, out } = build({ PATH: bin });
    expect(out).toBe('');
    const musl = calls(bin, 'musl-gcc');
    expect(musl.map((line) => [line.includes('-static'), line.split(' ').pop()?.split('/').pop()])).toEqual([[true, 'reaper.c'], [true, 'client.c']]);
    expect(calls(bin, 'cc')).toEqual([]);
    for (const name of ['tai-reaper', 'tai-client']) expect(dynamic(join(folder, 'build', name))).toBe(false);
  });

  it.skipIf(!hasStatic)('links with cc statically when musl-gcc is not on PATH', () => {
    const bin = fakeCompilers(['cc']);
    const { folder, out } = build({ PATH: bin });
    expect(out).toBe('');
    expect(calls(bin, 'cc').map((line) => line.includes('-static'))).toEqual([true, true]);
    for (const name of ['tai-reaper', 'tai-client']) expect(dynamic(join(folder, 'build', name))).toBe(false);
  });

  it('takes CC alone when it is set, even with musl-gcc on PATH', () => {
    const bin = fakeCompilers(['musl-gcc', 'cc']);
    build({ PATH: bin, CC: join(bin, 'cc') });
    expect(calls(bin, 'musl-gcc')).toEqual([]);
    expect(calls(bin, 'cc').map((line) => line.includes('-static'))).toEqual(hasStatic ? [true, true] : [true, false, true, false]);
  });

  it.skipIf(!hasMusl)('builds a reaper and a client with little text to keep resident (musl)', () => {
    const { folder } = build();
    // A static glibc reaper carries several times this, most of it resident after the kernel's fault-around (docs/agents.md, "The reaper").
    expect(text(join(folder, 'build', 'tai-reaper'))).toBeLessThan(200 * 1024);
    expect(text(join(folder, 'build', 'tai-client'))).toBeLessThan(200 * 1024);
  });
});
