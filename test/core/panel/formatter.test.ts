import { describe, expect, it } from 'vitest';
import { Formatter } from '../../../src/core/panel/formatter.js';
import type { AgentEvent } from '../../../src/core/events.js';

const R = '\x1b[0m';
const DIM = '\x1b[2m';
const text = (t: string): AgentEvent => ({ type: 'text', text: t });
const thought = (t: string): AgentEvent => ({ type: 'thought', text: t });

describe('Formatter opening', () => {
  it('shows the task dim on one line and then a blank line', () => {
    expect(new Formatter(40).opening('fix the bug')).toBe(`${DIM}▸ fix the bug${R}\r\n\r\n`);
  });

  it('puts a multi-line, hostile task on one sanitized line', () => {
    expect(new Formatter(40).opening('fix\x1b]0;evil\x07 the\n\nbug\x1b[2J')).toBe(`${DIM}▸ fix the bug${R}\r\n\r\n`);
  });

  it('clips the task to the pane width', () => {
    expect(new Formatter(20).opening('a'.repeat(50))).toBe(`${DIM}▸ ${'a'.repeat(16)}…${R}\r\n\r\n`);
  });

  it('clips the task to ORCH_TASK_SHOW_MAX characters in a wide pane', () => {
    expect(new Formatter(1000).opening('x'.repeat(400))).toBe(`${DIM}▸ ${'x'.repeat(299)}…${R}\r\n\r\n`);
  });
});

describe('Formatter text and thought', () => {
  it('word-wraps text to the width minus one and holds the last word', () => {
    const f = new Formatter(12);
    expect(f.event(text('hello wor'))).toBe('hello');
    expect(f.holding).toBe(true);
    expect(f.event(text('ld again\n'))).toBe(' world\r\nagain\r\n');
    expect(f.holding).toBe(false);
  });

  it('releases a held word on request', () => {
    const f = new Formatter(40);
    expect(f.event(text('partial'))).toBe('');
    expect(f.release()).toBe('partial');
  });

  it('recognizes an escape sequence split across text tokens', () => {
    const f = new Formatter(40);
    expect(f.event(text('a \x1b[3'))).toBe('a');
    expect(f.event(text('1mred\x1b[0m '))).toBe(' \x1b[31mred\x1b[0m');
  });

  it('removes cursor moves and titles from text', () => {
    const f = new Formatter(40);
    expect(f.event(text('\x1b[Hgot\x1b]0;t\x07cha\r\x1b[2K \n'))).toBe('gotcha\r\r\n'); // the lone CR is kept (it returns to the line's start)
  });

  it('shows thoughts dim italic and resets before text', () => {
    const f = new Formatter(40);
    expect(f.event(thought('thinking hard '))).toBe('\x1b[0;2;3mthinking hard');
    expect(f.event(thought('still '))).toBe(' still');
    expect(f.event(text('answer '))).toBe(`\r\n${R}answer`); // text after a thought starts a line of its own
  });

  it('starts a thought after unfinished text on a new line, and text after it too', () => {
    const f = new Formatter(40);
    expect(f.event(text('Let me look'))).toBe('Let me');
    expect(f.event(thought('the file is big'))).toBe(' look\r\n\x1b[0;2;3mthe file is');
    expect(f.event(text('Done.\n'))).toBe(` big\r\n${R}Done.\r\n`);
    // A thought after a finished line needs no extra line.
    expect(f.event(thought('next '))).toBe('\x1b[0;2;3mnext');
    // Text that starts with its own line end gets no second one.
    expect(f.event(text('\nend '))).toBe(` ${R}\r\nend`);
  });

  it('puts dim italic back after an SGR inside a thought', () => {
    const f = new Formatter(40);
    expect(f.event(thought('a \x1b[0mb '))).toBe('\x1b[0;2;3ma \x1b[0m\x1b[2;3mb');
  });

  it('ignores usage events in the stream', () => {
    expect(new Formatter(40).event({ type: 'usage', tokens: 1234 })).toBe('');
  });
});

describe('Formatter tool lines', () => {
  it('starts a tool on a new line: cyan name and dim arguments', () => {
    const f = new Formatter(40);
    expect(f.event(text('hello wor'))).toBe('hello');
    expect(f.event({ type: 'tool_start', name: 'shell', args: 'ls -la' })).toBe(
      ` wor\r\n\x1b[36m⏺ shell${R}${DIM}(ls -la)${R}\r\n`,
    );
  });

  it('clips the arguments to the pane width', () => {
    const f = new Formatter(30);
    expect(f.event({ type: 'tool_start', name: 'bash', args: 'x'.repeat(100) })).toBe(
      `\x1b[36m⏺ bash${R}${DIM}(${'x'.repeat(20)}…)${R}\r\n`,
    );
  });

  it('clips the arguments to ORCH_TOOL_ARGS_MAX characters in a wide pane', () => {
    const f = new Formatter(300);
    expect(f.event({ type: 'tool_start', name: 'bash', args: 'y'.repeat(200) })).toBe(
      `\x1b[36m⏺ bash${R}${DIM}(${'y'.repeat(119)}…)${R}\r\n`,
    );
  });

  it('shows a tool without arguments without parentheses', () => {
    expect(new Formatter(40).event({ type: 'tool_start', name: 'list', args: '' })).toBe(`\x1b[36m⏺ list${R}\r\n`);
  });

  it('shows the first three non-empty result lines and the size', () => {
    const f = new Formatter(40);
    const result = 'line1\n\nline2\n   \nline3\nline4';
    expect(f.event({ type: 'tool_end', name: 'shell', result, failed: false })).toBe(
      `${DIM}⎿ line1${R}\r\n${DIM}  line2${R}\r\n${DIM}  line3 · 28 chars${R}\r\n`,
    );
  });

  it('shows a failed tool result in red', () => {
    const f = new Formatter(40);
    expect(f.event({ type: 'tool_end', name: 'shell', result: 'exit 1', failed: true })).toBe(
      `\x1b[31m⎿ exit 1 · 6 chars${R}\r\n`,
    );
  });

  it('clips result lines to the width and puts the size on its own line when it does not fit', () => {
    const f = new Formatter(20);
    expect(f.event({ type: 'tool_end', name: 'cat', result: 'z'.repeat(30), failed: false })).toBe(
      `${DIM}⎿ ${'z'.repeat(16)}…${R}\r\n${DIM}  · 30 chars${R}\r\n`,
    );
  });

  it('clips result lines to ORCH_TOOL_RESULT_COLS in a wide pane', () => {
    const f = new Formatter(400);
    expect(f.event({ type: 'tool_end', name: 'cat', result: 'w'.repeat(200), failed: false })).toBe(
      `${DIM}⎿ ${'w'.repeat(159)}… · 200 chars${R}\r\n`,
    );
  });

  it('says when a tool printed nothing', () => {
    expect(new Formatter(40).event({ type: 'tool_end', name: 'x', result: '', failed: false })).toBe(
      `${DIM}⎿ (no output) · 0 chars${R}\r\n`,
    );
  });

  it('sanitizes tool results and expands their tabs', () => {
    const f = new Formatter(40);
    expect(f.event({ type: 'tool_end', name: 'x', result: '\x1b[2J\x1b[Ha\tb\r\n', failed: false })).toBe(
      `${DIM}⎿ a       b · 12 chars${R}\r\n`,
    );
  });

  it('never splits a wide character when clipping', () => {
    const f = new Formatter(10);
    expect(f.event({ type: 'tool_end', name: 'x', result: '漢字漢字漢字', failed: false })).toBe(
      `${DIM}⎿ 漢字漢…${R}\r\n${DIM}  · 6 chars${R}\r\n`,
    );
  });
});

describe('Formatter plan, note and error', () => {
  it('shows a plan with a magenta mark and one line per entry', () => {
    const f = new Formatter(40);
    expect(f.event({ type: 'plan', entries: ['[completed] read code', '[pending] write tests'] })).toBe(
      `\x1b[35m▤${R} [completed] read code\r\n  [pending] write tests\r\n`,
    );
  });

  it('shows a note in yellow', () => {
    expect(new Formatter(40).event({ type: 'note', text: 'asked for permission' })).toBe(
      '\x1b[33m· asked for permission\x1b[0m\r\n',
    );
  });

  it('shows an error in red, word-wrapped', () => {
    expect(new Formatter(20).event({ type: 'error', text: 'rate_limit: slow down please' })).toBe(
      '\x1b[31m✗ rate_limit: slow\r\ndown please\x1b[0m\r\n',
    );
  });

  it('clips a note to ORCH_NOTE_MAX characters', () => {
    const out = new Formatter(1000).event({ type: 'note', text: 'n'.repeat(1000) });
    expect(out).toBe(`\x1b[33m· ${'n'.repeat(399)}…\x1b[0m\r\n`);
  });

  it('starts a structural line on a fresh line and resets a colour the agent left on', () => {
    const f = new Formatter(40);
    expect(f.event(text('\x1b[31mred text '))).toBe('\x1b[31mred text');
    expect(f.event({ type: 'error', text: 'boom' })).toBe(`${R}\r\n\x1b[31m✗ boom${R}\r\n`);
  });
});

describe('Formatter footer', () => {
  it('releases the held word, leaves a blank line and shows a green done', () => {
    const f = new Formatter(40);
    expect(f.event(text('all good'))).toBe('all');
    expect(f.footer('done', 12_345, 'wrote 3 files')).toBe(` good\r\n\r\n\x1b[32m✓ done${R} · 12s · wrote 3 files\r\n`);
  });

  it('colours failed, timeout and cancelled', () => {
    expect(new Formatter(40).footer('failed', 125_000, '')).toBe(`\r\n\x1b[31m✗ failed${R} · 2m05s\r\n`);
    expect(new Formatter(40).footer('timeout', 600_000, 'time limit')).toBe(
      `\r\n\x1b[38;5;208m⏱ timeout${R} · 10m00s · time limit\r\n`,
    );
    expect(new Formatter(40).footer('cancelled', 1_000, 'by user')).toBe(`\r\n\x1b[90m⊘ cancelled${R} · 1s · by user\r\n`);
  });

  it('clips the summary to ORCH_SUMMARY_MAX characters', () => {
    const out = new Formatter(1000).footer('done', 0, 's'.repeat(500));
    expect(out).toBe(`\r\n\x1b[32m✓ done${R} · 0s · ${'s'.repeat(299)}…\r\n`);
  });

  it('ends a thought before the footer', () => {
    const f = new Formatter(40);
    expect(f.event(thought('hmm'))).toBe('');
    expect(f.footer('done', 0, '')).toBe(`\x1b[0;2;3mhmm${R}\r\n\r\n\x1b[32m✓ done${R} · 0s\r\n`);
  });
});

describe('Formatter line ends', () => {
  it('ends every line with CRLF across a whole session', () => {
    const f = new Formatter(30);
    const out = [
      f.opening('task one\ntwo'),
      f.event(text('Some text\nwith lines and a longish paragraph that wraps.\n')),
      f.event({ type: 'tool_start', name: 'shell', args: '{"cmd":"ls"}' }),
      f.event({ type: 'tool_end', name: 'shell', result: 'a\nb\r\nc\n', failed: false }),
      f.event({ type: 'plan', entries: ['one', 'two'] }),
      f.event({ type: 'note', text: 'a note\nover lines' }),
      f.event(thought('thinking')),
      f.footer('done', 1_000, 'ok'),
    ].join('');
    expect(out.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('wraps at the new width after setWidth', () => {
    const f = new Formatter(40);
    f.setWidth(8);
    expect(f.event(text('abc defgh '))).toBe('abc\r\ndefgh');
  });
});
