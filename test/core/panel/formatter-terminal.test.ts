import { describe, expect, it } from 'vitest';
import xterm from '@xterm/headless';
import { Formatter } from '../../../src/core/panel/formatter.js';
import type { AgentEvent } from '../../../src/core/events.js';

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

const W = 30;

function write(term: Term, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

/** The formatter output of a session whose agent tries every trick it can. */
function hostileSession(f: Formatter): string[] {
  const ev = (e: AgentEvent): string => f.event(e);
  return [
    f.opening('audit the repo\x1b]0;pwned\x07 now'),
    ev({ type: 'text', text: 'Hello\x1b[2J\x1b[H the\x1b[10A quick brown fox jumps over the lazy dog. ' }),
    ev({ type: 'text', text: '漢字漢字漢字 wide and 😀 emoji ' }),
    ev({ type: 'text', text: 'averyveryveryverylongwordwithoutspaces' }),
    ev({ type: 'text', text: ' end\x1b[?1049h\x1b' }),
    ev({ type: 'text', text: 'c done\r\rover\x9b5A\x1b]2;t\x1b\\\n' }),
    ev({ type: 'thought', text: 'hmm\x1b[1;1H\x1b[31m red\x1b[0m thought\x1b[6n' }),
    ev({ type: 'tool_start', name: 'shell\x1b[2K', args: '{"cmd":"rm -rf / \x1b[31m; echo \x1b[8;0;0t"}' }),
    ev({ type: 'tool_end', name: 'shell', result: 'ok\x1b[1;1Hline\ttab\n\x1b]2;title\x1b\\second\x1bP+q\x1b\\', failed: true }),
    ev({ type: 'note', text: 'perm\x07ission \x1bc asked' }),
    ev({ type: 'error', text: 'code\b\b\b\bboom: lost' }),
    f.footer('failed', 65_000, 'gave up\x1b[3J'),
  ];
}

describe('Formatter output in a real terminal', () => {
  it('keeps hostile input inside the pane and never reaches the last column', async () => {
    const term = new Terminal({ cols: W, rows: 40, scrollback: 100, allowProposedApi: true });
    const titles: string[] = [];
    term.onTitleChange((t) => titles.push(t));
    const buffer = term.buffer.active;
    let lastRow = 0;
    for (const chunk of hostileSession(new Formatter(W))) {
      await write(term, chunk);
      // The cursor only moves down or stays: nothing can send it back up or off the pane.
      const row = buffer.baseY + buffer.cursorY;
      expect(row).toBeGreaterThanOrEqual(lastRow);
      expect(buffer.cursorX).toBeLessThan(W);
      lastRow = row;
    }

    expect(titles).toEqual([]);
    expect(term.buffer.active.type).toBe('normal');
    const rows: string[] = [];
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y);
      if (line === undefined) continue;
      expect(line.isWrapped).toBe(false);
      expect(line.getCell(W - 1)?.getChars() ?? '').toBe('');
      rows.push(line.translateToString(true));
    }
    while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
    expect(rows).toEqual([
      '▸ audit the repo now',
      '',
      'Hello the quick brown fox',
      'jumps over the lazy dog.',
      '漢字漢字漢字 wide and 😀',
      'emoji',
      'averyveryveryverylongwordwith',
      'overpaces end done', // a carriage return goes back to the start of the line; it cannot leave the pane
      'hmm red thought',
      '⏺ shell({"cmd":"rm -rf / ;…)',
      '⎿ okline  tab',
      '  second · 40 chars',
      '· permission  asked',
      '✗ codeboom: lost',
      '',
      '✗ failed · 1m05s · gave up',
    ]);
  });

  it('keeps every line inside W-1 columns for streamed text at many widths', async () => {
    const words = 'Lorem ipsum 漢字 dolor sit amet, 😀 consectetur adipiscing elit, sed\tdo eiusmod supercalifragilisticexpialidocious tempor. ';
    for (const cols of [20, 23, 31, 47]) {
      const term = new Terminal({ cols, rows: 10, scrollback: 500, allowProposedApi: true });
      const f = new Formatter(cols);
      let out = f.opening('stream');
      for (let k = 0; k < 4; k++) {
        for (let i = 0; i < words.length; i += 3) out += f.event({ type: 'text', text: words.slice(i, i + 3) });
      }
      out += f.footer('done', 1_000, '');
      await write(term, out);
      const buffer = term.buffer.active;
      for (let y = 0; y < buffer.length; y++) {
        const line = buffer.getLine(y);
        expect(line?.isWrapped ?? false).toBe(false);
        expect(line?.getCell(cols - 1)?.getChars() ?? '').toBe('');
      }
    }
  });
});

describe('Progress lines in a panel', () => {
  it('overwrite themselves in place on a carriage return, as git, curl, pip and npm print them', async () => {
    const term = new Terminal({ cols: 60, rows: 10, scrollback: 100, allowProposedApi: true });
    const f = new Formatter(60);
    let out = f.opening('clone');
    for (const pct of [10, 20, 30]) out += f.event({ type: 'text', text: `Receiving objects: ${pct}% (${pct}/100)\r` });
    out += f.event({ type: 'text', text: 'Receiving objects: 100% (100/100), done.\n' });
    await write(term, out);
    const rows = Array.from({ length: 10 }, (_, y) => term.buffer.active.getLine(y)?.translateToString(true) ?? '');
    expect(rows.filter((r) => r.includes('Receiving objects'))).toEqual(['Receiving objects: 100% (100/100), done.']);
    expect(out).not.toContain('Receiving objects: 10%Receiving');
  });

  it('cannot leave the panel with a carriage return: the cursor stays on its row', async () => {
    const term = new Terminal({ cols: 20, rows: 5, scrollback: 100, allowProposedApi: true });
    const f = new Formatter(20);
    await write(term, f.opening('t') + f.event({ type: 'text', text: 'abc\r\r\rxy\n' }));
    const rows = Array.from({ length: 5 }, (_, y) => term.buffer.active.getLine(y)?.translateToString(true) ?? '');
    expect(rows).toContain('xyc');
  });
});
