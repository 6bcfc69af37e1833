/**
 * The install's build of the native programs (src/native/build.mjs), run on a
 * copy of src/native with the real compiler: each is linked statically when
 * libc.a is there, and linked dynamically when the static link fails (a cc
 * that refuses -static stands in for a machine without libc.a): the install
 * never fails for it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEnv } from '../helpers/test-env.js';

const NATIVE = fileURLToPath(new URL('../../src/native', import.meta.url));
const cc = process.env.CC || 'cc';
const hasCc = spawnSync(cc, ['--version']).status === 0;
const hasStatic = hasCc && spawnSync(cc, ['-static', '-x', 'c', '-o', '/dev/null', '-'], { input: 'int main(void){return 0;}' }).status === 0;

/** True when the ELF file at `path` asks for a program interpreter (ld.so): a dynamically linked program. */
function dynamic(path: string): boolean {
  const elf = readFileSync(path);
  // ELF64, little-endian: the program headers at e_phoff, e_phnum of e_phentsize bytes; PT_INTERP is type 3.
  const phoff = Number(elf.readBigUInt64LE(0x20));
  const size = elf.readUInt16LE(0x36);
  const count = elf.readUInt16LE(0x38);
  for (let i = 0; i < count; i++) if (elf.readUInt32LE(phoff + i * size) === 3) return true;
  return false;
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
});
