import { describe, expect, it } from 'vitest';
import { CLAMP_SLICE_WORK, CsiClamp } from '../../../src/core/text/csi-clamp.js';
import { repeatMax } from '../../../src/core/text/csi-rules.js';

/** Everything an 80x24 clamp makes of the chunks, slices joined. */
function clamped(...chunks: string[]): string {
  const c = new CsiClamp(80, 24);
  return chunks.map((s) => c.push(s).join('')).join('');
}

describe('CsiClamp', () => {
  it.each([
    ['scroll up', '\x1b[2147483647S', '\x1b[24S'],
    ['scroll down', '\x1b[2147483647T', '\x1b[24T'],
    ['insert lines', '\x1b[99999L', '\x1b[24L'],
    ['delete lines', '\x1b[99999M', '\x1b[24M'],
    ['insert chars', '\x1b[99999@', '\x1b[80@'],
    ['delete chars', '\x1b[99999P', '\x1b[80P'],
    ['erase chars', '\x1b[99999X', '\x1b[80X'],
    ['cursor next line', '\x1b[99999E', '\x1b[24E'],
    ['cursor preceding line', '\x1b[99999F', '\x1b[24F'],
    ['cursor up, down, forward, back', '\x1b[999A\x1b[999B\x1b[999C\x1b[999D', '\x1b[24A\x1b[24B\x1b[80C\x1b[80D'],
    ['line and column absolute', '\x1b[999d\x1b[999G\x1b[999`', '\x1b[24d\x1b[80G\x1b[80`'],
    ['relative moves', '\x1b[999a\x1b[999e', '\x1b[80a\x1b[24e'],
    ['cursor position', '\x1b[999;999H\x1b[999;999f', '\x1b[24;80H\x1b[24;80f'],
    ['tabs forward and back', '\x1b[999I\x1b[999Z', '\x1b[80I\x1b[80Z'],
    ['scroll region', '\x1b[999;999r', '\x1b[24;24r'],
    ['repeat after a character', 'x\x1b[100000000b', 'x\x1b[1920b'],
    ['scroll left and right', '\x1b[999 @\x1b[999 A', '\x1b[80 @\x1b[80 A'],
    ['insert and delete columns', "\x1b[999'}\x1b[999'~", "\x1b[80'}\x1b[80'~"],
    ['an 8-bit CSI', '\x9b2147483647S', '\x9b24S'],
    ['a count past 2^31 (xterm stops at 2^31-1)', '\x1b[99999999999999999999S', '\x1b[24S'],
  ])('clamps %s to the screen', (_name, input, output) => {
    expect(clamped(input)).toBe(output);
  });

  it.each([
    ['SGR with sub-parameters and an empty one', '\x1b[1;31m\x1b[38:2::255:0:0m\x1b[m'],
    ['private modes', '\x1b[?1049h\x1b[?25;2004l'],
    ['counts that fit', '\x1b[3S\x1b[5;10H\x1b[2J\x1b[K'],
    ['OSC and DCS payloads', '\x1b]0;title\x07\x1bP$qm\x1b\\'],
    ['text, tabs and newlines', 'hello\tworld\r\n漢字 😀 é'],
    ['escapes with intermediates', '\x1b(B\x1b#8\x1b7\x1b8'],
  ])('passes %s through unchanged', (_name, input) => {
    expect(clamped(input)).toBe(input);
  });

  it('keeps the C0 controls inside a CSI where they stand, and clamps the count around them', () => {
    expect(clamped('\x1b[2\n147483647S')).toBe('\x1b[\n24S');
  });

  it('clamps a bomb split across chunks, whatever the split', () => {
    const bomb = 'a\x1b[2147483647Sb\x1b[?1049hc\x9b99999T';
    for (let k = 0; k <= bomb.length; k++) {
      expect(clamped(bomb.slice(0, k), bomb.slice(k))).toBe('a\x1b[24Sb\x1b[?1049hc\x9b24T');
    }
  });

  it('clamps every bomb of one chunk', () => {
    expect(clamped('\x1b[2147483647S\x1b[2147483647Lx\x1b[2147483647b\x1b[2147483647@')).toBe('\x1b[24S\x1b[24Lx\x1b[1920b\x1b[80@');
  });

  it('keeps an ignored CSI ignored, and lets a CSI inside an OSC restart as xterm does', () => {
    // A parameter after an intermediate: xterm dispatches nothing; '0<' makes it ignore the rest as well.
    expect(clamped('\x1b[1!2147483647S')).toBe('\x1b[0<147483647S');
    // ESC ends an OSC in xterm and starts the CSI.
    expect(clamped('\x1b]0;\x1b[99999S')).toBe('\x1b]0;\x1b[24S');
  });

  it('bounds what it holds: parameters past 32 and digits past 2^31-1 are dropped as xterm drops them', () => {
    const out = clamped('\x1b[' + '1;'.repeat(10_000) + '9'.repeat(10_000) + 'm');
    expect(out).toBe('\x1b[' + Array(32).fill('1').join(';') + 'm');
  });

  it('repeats a cell stacked with joining marks no more than four cells of text per cell', () => {
    const marks = '\u0301'.repeat(1000);
    expect(clamped('e' + marks + '\x1b[99999b')).toBe('e' + marks + `\x1b[${repeatMax(80, 24, 1001)}b`);
    expect(repeatMax(80, 24, 1001)).toBe(7);
    // An SOS string ended by ST keeps xterm's join state: the marks after it still count.
    const sos = 'e' + marks + '\x98x\x9c' + marks + '\x1b[99999b';
    expect(clamped(sos)).toBe(sos.replace('99999', String(repeatMax(80, 24, 2001))));
  });

  it('cuts work into slices of at most CLAMP_SLICE_WORK, in order, losing nothing', () => {
    const c = new CsiClamp(200, 50);
    const input = 'x\x1b#8'.repeat(100) + 'tail';
    const slices = c.push(input);
    expect(slices.join('')).toBe(input);
    // DECALN fills 10 000 cells: ten of them fit a slice.
    expect(slices.length).toBeGreaterThanOrEqual(Math.ceil((100 * 10_000) / CLAMP_SLICE_WORK));
    expect(slices.length).toBeLessThanOrEqual(12);
  });

  it('cuts a flood of plain text where its work reaches CLAMP_SLICE_WORK, a line feed counting five', () => {
    const c = new CsiClamp(80, 24);
    expect(c.push('a'.repeat(2 * CLAMP_SLICE_WORK + 7)).map((s) => s.length)).toEqual([CLAMP_SLICE_WORK, CLAMP_SLICE_WORK, 7]);
    // 'line\n' is 9 units: 11 111 lines and one 'l' fill a slice (99 999 + 1), the 'i' after them starts the next.
    const lines = 'line\n'.repeat(12_000);
    const slices = new CsiClamp(80, 24).push(lines);
    expect(slices.map((s) => s.length)).toEqual([11_111 * 5 + 1, lines.length - (11_111 * 5 + 1)]);
    // A line feed that would not fit starts the next slice; the work goes on across pushes.
    const d = new CsiClamp(80, 24);
    expect(d.push('a'.repeat(CLAMP_SLICE_WORK - 1) + '\n')).toEqual(['a'.repeat(CLAMP_SLICE_WORK - 1), '\n']);
    expect(d.push('b'.repeat(CLAMP_SLICE_WORK - 4))).toEqual(['b'.repeat(CLAMP_SLICE_WORK - 5), 'b']);
  });

  it('counts a tab as xterm moves it, and keeps the join state that a repeat copies across plain text', () => {
    // A tab costs 1 + cols / 16 units: 6 at 80 columns, so 16 666 tabs fill a slice.
    expect(new CsiClamp(80, 24).push('\t'.repeat(16_667)).map((s) => s.length)).toEqual([16_666, 1]);
    // A printed character after a stack of marks is a cell of its own, a control resets the join state: the
    // repeat that follows is of one cell (or none), not of the 1001-code stack (7 repeats).
    const marks = 'e' + '\u0301'.repeat(1000);
    expect(clamped(marks + 'x\x1b[99999b')).toBe(`${marks}x\x1b[${repeatMax(80, 24, 1)}b`);
    expect(clamped(marks + '\r\x1b[99999b')).toBe(`${marks}\r\x1b[${repeatMax(80, 24, 0)}b`);
    expect(repeatMax(80, 24, 1)).toBe(1920);
  });

  it('leaves plain text in one slice', () => {
    const c = new CsiClamp(80, 24);
    const text = 'line\n'.repeat(10_000);
    expect(c.push(text)).toEqual([text]);
  });
});

describe('CsiClamp on a panel', () => {
  it('ends an OSC or DCS left open at a newline (CAN before it), and leaves the main pane as a terminal would', () => {
    const panel = new CsiClamp(80, 24, true);
    expect(panel.push('visible\n\x1bPq').join('') + panel.push('\nIMPORTANT').join('')).toBe('visible\n\x1bPq\x18\nIMPORTANT');
    expect(panel.ground()).toBe(true);
    expect(new CsiClamp(80, 24, true).push('a\x1b]0;t\nb').join('')).toBe('a\x1b]0;t\x18\nb');
    expect(new CsiClamp(80, 24, true).push('a\x1b]0;t\x07\nb').join('')).toBe('a\x1b]0;t\x07\nb');
    const main = new CsiClamp(80, 24);
    expect(main.push('visible\n\x1bPq\nIMPORTANT').join('')).toBe('visible\n\x1bPq\nIMPORTANT');
    expect(main.ground()).toBe(false);
  });
});
