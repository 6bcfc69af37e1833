import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFIX, KeyScanner } from '../../../../src/core/input/keys.js';
import { mountCockpit } from '../../../components/harness.js';

describe('the key router', () => {
  afterEach(() => vi.restoreAllMocks());

  it('hands plain keys to the main pane without scanning them; a prefix or an escape is scanned', () => {
    const c = mountCockpit(80, 24);
    const scans = vi.spyOn(KeyScanner.prototype, 'push');
    try {
      for (const key of 'ls -la\r') c.type(key);
      c.type('echo hi');
      expect(c.typed).toEqual([...'ls -la\r', 'echo hi']);
      expect(scans).not.toHaveBeenCalled();
      c.type('\x1b[A');
      c.type(`${DEFAULT_PREFIX}`);
      c.type(`${DEFAULT_PREFIX}`); // the prefix twice: the prefix itself, for the pane
      c.type('x');
      expect(scans).toHaveBeenCalledTimes(3);
      expect(c.typed.slice(-3)).toEqual(['\x1b[A', DEFAULT_PREFIX, 'x']);
    } finally {
      c.unmount();
    }
  });
});

describe("the key router's straight way", () => {
  it('writes a plain key for the main pane after one read of the board, before the status line is looked at', () => {
    const c = mountCockpit(80, 24);
    try {
      c.sign.getState().say('refused'); // a refusal shown: the key clears it, after its write
      const board = vi.spyOn(c.board, 'getState');
      const sign = vi.spyOn(c.sign, 'getState');
      const before: { board: number; sign: number; message: string | undefined }[] = [];
      const push = c.typed.push.bind(c.typed);
      vi.spyOn(c.typed, 'push').mockImplementation((...keys: string[]) => {
        before.push({ board: board.mock.calls.length, sign: sign.mock.calls.length, message: c.sign.getState().message });
        return push(...keys);
      });
      board.mockClear();
      sign.mockClear();
      c.type('a');
      expect(c.typed).toEqual(['a']);
      expect(before).toEqual([{ board: 1, sign: 0, message: 'refused' }]);
      expect(c.sign.getState().message).toBeUndefined();
    } finally {
      c.unmount();
    }
  });

  it('leaves to the listener what it would not hand on whole', () => {
    const c = mountCockpit(80, 24);
    try {
      const straight = (chunk: string): boolean => {
        const n = c.typed.length;
        c.type(chunk);
        return c.typed.length > n;
      };
      expect(straight('x')).toBe(true);
      expect(straight('\x1b[A')).toBe(true); // the listener's: scanned, then handed on
      expect(straight(DEFAULT_PREFIX)).toBe(false); // the prefix waits for its key
      expect(c.keys.awaiting).toBe(true);
      expect(straight('?')).toBe(false); // prefix + ?: the help
      expect(c.board.getState().help).toBe(true);
      expect(straight('y')).toBe(false); // any key closes the help, none reaches the pane
      expect(c.board.getState().help).toBe(false);
      expect(straight('z')).toBe(true);
    } finally {
      c.unmount();
    }
  });
});
