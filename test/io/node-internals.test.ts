import { StringDecoder } from 'node:string_decoder';
import { WriteStream } from 'node:tty';
import { openSync } from 'node:fs';
import pty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decoderEmpty, internalsOn, ttyHandle } from '../../src/io/node-internals.js';

/** A terminal to open: the slave side of a pty running `sleep`. */
function aTerminal(): { path: string; end(): void } {
  const p = pty.spawn('sleep', ['30'], { cols: 20, rows: 4 });
  return { path: (p as unknown as { ptsName: string }).ptsName, end: () => p.kill('SIGKILL') };
}

describe("Node's internals (the canary)", () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '1'));
  afterEach(() => vi.unstubAllEnvs());

  it("finds a tty stream's handle and a decoder's lastNeed in this Node, or names the version that moved them", () => {
    const t = aTerminal();
    try {
      const stream = new WriteStream(openSync(t.path, 'w'));
      const handle = ttyHandle(stream);
      const decoder = new StringDecoder('utf8');
      const empty = decoderEmpty(decoder);
      decoder.write(Buffer.from([0xc3])); // half of é
      const missing = [
        ...(handle === undefined ? ['tty.WriteStream._handle (fd, setBlocking)'] : []),
        ...(empty && !decoderEmpty(decoder) ? [] : ['StringDecoder.lastNeed']),
      ];
      expect(missing, `Node ${process.version} no longer has ${missing.join(', ')}: src/io/node-internals.ts needs updating (TAI_INTERNALS=0 works around it meanwhile)`).toEqual([]);
      expect(handle!.setBlocking(false)).toBe(0);
      stream.destroy();
    } finally {
      t.end();
    }
  });
});

describe("Node's internals switched off (TAI_INTERNALS=0)", () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '0'));
  afterEach(() => vi.unstubAllEnvs());

  it('reads none of them: no handle, the decoder always asked', () => {
    expect(internalsOn()).toBe(false);
    const t = aTerminal();
    try {
      const stream = new WriteStream(openSync(t.path, 'w'));
      expect(ttyHandle(stream)).toBeUndefined();
      expect(decoderEmpty(new StringDecoder('utf8'))).toBe(false);
      stream.destroy();
    } finally {
      t.end();
    }
  });
});
