import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFIX, KeyScanner } from '../../../src/core/input/keys.js';
import { encodeMouse, parseSgrMouse, parseX10Mouse, type MouseEvent, type MouseTracking } from '../../../src/core/input/mouse.js';

const P = DEFAULT_PREFIX;
const ev = (over: Partial<MouseEvent>): MouseEvent => ({ button: 0, x: 0, y: 0, release: false, motion: false, modifiers: 0, ...over });

describe('parseSgrMouse', () => {
  it.each([
    ['\x1b[<0;1;1M', ev({})],
    ['\x1b[<0;10;5m', ev({ x: 9, y: 4, release: true })],
    ['\x1b[<2;80;24M', ev({ button: 2, x: 79, y: 23 })],
    ['\x1b[<32;3;4M', ev({ x: 2, y: 3, motion: true })],
    ['\x1b[<35;3;4M', ev({ button: 3, x: 2, y: 3, motion: true })],
    ['\x1b[<64;7;2M', ev({ button: 64, x: 6, y: 1 })],
    ['\x1b[<65;7;2M', ev({ button: 65, x: 6, y: 1 })],
    ['\x1b[<4;2;2M', ev({ x: 1, y: 1, modifiers: 4 })],
    ['\x1b[<80;300;100M', ev({ button: 64, x: 299, y: 99, modifiers: 16 })],
  ])('reads %j', (report, expected) => {
    expect(parseSgrMouse(report)).toEqual(expected);
  });

  it.each(['\x1b[<0;1M', '\x1b[<a;1;1M', '\x1b[<0;1;1;1M', '\x1b[0;1;1M'])('refuses the malformed %j', (report) => {
    expect(parseSgrMouse(report)).toBeUndefined();
  });

  it('reads an X10 report, whose release names no button', () => {
    expect(parseX10Mouse('\x1b[M !!')).toEqual(ev({}));
    expect(parseX10Mouse('\x1b[M#*%')).toEqual(ev({ button: 3, x: 9, y: 4, release: true }));
    expect(parseX10Mouse('\x1b[M`!!')).toEqual(ev({ button: 64 }));
  });
});

describe('encodeMouse', () => {
  const table: Array<[string, MouseEvent, MouseTracking, 'sgr' | 'x10', string]> = [
    ['a press in SGR, moved to the pane', ev({ x: 10, y: 5 }), 'vt200', 'sgr', '\x1b[<0;7;4M'],
    ['a release in SGR keeps its button', ev({ button: 2, x: 10, y: 5, release: true }), 'vt200', 'sgr', '\x1b[<2;7;4m'],
    ['a press in X10', ev({ x: 10, y: 5 }), 'vt200', 'x10', "\x1b[M '$"],
    ['a release in X10 is button 3', ev({ x: 10, y: 5, release: true }), 'vt200', 'x10', "\x1b[M#'$"],
    ['the wheel', ev({ button: 65, x: 4, y: 2 }), 'vt200', 'sgr', '\x1b[<65;1;1M'],
    ['a drag in drag tracking', ev({ x: 6, y: 4, motion: true }), 'drag', 'sgr', '\x1b[<32;3;3M'],
    ['no drag in vt200 tracking', ev({ x: 6, y: 4, motion: true }), 'vt200', 'sgr', ''],
    ['no bare motion in drag tracking', ev({ button: 3, x: 6, y: 4, motion: true }), 'drag', 'sgr', ''],
    ['bare motion in any tracking', ev({ button: 3, x: 6, y: 4, motion: true }), 'any', 'sgr', '\x1b[<35;3;3M'],
    ['no release in x10 tracking', ev({ x: 6, y: 4, release: true }), 'x10', 'sgr', ''],
    ['nothing when the program asked for nothing', ev({ x: 6, y: 4 }), 'none', 'sgr', ''],
    ['no X10 past column 223', ev({ x: 300, y: 4 }), 'vt200', 'x10', ''],
    ['Ctrl kept in SGR', ev({ x: 4, y: 2, modifiers: 16 }), 'vt200', 'sgr', '\x1b[<16;1;1M'],
  ];
  it.each(table)('encodes %s', (_name, e, tracking, encoding, bytes) => {
    expect(encodeMouse(e, 4, 2, tracking, encoding)).toBe(bytes);
  });
});

describe('KeyScanner and the mouse', () => {
  it('cuts SGR reports out of the bytes for the pane, in order', () => {
    const k = new KeyScanner();
    expect(k.push('ab\x1b[<0;3;4Mcd\x1b[<0;3;4m')).toEqual([
      { kind: 'input', data: 'ab' },
      { kind: 'mouse', event: ev({ x: 2, y: 3 }) },
      { kind: 'input', data: 'cd' },
      { kind: 'mouse', event: ev({ x: 2, y: 3, release: true }) },
    ]);
  });

  it.each([
    ['\x1b[', '<64;10;2M'],
    ['\x1b[<', '64;10;2M'],
    ['\x1b[<64;1', '0;2M'],
    ['\x1b[<64;10;2', 'M'],
  ])('holds a report split as %j + %j until it is whole', (a, b) => {
    const k = new KeyScanner();
    expect(k.push(a)).toEqual([]);
    expect(k.push(b)).toEqual([{ kind: 'mouse', event: ev({ button: 64, x: 9, y: 1 }) }]);
  });

  it('holds an X10 report until its three bytes came', () => {
    const k = new KeyScanner();
    expect(k.push('x\x1b[M ')).toEqual([{ kind: 'input', data: 'x' }]);
    expect(k.push('!!y')).toEqual([
      { kind: 'mouse', event: ev({}) },
      { kind: 'input', data: 'y' },
    ]);
  });

  it('passes a lone ESC at the end of a chunk at once: it is the Escape key, not the start of a report', () => {
    const k = new KeyScanner();
    expect(k.push('\x1b')).toEqual([{ kind: 'input', data: '\x1b' }]);
  });

  it('drops a malformed report rather than typing it into the pane', () => {
    const k = new KeyScanner();
    expect(k.push('\x1b[<0;1Mz')).toEqual([{ kind: 'input', data: 'z' }]);
  });

  it('hands a report on after the prefix and still reads the key after it as a command', () => {
    const k = new KeyScanner();
    expect(k.push(`${P}\x1b[<0;1;1Mz`)).toEqual([
      { kind: 'mouse', event: ev({}) },
      { kind: 'command', command: { cmd: 'zoom' } },
    ]);
  });

  it('does not take a report for the key that leaves scroll mode or closes help', () => {
    const k = new KeyScanner();
    k.push(`${P}?`);
    expect(k.push('\x1b[<35;5;5M')).toEqual([{ kind: 'mouse', event: ev({ button: 3, x: 4, y: 4, motion: true }) }]);
    expect(k.push('q')).toEqual([{ kind: 'command', command: { cmd: 'help' } }]);
  });

  it('leaves report-like text inside a bracketed paste alone', () => {
    const k = new KeyScanner();
    const paste = '\x1b[200~\x1b[<0;1;1M\x1b[201~';
    expect(k.push(paste)).toEqual([{ kind: 'input', data: paste }]);
  });

  it('still passes other CSI keys to the pane', () => {
    const k = new KeyScanner();
    expect(k.push('\x1b[A\x1b[1;5C')).toEqual([{ kind: 'input', data: '\x1b[A\x1b[1;5C' }]);
  });
});
