import { describe, expect, it } from 'vitest';
import { StartRefusedError } from '../../../src/core/errors.js';
import { choosePrefix, PREFIX_EXIT } from '../../../src/core/input/prefix-choice.js';

const refusal = (name: string): StartRefusedError => {
  try {
    choosePrefix(name);
  } catch (err) {
    if (err instanceof StartRefusedError) return err;
    throw err;
  }
  throw new Error(`${name} was accepted`);
};

describe('the prefix key the user chose', () => {
  it('reads C-x, ^x and a single character, and the default when unset or empty', () => {
    expect(choosePrefix('C-a')).toBe('\x01');
    expect(choosePrefix('^b')).toBe('\x02');
    expect(choosePrefix('C-]')).toBe('\x1d');
    expect(choosePrefix('`')).toBe('`');
    expect(choosePrefix(undefined)).toBe('\x1d');
    expect(choosePrefix('')).toBe('\x1d');
  });

  it('refuses a name it cannot read with exit 64 and how to write one', () => {
    const err = refusal('foo');
    expect(err.exitCode).toBe(PREFIX_EXIT);
    expect(err.message).toBe(
      'tai: TAI_PREFIX="foo" is not a key: write C-x or ^x for Ctrl+x (a letter or one of @ [ \\ ] ^ _), or one character; unset it for the default C-]',
    );
    expect(refusal('C-1').exitCode).toBe(64);
  });

  it('refuses Enter, Tab, Backspace, Esc, Ctrl-C and Ctrl-D, which every REPL needs', () => {
    expect(refusal('C-m').message).toBe('tai: TAI_PREFIX="C-m" is Enter, which the main program needs; choose another key, or unset it for the default C-]');
    expect(['C-m', 'C-j', 'C-i', '\t', 'C-h', '\x7f', 'C-[', 'C-c', '^d'].map((n) => refusal(n).message.split(' is ')[1]?.split(',')[0])).toEqual([
      'Enter',
      'Enter (C-j)',
      'Tab',
      'Tab',
      'Backspace (C-h)',
      'Backspace',
      'Esc',
      'Ctrl-C',
      'Ctrl-D',
    ]);
  });
});
