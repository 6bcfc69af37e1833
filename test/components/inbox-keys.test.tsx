/**
 * The inbox's keys through the real key path on a mounted cockpit, with real
 * ACP agents asking (docs/agents.md, "The inbox"): a focused panel's `a`
 * makes a rule for its question's tool and agent, and the agent list's `y`
 * answers every open question of the selected agent's tool.
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
import { openStateDb } from '../../src/io/storage/state-db.js';
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
  const m = mountCockpit(260, 40, { prompt });
  const dir = mkdtempSync(join(tmpdir(), 'tai-inbox-keys-'));
  const db = openStateDb(join(dir, 'tai.db'));
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
  const type = routeKeys({
    keys: new KeyScanner(DEFAULT_PREFIX),
    board: m.board,
    mentions,
    list: m.list,
    dispatch: (c) => void dispatch(c, ctx()),
    toMain: () => {},
    changed: () => m.source.dirty(),
    toPanel: panelKeys({ board: m.board, now: Date.now }),
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
  const spawn = async (script: string, mode: string[], label: string) =>
    (await service.spawn({ cmd: 'spawn', kind: 'acp', argv: [process.execPath, fixture(script), ...mode], prompt: 'go', label, permissions: 'ask' }, Date.now())).id;
  return { m, service, type, spawn, screen: () => m.text().join('\n') };
}

describe('the inbox keys', () => {
  it("a focused panel's a makes a rule for its question's tool: it answers that question and the next of the tool, and the panel says by which rule", async () => {
    const r = mount();
    const id = await r.spawn('acp-rules-agent.mjs', [], 'editor');
    await vi.waitFor(() => expect(r.screen()).toContain('permission: Edit notes.txt (edit)'), SLOW);
    expect(r.screen()).toContain('y allow · n reject · a/r rule 30m');
    r.m.board.getState().focusSet(id);
    r.type('a');
    await vi.waitFor(() => expect(r.screen()).toContain('permission: `npm test` (execute)'), SLOW);
    expect(r.screen()).toContain(`✓ q2 (Edit other.txt) answered by rule R1 (allow edit for panel ${id}, 30 min left): Allow once`);
    expect(r.m.board.getState().rules(Date.now()).map((rule) => rule.text)).toEqual([`allow edit for panel ${id}`]);
    r.type('n');
    await vi.waitFor(() => expect(r.service.peek(id)?.text).toBe('Answers: allow-once, allow-once, reject-once.'), SLOW);
  });

  it("the agent list's y answers every open question of the selected agent's tool and says how many", async () => {
    const r = mount();
    const ids = [await r.spawn('acp-ask-agent.mjs', ['edit'], 'one'), await r.spawn('acp-ask-agent.mjs', ['edit'], 'two'), await r.spawn('acp-ask-agent.mjs', ['edit'], 'three')];
    await vi.waitFor(() => expect(r.m.board.getState().questions(Date.now()).filter((q) => q.open)).toHaveLength(3), SLOW);
    r.type(`${DEFAULT_PREFIX}w`);
    expect(r.m.list.getState().open).toBe(true);
    r.type('y');
    await vi.waitFor(() => expect(r.screen()).toContain('answered 3 questions of edit with allow'), SLOW);
    for (const id of ids) await vi.waitFor(() => expect(r.service.peek(id)?.text).toBe('Editing. Answer: allow-once.'), SLOW);
  });
});
