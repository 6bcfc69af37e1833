import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot, reaperFor, ReaperError } from '../../../../src/io/agents/runners/reaper-binary.js';

describe('which reaper an agent starts behind', () => {
  const built = '/pkg/src/native/build/tai-reaper';

  it.each([
    [undefined, built, { kind: 'native', path: built }],
    ['', built, { kind: 'native', path: built }],
    [undefined, undefined, { kind: 'node' }],
    ['node', built, { kind: 'node' }],
    ['native', built, { kind: 'native', path: built }],
    ['/elsewhere/tai-reaper', undefined, { kind: 'native', path: '/elsewhere/tai-reaper' }],
  ])('TAI_REAPER=%j with the built reaper at %j runs %j', (setting, at, expected) => {
    expect(reaperFor(setting, at)).toEqual(expected);
  });

  it('refuses TAI_REAPER=native when the native reaper is not built', () => {
    expect(() => reaperFor('native', undefined)).toThrow(new ReaperError('the native reaper is not built (node src/native/build.mjs builds it; Linux only)'));
  });

  it('refuses a TAI_REAPER that is neither node, native nor an absolute path', () => {
    expect(() => reaperFor('fast', built)).toThrow(new ReaperError("TAI_REAPER must be node, native or an absolute path, not 'fast'"));
  });

  it('finds the package root above a folder however deep, past other packages', () => {
    const root = mkdtempSync(join(tmpdir(), 'tai-root-'));
    const deep = join(root, 'dist/src/io/agents/runners');
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(root, 'package.json'), '{"name":"tai"}');
    writeFileSync(join(root, 'dist/package.json'), '{"name":"other"}');
    expect(packageRoot(deep)).toBe(root);
    expect(packageRoot(tmpdir())).toBeUndefined();
  });
});
