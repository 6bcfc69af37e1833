/** A new user's first hour: the small bugs, each through the real key path (scanner, router, dispatcher, drawn frame). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFIX } from '../../src/core/input/keys.js';
import { parseRow } from '../../src/io/terminal/sgr-cells.js';
import { mountCockpit } from './harness.js';

const P = DEFAULT_PREFIX;
const T0 = 1_000_000;
let m: ReturnType<typeof mountCockpit> | undefined;
afterEach(() => {
  m?.unmount();
  m = undefined;
});
const ENTRIES = [
  { name: 'echoer', kind: 'command' as const, command: [process.execPath] },
  { name: 'elsewhere', kind: 'command' as const, command: ['tai-test-no-such-program'] },
];

describe('the mention line', () => {
  it('takes a typed @ on the line as it opened as the same @, so @echoer stays @echoer', async () => {
    m = mountCockpit(100, 30, { entries: ENTRIES });
    m.type(`${P}a`);
    m.type('@echoer hi');
    await vi.waitFor(() => expect(m!.prompt.getState().line?.text).toBe('@echoer hi'));
    m.type('\x15@'); // the line emptied by Ctrl-U: a second @ is text now
    await vi.waitFor(() => expect(m!.prompt.getState().line?.text).toBe('@'));
  });

  it('completes only agents whose program is installed', async () => {
    m = mountCockpit(100, 30, { entries: ENTRIES });
    m.type(`${P}@e`);
    m.type('\t');
    await vi.waitFor(() => expect(m!.prompt.getState().line).toEqual({ text: '@echoer ', cursor: 8 }));
  });
});

describe('the help overlay', () => {
  it('wraps its lines to a 60-column window instead of cutting them', async () => {
    m = mountCockpit(60, 30);
    m.type(`${P}?`);
    await vi.waitFor(() => expect(m!.text()[0]).toContain('tai keys'));
    const all = m.text().map((r) => r.trim()).join(' ');
    expect(all).toContain('Tab completes, Enter starts, Esc cancels');
    expect(all).toContain('list every agent (running, hidden, finished); Enter opens one zoomed');
  });
});

describe('zoom and focus', () => {
  it('keeps a zoomed main pane zoomed when a panel opens, and un-zooms a zoomed panel', () => {
    m = mountCockpit(120, 40);
    const s = m.board.getState;
    m.type(`${P}z`);
    expect(s().zoom).toBe('main');
    s().open({ label: 'newcomer' }, T0);
    expect(s().zoom).toBe('main');
    m.type(`${P}z`);
    m.type(`${P}n`);
    m.type(`${P}z`);
    expect(s().zoom).toBe(1);
    s().open({ label: 'another' }, T0);
    expect(s().zoom).toBeNull();
  });

  it('asks before closing a running agent\'s panel: y closes it, any other key keeps it and reaches nobody', async () => {
    m = mountCockpit(120, 40);
    const s = m.board.getState;
    const id = s().open({ label: 'busy' }, T0);
    m.type(`${P}n${P}x`);
    await vi.waitFor(() => expect(m!.text()[39]).toContain('cancel #1 busy? y cancels it, any other key keeps it'));
    m.type('q');
    expect(s().panels.map((p) => p.id)).toEqual([id]);
    expect(m.typed).toEqual([]);
    await vi.waitFor(() => expect(m!.text()[39]).toContain('C-] ? help'));
    m.type(`${P}x`);
    m.type('y');
    expect(s().panels).toEqual([]);
    expect(s().focus).toBe('main');
  });

  it('gives the focus back where it was when a panel the agent list opened is un-zoomed', () => {
    m = mountCockpit(120, 40);
    const s = m.board.getState;
    const id = s().open({ label: 'ended' }, T0);
    s().finish(id, 'done', 'ok', T0);
    m.type(`${P}w`);
    m.type('\r');
    expect([s().focus, s().zoom]).toEqual([id, id]);
    m.type(`${P}z`);
    expect([s().focus, s().zoom]).toEqual(['main', null]);
    m.type('exit\r');
    expect(m.typed.join('')).toBe('exit\r');
  });

  it('gives the focus of a closed panel to the panel below, else above, else the main pane', () => {
    m = mountCockpit(120, 40);
    const s = m.board.getState;
    for (const label of ['a', 'b', 'c']) s().open({ label }, T0);
    m.type(`${P}n${P}n`);
    expect(s().focus).toBe(2);
    m.type(`${P}xy`); // a running agent's panel asks first: y closes it
    expect(s().focus).toBe(3);
    m.type(`${P}xy`);
    expect(s().focus).toBe(1);
    m.type(`${P}xy`);
    expect(s().focus).toBe('main');
  });
});

describe('NO_COLOR', () => {
  it('draws headers in bold, the focused one inverted, with no colour', async () => {
    m = mountCockpit(120, 40, { noColor: true });
    const s = m.board.getState;
    s().open({ label: 'plain' }, T0);
    s().open({ label: 'other' }, T0);
    m.type(`${P}n`);
    await vi.waitFor(() => expect(parseRow(m!.frame().split('\n')[0], 120).styles[70]).toBe('1;7'));
    const rows = m.frame().split('\n');
    expect(parseRow(rows[rows.findIndex((r) => r.includes('other'))], 120).styles[70]).toBe('1');
    expect(m.frame()).not.toMatch(/\x1b\[([0-9;]*;)?(3[0-8]|9[0-7])[;m]/); // no foreground colour anywhere (39 is the default)
  });
});
