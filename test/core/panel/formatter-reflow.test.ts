/**
 * A panel formatted again at a new width (src/core/panel/formatter.ts,
 * format-source.ts): after a zoom, an unzoom or a resize the panel reads
 * exactly as if everything had been written at the new width, words
 * wrapped, nothing cut; bounded to what the panel can scroll back to and
 * formatted a slice at a time.
 */
import { describe, expect, it } from 'vitest';
import xterm from '@xterm/headless';
import type { AgentEvent } from '../../../src/core/events.js';
import { FORMAT_SLICE, Formatter } from '../../../src/core/panel/formatter.js';
import { FormatSource, SOURCE_LINES_MAX, SOURCE_UNITS_MAX } from '../../../src/core/panel/format-source.js';

const { Terminal } = xterm;

/** A session of every kind of call, fed to `f`; its bytes. */
function session(f: Formatter): string {
  const ev = (e: AgentEvent): string => f.event(e);
  return [
    f.opening('tidy the parser and its tests'),
    ev({ type: 'text', text: 'The quick brown fox jumps over the lazy dog, and then the ' }),
    ev({ type: 'text', text: 'dog wakes up and chases the fox across the wide green field.\n' }),
    ev({ type: 'thought', text: 'maybe the fox should rest under the old oak tree for a while' }),
    ev({ type: 'tool_start', name: 'shell', args: '{"cmd":"npm test"}' }),
    ev({ type: 'tool_end', name: 'shell', result: 'ok 12 tests passed', failed: false }),
    f.rows(['\x1b[33m? allow shell npm run build --watch in the repository root (y / n)']),
    ev({ type: 'text', text: 'Done: every test passes and the parser reads nested brackets now.' }),
    f.raw('\r\nthe lane fix was dropped: tai lane undrop fix brings it back\r\n'),
    f.footer('done', 65_000, 'parser tidied'),
  ].join('');
}

/** The screen's lines (scrollback and visible, right-trimmed, trailing blank ones dropped) after `data`, at `cols`. */
async function lines(cols: number, ...data: string[]): Promise<string[]> {
  const term = new Terminal({ cols, rows: 10, scrollback: 1000, allowProposedApi: true });
  for (const d of data) await new Promise<void>((resolve) => term.write(d, resolve));
  const buf = term.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < buf.length; y++) out.push(buf.getLine(y)?.translateToString(true) ?? '');
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  term.dispose();
  return out;
}

describe('a panel formatted again at a new width', () => {
  it('reads, after a zoom and an unzoom, exactly as text written at the narrow width: words wrapped, nothing cut', async () => {
    const narrow = new Formatter(40);
    const expected = await lines(40, session(narrow) + narrow.release());

    // Written while zoomed (120 columns), then the panel is narrow again.
    const zoomed = new Formatter(120);
    const wide = session(zoomed) + zoomed.release();
    expect(zoomed.setWidth(40)).toBe(true);
    expect(zoomed.reflowing).toBe(true);
    let again = '';
    while (zoomed.backlog) again += zoomed.drain();
    again += zoomed.release();
    expect(zoomed.reflowing).toBe(false);
    expect(await lines(40, wide, again)).toEqual(expected);
    // Every word whole: no line ends inside a word that goes on at the next.
    expect(expected.join('\n')).toContain('chases the fox');
  });

  it('wraps by word, after a new width, a line written into the panel as it is, keeping its colour', async () => {
    const hint = 'the lane fix was dropped: tai lane undrop fix brings it back';
    const raw = `\r\n\x1b[33m${hint}\x1b[0m\r\n`;
    const narrow = new Formatter(30);
    const expected = await lines(30, narrow.opening('fix it') + narrow.raw(raw));

    const zoomed = new Formatter(120);
    const wide = zoomed.opening('fix it') + zoomed.raw(raw);
    zoomed.setWidth(30);
    let again = '';
    while (zoomed.backlog) again += zoomed.drain();
    const term = new Terminal({ cols: 30, rows: 10, scrollback: 1000, allowProposedApi: true });
    for (const d of [wide, again]) await new Promise<void>((resolve) => term.write(d, resolve));
    const buf = term.buffer.active;
    const shown: string[] = [];
    for (let y = 0; y < buf.length; y++) shown.push(buf.getLine(y)?.translateToString(true) ?? '');
    while (shown.length > 0 && shown[shown.length - 1] === '') shown.pop();
    // Each word whole on a line of at most 29 columns, and the lines read as written.
    expect(shown).toEqual(expected);
    const rows = shown.slice(shown.findIndex((r) => r.startsWith('the lane')));
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.join(' ')).toBe(hint);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(29);
    // The colour it was written with is on every cell of it.
    for (let y = buf.length - rows.length; y < buf.length; y++) {
      const line = buf.getLine(y);
      const text = line?.translateToString(true) ?? '';
      if (text === '') continue;
      expect(line?.getCell(0)?.getFgColor()).toBe(3);
      expect(line?.getCell(text.length - 1)?.getFgColor()).toBe(3);
    }
    term.dispose();
  });

  it('formats again only when the width changed, and a panel with nothing yet just takes the width', () => {
    const f = new Formatter(60);
    expect(f.setWidth(40)).toBe(false);
    f.event({ type: 'text', text: 'hello there\n' });
    expect(f.setWidth(40)).toBe(false);
    expect(f.setWidth(50)).toBe(true);
  });

  it('keeps text that arrives while it formats again after what came before, once', async () => {
    const f = new Formatter(100);
    const first = f.event({ type: 'text', text: 'alpha beta gamma delta epsilon zeta eta theta\n' });
    f.setWidth(20);
    expect(f.event({ type: 'text', text: 'iota kappa lambda\n' })).toBe('');
    let again = '';
    while (f.backlog) again += f.drain();
    const shown = (await lines(20, first, again)).join(' ');
    expect(shown.match(/alpha/g)).toHaveLength(1);
    expect(shown.match(/iota/g)).toHaveLength(1);
    expect(shown.indexOf('theta')).toBeLessThan(shown.indexOf('iota'));
  });

  it('keeps only what the panel can scroll back to, and formats it a slice a flush however much it was given', () => {
    const f = new Formatter(80);
    // 1 MiB of short lines, then a long line without a line end.
    const line = 'some words on a line\n';
    for (let i = 0; i < (1 << 20) / line.length; i++) f.event({ type: 'text', text: line });
    f.event({ type: 'text', text: 'x'.repeat(200_000) });
    while (f.backlog) f.drain();
    expect(f.sourceUnits).toBeLessThanOrEqual(SOURCE_UNITS_MAX);
    f.setWidth(40);
    const before = f.formatted;
    f.drain();
    expect(f.formatted - before).toBeLessThanOrEqual(FORMAT_SLICE);
  });

  it("keeps of a long tool result only what is shown, and still says the whole result's size after a new width", () => {
    const f = new Formatter(80);
    f.event({ type: 'tool_end', name: 'cat', result: 'first line\n' + 'z'.repeat(1_000_000), failed: false });
    expect(f.sourceUnits).toBeLessThanOrEqual(FORMAT_SLICE);
    f.setWidth(40);
    let again = '';
    while (f.backlog) again += f.drain();
    expect(again).toContain('1000011 chars');
  });

  it('bounds its record by line ends and by units, cutting a long text at a line end', () => {
    const source = new FormatSource();
    for (let i = 0; i < SOURCE_LINES_MAX * 2; i++) source.add({ type: 'event', event: { type: 'note', text: `note ${i}` } });
    expect(source.calls.length).toBeLessThanOrEqual(SOURCE_LINES_MAX + SOURCE_LINES_MAX / 4);
    expect(source.calls.at(-1)).toEqual({ type: 'event', event: { type: 'note', text: `note ${SOURCE_LINES_MAX * 2 - 1}` } });

    const text = new FormatSource();
    const row = `${'y'.repeat(99)}\n`;
    text.add({ type: 'stream', thought: false, text: row.repeat(1000) });
    expect(text.units).toBeLessThanOrEqual(SOURCE_UNITS_MAX);
    const kept = text.calls[0];
    expect(kept?.type === 'stream' && kept.text.startsWith('y'.repeat(99) + '\n')).toBe(true);
    expect(kept?.type === 'stream' && kept.text.endsWith(row)).toBe(true);
  });
});
