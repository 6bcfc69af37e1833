import { describe, expect, it } from 'vitest';
import { StartRefusedError } from '../../../src/core/errors.js';
import { PassThrough } from 'node:stream';
import { LAYOUT_COLS_MAX, LAYOUT_ROWS_MAX } from '../../../src/core/screen-bound.js';
import { createCockpitBoard, drawingOffReason, DUMB_TERMINAL } from '../../../src/io/cockpit/cockpit-board.js';
import { processTerminal } from '../../../src/io/cockpit/cockpit-terminal.js';

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

describe('the size the cockpit lays out for', () => {
  it('takes a window of any size from this process terminal, laid out at most 1000x300', () => {
    const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
    const huge = Object.assign(new PassThrough(), { columns: 10_000, rows: 10_000 }) as unknown as NodeJS.WriteStream;
    const terminal = processTerminal(stdin, huge);
    expect([terminal.cols, terminal.rows]).toEqual([LAYOUT_COLS_MAX, LAYOUT_ROWS_MAX]);
    const small = Object.assign(new PassThrough(), { columns: 90, rows: 20 }) as unknown as NodeJS.WriteStream;
    expect([processTerminal(stdin, small).cols, processTerminal(stdin, small).rows]).toEqual([90, 20]);
  });

  it('makes the main screen no larger than the bound when the size given is larger', () => {
    const made = createCockpitBoard({ size: { cols: 1_500, rows: 400 }, env: { TERM: 'xterm-256color' } });
    expect([made.screens?.main.term.cols, made.screens?.main.term.rows]).toEqual([LAYOUT_COLS_MAX, LAYOUT_ROWS_MAX]);
    made.screens?.main.dispose();
  });
});
