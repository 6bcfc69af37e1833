import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { which } from '../../src/io/path-lookup.js';
import { fakeProgram } from '../helpers/agents.js';

let root: string;
let bin: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tai-path-lookup-'));
  bin = join(root, 'bin');
  mkdirSync(bin);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('which', () => {
  it('finds an executable file in PATH, the first directory first', () => {
    const other = join(root, 'other');
    mkdirSync(other);
    const first = fakeProgram(bin, 'gemini');
    fakeProgram(other, 'gemini');
    expect(which('gemini', `${join(root, 'missing')}:${bin}:${other}`)).toBe(first);
  });

  it('does not find a missing program, a file that is not executable or a directory', () => {
    fakeProgram(bin, 'plain', 0o644);
    mkdirSync(join(bin, 'adir'));
    expect(which('gemini', bin)).toBeUndefined();
    expect(which('adir', bin)).toBeUndefined();
    expect(which('gemini', undefined)).toBeUndefined();
    expect(which('', bin)).toBeUndefined();
    // Even for root: access(X_OK) fails on a file with no execute bit at all.
    expect(which('plain', bin)).toBeUndefined();
  });

  it('never searches empty or relative PATH entries', () => {
    fakeProgram(bin, 'tool');
    expect(which('tool', `:bin:.`, root)).toBeUndefined();
  });

  it('checks a program given as a path directly', () => {
    const tool = fakeProgram(bin, 'tool');
    expect(which(tool, '')).toBe(tool);
    expect(which('bin/tool', '', root)).toBe(tool);
    expect(which(join(bin, 'nope'), bin)).toBeUndefined();
  });
});
