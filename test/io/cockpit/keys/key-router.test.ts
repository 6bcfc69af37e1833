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
