import { describe, expect, it } from 'vitest';
import { StartRefusedError } from '../../../src/core/errors.js';
import { drawingOffReason, DUMB_TERMINAL } from '../../../src/io/cockpit/cockpit-board.js';

const tty = { isTTY: true } as NodeJS.WriteStream;
const pipe = { isTTY: false } as NodeJS.WriteStream;

describe('whether the cockpit draws', () => {
  it('refuses a dumb terminal with exit 1 and what to do instead', () => {
    let err: unknown;
    try {
      drawingOffReason({ TERM: 'dumb' }, tty);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StartRefusedError);
    expect((err as StartRefusedError).exitCode).toBe(1);
    expect((err as StartRefusedError).message).toBe(DUMB_TERMINAL);
  });

  it('runs a dumb terminal undrawn when panels are off or stdout is no terminal, and draws any other', () => {
    expect(drawingOffReason({ TERM: 'dumb', TAI_ORCH_PANELS: '0' }, tty)).toBe('panels are switched off (TAI_ORCH_PANELS=0)');
    expect(drawingOffReason({ TERM: 'dumb' }, pipe)).toBe('stdout is not a terminal');
    expect(drawingOffReason({ TERM: 'xterm-256color' }, tty)).toBeNull();
  });
});
