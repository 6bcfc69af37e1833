/**
 * Answering an agent's question through the real key path: the mounted
 * Cockpit on a real board, the key router with the panel keys
 * (src/io/cockpit/keys/panel-keys.ts), and a real ACP agent that asks before an
 * edit (test/fixtures/acp-ask-agent.mjs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFIX, KeyScanner } from '../../src/core/input/keys.js';
import { LocalAgentService } from '../../src/io/agents/agent-service.js';
import { startBoardClock } from '../../src/io/cockpit/board-clock.js';
import { routeKeys } from '../../src/io/cockpit/keys/key-router.js';
import { MentionController } from '../../src/io/cockpit/keys/mentions.js';
import { panelKeys } from '../../src/io/cockpit/keys/panel-keys.js';
import { steerKeys, steerRow } from '../../src/io/cockpit/keys/steer-keys.js';
import { createSteerLine } from '../../store/steer-line.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { RecordStore } from '../../src/io/storage/records.js';
import { dispatch } from '../../store/dispatch.js';
import { createMentionPrompt } from '../../store/mention-prompt.js';
import { fixture } from '../helpers/agents.js';
import { mountCockpit } from './harness.js';

const SLOW = { timeout: 15_000, interval: 20 };

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

function mount() {
  const prompt = createMentionPrompt();
  const m = mountCockpit(120, 40, { prompt });
  const dir = mkdtempSync(join(tmpdir(), 'tai-approvals-'));
  const db: StateDb = openStateDb(join(dir, 'tai.db'));
  const service = new LocalAgentService({ board: m.board, records: new RecordStore(db) });
  const ctx = () => ({ board: m.board, now: Date.now(), agents: service });
  const mentions = new MentionController(prompt, {
    board: m.board,
    loadEntries: async () => [],
    locate: () => undefined,
    cwd: dir,
    spawn: (command) => dispatch(command, ctx()),
    changed: () => m.source.dirty(),
  });
  const typed: string[] = [];
  const steer = createSteerLine();
  const type = routeKeys({
    keys: new KeyScanner(DEFAULT_PREFIX),
    board: m.board,
    mentions,
    dispatch: (c) => void dispatch(c, ctx()),
    toMain: (d) => typed.push(d),
    toPanel: panelKeys({ board: m.board, now: Date.now, steer: steerKeys({ line: steer, send: (id, text) => dispatch({ cmd: 'steer', id, text }, ctx()) }) }),
  });
  const clock = startBoardClock(m.board);
  cleanup = () => {
    for (const p of m.board.getState().panels) m.board.getState().cancel(p.id, 'test over', Date.now());
    service.dispose();
    clock.stop();
    m.unmount();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { m, service, type, typed, steer };
}

describe('answering a question with the panel keys', () => {
  it('shows the question and waiting for you, and the focused panel takes the option number', async () => {
    const r = mount();
    const spawned = await r.service.spawn({ cmd: 'spawn', kind: 'acp', argv: [process.execPath, fixture('acp-ask-agent.mjs'), 'edit'], prompt: 'edit', label: 'editor', permissions: 'ask' }, Date.now());
    await vi.waitFor(() => expect(r.m.text().join('\n')).toContain('permission: Edit notes.txt (edit)'), SLOW);
    const screen = r.m.text().join('\n');
    expect(screen).toContain('? editor · waiting for you');
    expect(screen).toContain('3  Reject [reject once]');
    // Keys typed while the main pane has focus are the main program's, not an answer.
    r.type('1');
    expect(r.typed).toEqual(['1']);
    expect(r.m.board.getState().questionOf(spawned.id)).toBeDefined();
    r.m.board.getState().focusSet(spawned.id);
    r.type('7'); // not an option: the question stays open
    expect(r.m.board.getState().questionOf(spawned.id)).toBeDefined();
    r.type('3');
    expect(r.m.board.getState().questionOf(spawned.id)).toBeUndefined();
    await vi.waitFor(() => expect(r.service.peek(spawned.id)?.text).toBe('Editing. Answer: reject-once.'), SLOW);
    await vi.waitFor(() => expect(r.m.text().join('\n')).toContain('✓ q1 answered: Reject (key)'), SLOW);
    expect(r.typed).toEqual(['1']);
  });

  it('takes y for the first allow option', async () => {
    const r = mount();
    const spawned = await r.service.spawn({ cmd: 'spawn', kind: 'acp', argv: [process.execPath, fixture('acp-ask-agent.mjs'), 'diff'], prompt: 'edit', permissions: 'ask' }, Date.now());
    await vi.waitFor(() => expect(r.m.board.getState().questionOf(spawned.id)).toBeDefined(), SLOW);
    r.m.board.getState().focusSet(spawned.id);
    r.type('y');
    await vi.waitFor(() => expect(r.service.peek(spawned.id)?.text).toBe('Answer: allow-once.'), SLOW);
  });
});

describe('steering with the panel keys', () => {
  it('opens the line on a key, Esc cancels it, Enter sends it to a command agent started with stdin', async () => {
    const r = mount();
    const spawned = await r.service.spawn({ cmd: 'spawn', kind: 'command', argv: [process.execPath, '-e', 'process.stdin.pipe(process.stdout)'], stdin: true, label: 'cat' }, Date.now());
    r.m.board.getState().focusSet(spawned.id);
    r.type('oops');
    expect(r.steer.getState()).toMatchObject({ panel: spawned.id, text: 'oops' });
    r.type('\x1b');
    expect(r.steer.getState().panel).toBeNull();
    r.type('h');
    r.type('ello agent');
    r.type('\x7f');
    r.type('t\r');
    await vi.waitFor(() => expect(r.service.peek(spawned.id)?.text).toBe('hello agent\n'), SLOW);
    expect(r.steer.getState().panel).toBeNull();
    expect(r.typed).toEqual([]);
  });

  it('keeps the text and shows why when the agent takes no messages', async () => {
    const r = mount();
    const spawned = await r.service.spawn({ cmd: 'spawn', kind: 'command', argv: [process.execPath, '-e', 'setTimeout(() => {}, 10000)'] }, Date.now());
    r.m.board.getState().focusSet(spawned.id);
    r.type('do this\r');
    await vi.waitFor(() => expect(r.steer.getState().error).toBe(`agent ${spawned.id} takes no messages (kind command: start it with --stdin)`));
    expect(r.steer.getState().text).toBe('do this');
    expect(steerRow(spawned.id, 'do this', 60, r.steer.getState().error)).toContain('✗ agent');
  });
});
