/**
 * A cockpit terminal for in-process tests of the output stage: what is drawn
 * goes to `write`; no keys, sizes, attaches or ends ever come from it.
 */
import type { CockpitTerminal } from '../../src/io/cockpit/cockpit-terminal.js';

export function quietTerminal(cols: number, rows: number, write: (data: string) => void): CockpitTerminal {
  return {
    cols,
    rows,
    write,
    leave: () => {},
    epilogue: () => {},
    onInput: () => () => {},
    onResize: () => () => {},
    onAttach: () => () => {},
    onGone: () => () => {},
    detach: () => undefined,
    watched: () => true,
    start: () => {},
    stop: () => {},
  };
}
