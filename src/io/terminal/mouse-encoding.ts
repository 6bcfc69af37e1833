/**
 * Which encoding a program asked its (headless) terminal to report the mouse
 * in: SGR after DECSET 1006, the default X10 bytes otherwise. xterm.js tracks
 * the tracking mode publicly (`term.modes.mouseTrackingMode`) but not the
 * encoding, so it is watched here the way cursor visibility is
 * (screen-rows.ts): the handlers look and let xterm go on (return false).
 */
import type { Terminal } from '@xterm/headless';
import type { MouseEncoding } from '../../core/input/mouse.js';

/** Watches DECSET/DECRST 1006 (and a full reset) on `term`. */
export function trackMouseEncoding(term: Terminal): { readonly encoding: () => MouseEncoding } {
  let sgr = false;
  const watch = (final: 'h' | 'l') =>
    term.parser.registerCsiHandler({ prefix: '?', final }, (params) => {
      if (params.includes(1006)) sgr = final === 'h';
      return false;
    });
  watch('h');
  watch('l');
  term.parser.registerEscHandler({ final: 'c' }, () => {
    sgr = false; // RIS
    return false;
  });
  return { encoding: () => (sgr ? 'sgr' : 'x10') };
}
