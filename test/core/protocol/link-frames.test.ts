/** The client link's frames: split anywhere, refused when too long, hellos checked. */
import { describe, expect, it } from 'vitest';
import { encodeFrame, encodeJson, FRAME, FrameReader, LINK_VERSION, payloadJson, payloadText, readAttached, readHello, readSize } from '../../../src/core/protocol/link-frames.js';

describe('link frames', () => {
  it('reads frames back whole, however the stream is cut', () => {
    const bytes = new Uint8Array([...encodeFrame(FRAME.output, 'héllo \x1b[1mworld'), ...encodeJson(FRAME.resize, { cols: 80, rows: 24 }), ...encodeFrame(FRAME.leave)]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const reader = new FrameReader();
      const frames = [...reader.push(bytes.slice(0, cut)).frames, ...reader.push(bytes.slice(cut)).frames];
      expect(frames.map((f) => f.type)).toEqual([FRAME.output, FRAME.resize, FRAME.leave]);
      expect(payloadText(frames[0]!)).toBe('héllo \x1b[1mworld');
      expect(payloadJson(frames[1]!)).toEqual({ cols: 80, rows: 24 });
      expect(frames[2]!.payload.length).toBe(0);
    }
  });

  it('refuses a frame announced over the cap before buffering it, and reads nothing after', () => {
    const reader = new FrameReader(10);
    const big = encodeFrame(FRAME.input, 'x'.repeat(11)).slice(0, 5);
    expect(reader.push(big)).toEqual({ frames: [], error: 'link frame too long (11 bytes, limit 10)' });
    expect(reader.push(encodeFrame(FRAME.input, 'ok')).frames).toEqual([]);
  });

  it('checks a hello: version, mode and an attach size', () => {
    expect(readHello({ version: LINK_VERSION, mode: 'attach', cols: 100, rows: 30, readOnly: true })).toEqual({ version: 1, mode: 'attach', cols: 100, rows: 30, readOnly: true });
    expect(readHello({ version: LINK_VERSION, mode: 'query' })).toEqual({ version: 1, mode: 'query' });
    expect(readHello({ version: 99, mode: 'attach' })).toMatch(/speaks link version 1, the client 99/);
    expect(readHello({ version: LINK_VERSION, mode: 'steal' })).toBe('unknown hello mode "steal"');
    expect(readHello({ version: LINK_VERSION, mode: 'attach', cols: 0, rows: 30 })).toMatch(/needs cols and rows/);
    expect(readHello('hello')).toBe('the first frame must be a hello object');
    expect(readSize({ cols: 80.5, rows: 24 })).toBeUndefined();
  });

  it("keeps a hello's terminal claim when it names a device under /dev, and leaves out any other", () => {
    const attach = { version: LINK_VERSION, mode: 'attach', cols: 80, rows: 24 };
    const tty = { path: '/dev/pts/7', rdev: 34823, dev: 25 };
    expect(readHello({ ...attach, tty })).toEqual({ version: 1, mode: 'attach', cols: 80, rows: 24, tty });
    expect(readHello({ ...attach, tty, ttyInput: true })).toEqual({ version: 1, mode: 'attach', cols: 80, rows: 24, tty, ttyInput: true });
    expect(readHello({ ...attach, ttyInput: true })).toEqual({ version: 1, mode: 'attach', cols: 80, rows: 24 }); // no terminal, nothing to read
    expect(readAttached({ output: 'tty', input: 'tty' })).toEqual({ output: 'tty', input: 'tty' });
    expect(readAttached({ output: 'tty', input: 'both' })).toEqual({ output: 'tty', input: 'frames' });
    expect(readAttached(undefined)).toEqual({ output: 'frames', input: 'frames' });
    for (const bad of [
      { ...tty, path: '/etc/passwd' },
      { ...tty, path: '/dev/../etc/passwd' },
      { ...tty, path: '/dev/pts/7\n' },
      { ...tty, rdev: -1 },
      { ...tty, dev: 1.5 },
      { path: '/dev/pts/7' },
      '/dev/pts/7',
    ]) {
      expect(readHello({ ...attach, tty: bad })).toEqual({ version: 1, mode: 'attach', cols: 80, rows: 24 });
    }
  });
});
