import { describe, expect, it } from 'vitest';
import { checkLaneName, isLaneName, laneBranch, laneNameOf, uniqueLaneName } from '../../../src/core/lanes/lane-name.js';

describe('lane names', () => {
  it.each([
    ['@coder Fix the tests!', 'coder-fix-the-tests'],
    ['feature/login', 'feature-login'],
    ['..hidden..', 'hidden'],
    ['x.lock', 'x'],
    ['!!!', 'lane'],
    ['a'.repeat(60), 'a'.repeat(40)],
  ])('makes %j into the branch-safe name %j', (label, name) => {
    expect(laneNameOf(label)).toBe(name);
    expect(isLaneName(name)).toBe(true);
  });

  it('makes a name unique with a number, cut to fit', () => {
    const taken = new Set(['fix', 'fix-2']);
    expect(uniqueLaneName('fix', (n) => taken.has(n))).toBe('fix-3');
    const long = 'b'.repeat(40);
    expect(uniqueLaneName(long, (n) => n === long)).toBe(`${'b'.repeat(38)}-2`);
  });

  it('refuses a given name that git or a folder cannot hold', () => {
    for (const bad of ['', 'A', '-x', 'a..b', 'a.lock', 'a/b', 'a b', 'x'.repeat(41)]) expect(() => checkLaneName(bad)).toThrow('is not a valid lane name');
    expect(checkLaneName('fix-1.2_x')).toBe('fix-1.2_x');
    expect(laneBranch('fix')).toBe('tai/fix');
  });
});
