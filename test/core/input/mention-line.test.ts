import { describe, expect, it } from 'vitest';
import { complete, editLine, EMPTY_LINE, withError, type MentionLine } from '../../../src/core/input/mention-line.js';

const NAMES = ['gemini', 'goose', 'opencode', 'claude', 'claude-acp'];

/** Types each key in turn from a fresh line. */
function typeKeys(keys: readonly string[], start: MentionLine = EMPTY_LINE): { line: MentionLine; outcome: string } {
  let line = start;
  let outcome = 'edit';
  for (const k of keys) ({ line, outcome } = editLine(line, k, NAMES));
  return { line, outcome };
}

describe('the mention line', () => {
  it('inserts characters at the cursor and moves it with the arrows, Home and End', () => {
    expect(typeKeys([...'gemini hi']).line).toEqual({ text: '@gemini hi', cursor: 10 });
    expect(typeKeys([...'gemini hi', '\x1b[D', '\x1b[D', 'X']).line).toEqual({ text: '@gemini Xhi', cursor: 9 });
    expect(typeKeys([...'ab', '\x01', '\x1b[C', 'Z', '\x05', '!']).line).toEqual({ text: '@Zab!', cursor: 5 });
  });

  it('deletes with Backspace, Delete, Ctrl-U and Ctrl-W', () => {
    expect(typeKeys([...'abc', '\x7f']).line).toEqual({ text: '@ab', cursor: 3 });
    expect(typeKeys([...'abc', '\x01', '\x1b[3~']).line).toEqual({ text: 'abc', cursor: 0 });
    expect(typeKeys([...'gemini say hi', '\x17']).line).toEqual({ text: '@gemini say ', cursor: 12 });
    expect(typeKeys([...'gemini say', '\x15']).line).toEqual({ text: '', cursor: 0 });
  });

  it('submits on Enter and cancels on Esc, Ctrl-C, or Backspace over the lone @', () => {
    expect(typeKeys([...'gemini hi', '\r'])).toEqual({ line: { text: '@gemini hi', cursor: 10 }, outcome: 'submit' });
    expect(typeKeys([...'x', '\x1b']).outcome).toBe('cancel');
    expect(typeKeys(['\x03']).outcome).toBe('cancel');
    expect(typeKeys(['\x7f']).outcome).toBe('cancel');
  });

  it('never inserts control keys or unknown escape sequences', () => {
    expect(typeKeys(['\x1b[15~', '\x00', '\x1b[1;5A', 'a']).line).toEqual({ text: '@a', cursor: 2 });
  });

  it('clears an error at the next key', () => {
    const failed = withError({ text: '@gem hi', cursor: 7 }, 'no agent named "gem"');
    expect(editLine(failed, '!', NAMES).line).toEqual({ text: '@gem hi!', cursor: 8 });
    expect(editLine(failed, '\x1b[D', NAMES).line).toEqual({ text: '@gem hi', cursor: 6 });
  });

  it('completes the only match with a space, the common prefix of several with their list, and says when nothing matches', () => {
    expect(complete({ text: '@gem', cursor: 4 }, NAMES)).toEqual({ text: '@gemini ', cursor: 8 });
    expect(complete({ text: '@cl', cursor: 3 }, NAMES)).toEqual({ text: '@claude', cursor: 7, choices: ['claude', 'claude-acp'] });
    expect(complete({ text: '@g', cursor: 2 }, NAMES)).toEqual({ text: '@g', cursor: 2, choices: ['gemini', 'goose'] });
    expect(complete({ text: '@zz', cursor: 3 }, NAMES).error).toBe('no agent name starts with "zz"; known: claude, claude-acp, gemini, goose, opencode');
  });

  it('completes the name in front of a prompt already typed, and ignores Tab past the name', () => {
    expect(complete({ text: '@gem explain', cursor: 4 }, NAMES)).toEqual({ text: '@gemini explain', cursor: 8 });
    const past = { text: '@gemini expl', cursor: 12 };
    expect(complete(past, NAMES)).toBe(past);
  });

  it('takes a paste as text with its newlines and tabs as spaces', () => {
    expect(editLine(EMPTY_LINE, 'gemini a\r\nb\tc', NAMES, true).line).toEqual({ text: '@gemini a b c', cursor: 13 });
  });
});
