import { describe, expect, it } from 'vitest';
import { SessionDecoder, SpoolOffsets, type SessionItem } from '../../../src/core/remote/spool-frames.js';

const frame = (stream: string, offset: number, text: string): string => `\u0001tai ${stream} ${offset} ${Buffer.byteLength(text)}\n${text}`;

/** Every item of `whole` fed one byte at a time, data joined per stream. */
function byteByByte(whole: string): SessionItem[] {
  const decoder = new SessionDecoder();
  const items: SessionItem[] = [];
  for (const byte of Buffer.from(whole)) items.push(...decoder.push(Buffer.from([byte])));
  return [...items, ...decoder.end()];
}

function text(items: readonly SessionItem[], kind: 'banner' | 'data'): string {
  return Buffer.concat(items.flatMap((item) => (item.kind === kind ? [item.bytes] : []))).toString('utf8');
}

describe('reading a remote session', () => {
  it('leaves a banner before the begin line out of the output, however the bytes are cut', () => {
    const whole = `Welcome to the build box\nLast login: today\n\u0001tai begin /tmp/tai-run.42 2 1\n${frame('o', 0, 'out\n')}\u0001tai x 0\n`;
    const items = byteByByte(whole);
    expect(text(items, 'banner')).toBe('Welcome to the build box\nLast login: today\n');
    expect(items).toContainEqual({ kind: 'begin', dir: '/tmp/tai-run.42', inputLines: 2, inputEnded: true });
    expect(text(items, 'data')).toBe('out\n');
    expect(items.at(-1)).toEqual({ kind: 'exit', code: 0 });
  });

  it('carries bytes that look like frames inside a frame as output', () => {
    const tricky = 'a \u0001tai x 9\n line\n';
    const items = new SessionDecoder().push(Buffer.from(`\u0001tai begin /d 0 0\n${frame('o', 0, tricky)}\u0001tai full o\n`));
    expect(text(items, 'data')).toBe(tricky);
    expect(items.at(-1)).toEqual({ kind: 'full', stream: 'o' });
  });

  it('says a job gone before any begin line', () => {
    expect(new SessionDecoder().push(Buffer.from('banner\n\u0001tai gone\n'))).toEqual([
      { kind: 'banner', bytes: Buffer.from('banner\n') },
      { kind: 'gone' },
    ]);
  });

  it('marks bytes outside any frame after the begin line as such', () => {
    const items = new SessionDecoder().push(Buffer.from('\u0001tai begin /d 0 0\nstray\n\u0001tai x 3\n'));
    expect(items.slice(1)).toEqual([{ kind: 'garbage', bytes: Buffer.from('stray\n') }, { kind: 'exit', code: 3 }]);
  });
});

describe('the bytes tai has of each stream', () => {
  it('takes only what is past them: a frame sent again after a reconnect adds nothing, one that overlaps adds its tail', () => {
    const offsets = new SpoolOffsets();
    expect(offsets.accept('o', 0, Buffer.from('half a li')).fresh.toString()).toBe('half a li');
    expect(offsets.accept('o', 0, Buffer.from('half a li')).fresh.toString()).toBe('');
    expect(offsets.accept('o', 5, Buffer.from('a line\n')).fresh.toString()).toBe('ne\n');
    expect(offsets.accept('e', 0, Buffer.from('err\n')).fresh.toString()).toBe('err\n');
    expect(offsets.have('o')).toBe(12);
    expect(offsets.accept('o', 20, Buffer.from('x'))).toEqual({ fresh: Buffer.from('x'), missing: 8 });
  });
});
