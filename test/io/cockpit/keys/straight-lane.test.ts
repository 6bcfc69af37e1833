import { describe, expect, it } from 'vitest';
import { routeKeys, straightLane, type KeyRoute } from '../../../../src/io/cockpit/keys/key-router.js';
import { MentionController } from '../../../../src/io/cockpit/keys/mentions.js';
import { DEFAULT_PREFIX, KeyScanner } from '../../../../src/core/input/keys.js';
import { xtermScreens } from '../../../../src/io/terminal/screen.js';
import { createBoard } from '../../../../store/board.js';
import { createAgentList } from '../../../../store/agent-list.js';
import { createMentionPrompt } from '../../../../store/mention-prompt.js';

/** A router over a real scanner, board, list and mention prompt, whose every outlet records what it was given. */
function rig() {
  const calls: unknown[][] = [];
  const board = createBoard({ createScreen: xtermScreens, cols: 100, rows: 30 });
  const keys = new KeyScanner(DEFAULT_PREFIX);
  const list = createAgentList();
  const mentions = new MentionController(createMentionPrompt(), {
    board,
    loadEntries: async () => [],
    locate: () => undefined,
    cwd: '/',
    spawn: async () => ({ ok: false, error: 'no agents here' }),
    changed: () => calls.push(['prompt changed']),
  });
  let copying = false;
  const route: KeyRoute = {
    keys,
    board,
    mentions,
    list,
    now: () => 0,
    after: () => () => {},
    dispatch: (command) => {
      calls.push(['dispatch', command]);
      if (command.cmd === 'help') board.getState().helpToggle(); // as the cockpit's dispatcher does
    },
    toMain: (data) => calls.push(['toMain', data]),
    toPanel: (id, data) => calls.push(['toPanel', id, data]),
    changed: () => calls.push(['changed']),
    mainMouse: { main: () => ({ tracking: 'none', encoding: 'x10' }), send: (data) => calls.push(['mouse', data]) },
    copy: {
      start: () => (calls.push(['copy']), (copying = true)),
      // Copy mode ends on q, as the real one does; its other keys move its cursor.
      key: (key) => (calls.push(['copy key', key]), (copying = key !== 'q')),
    },
  };
  const state = () => ({ awaiting: keys.awaiting, prompting: keys.prompting, copying: keys.copying, help: board.getState().help, list: list.getState().open, copy: copying, line: mentions.prompt.getState().line });
  return { calls, route, onKeys: routeKeys(route), straight: straightLane(route), state };
}

/**
 * Keys and pieces of keys a user or a paste sends (text, the prefix and what follows it, escapes split across
 * reads), and, named with a #, what changes by other means than keys (the socket's help, the list).
 */
const PIECES = ['a', 'Z', ' ', 'ls -l', '\r', '\x7f', '\t', DEFAULT_PREFIX, '\x1b', '\x1b[', '[A', '\x1b[A', '@', '[', 'w', '?', 'q', 'h', '\x1b[200~', 'pasted', '\x1b[201~', 'é', '世', '\x1b[<0;3;4M', '\x1b[<0;3', ';4M', '#help', '#list'];

/** Applies a # piece to a rig: what the socket or a mouse click would change. */
function happen(r: ReturnType<typeof rig>, piece: string): void {
  if (piece === '#help') r.route.board.getState().helpToggle();
  const list = r.route.list!.getState();
  if (piece === '#list') list[list.open ? 'close' : 'show'](undefined);
}

/** A small seeded generator (mulberry32), so that a failure names its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the straight lane (key-router.ts)', () => {
  it('takes a chunk only when the router would do nothing with it but hand it to the main pane as it is', () => {
    let taken = 0;
    let left = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const next = random(seed);
      // Two routers in the same state: the lane tries each chunk on one, the router alone takes it on the other.
      const lane = rig();
      const plain = rig();
      for (let step = 0; step < 80; step++) {
        const chunk = PIECES[Math.floor(next() * PIECES.length)]!;
        const where = `seed ${seed}, step ${step}, ${JSON.stringify(chunk)}`;
        lane.calls.length = 0;
        plain.calls.length = 0;
        if (chunk.startsWith('#')) {
          happen(lane, chunk);
          happen(plain, chunk);
        } else if (lane.straight(chunk)) {
          taken++;
          plain.onKeys(chunk);
          expect(lane.calls, where).toEqual([['toMain', chunk]]);
          expect(plain.calls, where).toEqual([['toMain', chunk]]);
        } else {
          left++;
          expect(lane.calls, where).toEqual([]); // a refusal changes nothing
          lane.onKeys(chunk);
          plain.onKeys(chunk);
          expect(lane.calls, where).toEqual(plain.calls);
        }
        expect(lane.state(), where).toEqual(plain.state());
      }
    }
    // Both ways are walked often: the test would not notice a lane that never opens or never closes.
    expect(taken).toBeGreaterThan(500);
    expect(left).toBeGreaterThan(500);
  });

  it('leaves to the router: the prefix, escapes, a key after a prefix, help, the open list', () => {
    const r = rig();
    expect(r.straight('a')).toBe(true);
    expect(r.straight(`a${DEFAULT_PREFIX}`)).toBe(false);
    expect(r.straight('\x1b[A')).toBe(false);
    r.onKeys(DEFAULT_PREFIX);
    expect(r.straight('d')).toBe(false); // prefix + d is a command
    r.onKeys('?'); // prefix + ? opens help
    expect(r.straight('a')).toBe(false);
    r.onKeys('a'); // any key closes it
    r.route.board.getState().helpToggle(); // opened by other means (the socket)
    expect(r.straight('a')).toBe(false);
    r.route.board.getState().helpToggle();
    r.onKeys('\x1b['); // the start of a sequence, carried to the next read
    expect(r.straight('A')).toBe(false);
    r.onKeys('A');
    r.route.list!.getState().show(undefined);
    expect(r.straight('a')).toBe(false);
    r.route.list!.getState().close();
    r.onKeys('\x1b'); // a lone escape at the end of a read is passed at once
    expect(r.straight('a')).toBe(true);
  });
});
