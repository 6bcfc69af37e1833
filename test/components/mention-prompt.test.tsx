import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { helpLines } from '../../components/HelpOverlay.js';
import type { AgentEntry } from '../../src/core/agents/agent-registry.js';
import { DEFAULT_PREFIX, KeyScanner } from '../../src/core/input/keys.js';
import { locateAgent } from '../../src/io/agents/spawn/agent-config.js';
import { LocalAgentService } from '../../src/io/agents/agent-service.js';
import { AgentsStore } from '../../src/io/storage/agents-store.js';
import { startBoardClock } from '../../src/io/cockpit/board-clock.js';
import { routeKeys } from '../../src/io/cockpit/keys/key-router.js';
import { MentionController } from '../../src/io/cockpit/keys/mentions.js';
import { RecordStore } from '../../src/io/storage/records.js';
import { AcpSessionPool } from '../../src/io/agents/runners/acp/acp-pool.js';
import { runnersWithSessions } from '../../src/io/agents/runners/table.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { dispatch } from '../../store/dispatch.js';
import { createMentionPrompt, type MentionPrompt } from '../../store/mention-prompt.js';
import { fixture, groupExists } from '../helpers/agents.js';
import { mountCockpit } from './harness.js';

/** For waits on real agents (a reaper, a node start, output read at the pacer's ticks): seconds under load, not one. */
const SLOW = { timeout: 15_000, interval: 20 };

const P = DEFAULT_PREFIX;
const agent = fixture('command-agent.mjs');
const ENTRIES: AgentEntry[] = [
  { name: 'echo', kind: 'command', command: [process.execPath, agent, '--stdin'] },
  { name: 'echoer', kind: 'command', command: [process.execPath, agent, '--say', 'echoer here'] },
  { name: 'lingerer', kind: 'command', command: [process.execPath, agent, '--say', 'lingering', '--linger'] },
  { name: 'ghost', kind: 'command', command: ['tai-test-no-such-program'] },
  { name: 'keeper', kind: 'acp', command: [process.execPath, fixture('acp-session-agent.mjs')] },
];

interface Rig {
  m: ReturnType<typeof mountCockpit>;
  prompt: MentionPrompt;
  service: LocalAgentService;
  /** Where the acp runner keeps sessions between mentions. */
  sessions: AcpSessionPool;
  keys: KeyScanner;
  /** Types a chunk through the real key path. */
  type(chunk: string): void;
  /** What reached the main pane. */
  typed: string[];
  /** The prompt's row (the last) as plain text. */
  bottom(): string;
  stop(): void;
}

let rig: Rig | undefined;
let db: StateDb | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (rig) for (const p of rig.m.board.getState().panels) rig.m.board.getState().cancel(p.id, 'test over', Date.now());
  await rig?.sessions.close();
  rig?.service.dispose();
  rig?.stop();
  rig?.m.unmount();
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  rig = db = dir = undefined;
});

function mount(maxLive?: number): Rig {
  const prompt = createMentionPrompt();
  const m = mountCockpit(120, 40, { prompt, ...(maxLive === undefined ? {} : { maxLive }) });
  dir = mkdtempSync(join(tmpdir(), 'tai-mention-'));
  db = openStateDb(join(dir, 'tai.db'));
  const sessions = new AcpSessionPool();
  const service = new LocalAgentService({ board: m.board, records: new RecordStore(db), agents: new AgentsStore(db), run: 'mention-test', runners: runnersWithSessions(sessions) });
  const ctx = () => ({ board: m.board, now: Date.now(), agents: service });
  const mentions = new MentionController(prompt, {
    board: m.board,
    loadEntries: async () => ENTRIES,
    locate: (e) => locateAgent(e, process.env),
    cwd: dir,
    spawn: (command) => dispatch(command, ctx()),
    changed: () => m.source.dirty(),
  });
  const keys = new KeyScanner(P);
  const typed: string[] = [];
  const onKeys = routeKeys({ keys, board: m.board, mentions, dispatch: (c) => void dispatch(c, ctx()), toMain: (d) => typed.push(d) });
  const clock = startBoardClock(m.board);
  return { m, prompt, service, sessions, keys, type: onKeys, typed, bottom: () => m.text().at(-1) ?? '', stop: () => clock.stop() };
}

describe('the mention prompt', () => {
  it('opens on the prefix and @, takes every key while open, and starts the agent on Enter in a new panel', async () => {
    const r = (rig = mount());
    r.type('ls\r');
    expect(r.typed).toEqual(['ls\r']);
    r.type(`${P}@`);
    await vi.waitFor(() => expect(r.bottom()).toMatch(/^ mention ▸ @ /));
    r.type('echo hello from the prompt');
    await vi.waitFor(() => expect(r.bottom()).toContain(' mention ▸ @echo hello from the prompt'));
    expect(r.typed).toEqual(['ls\r']); // nothing reached the pane
    r.type('\r');
    await vi.waitFor(() => expect(r.prompt.getState().line).toBeNull());
    const panel = r.m.board.getState().panels[0];
    expect(panel.label).toBe('@echo');
    expect(panel.task).toBe('hello from the prompt');
    await vi.waitFor(() => expect(r.m.text().join('\n')).toContain('hello from the prompt'), SLOW);
    await vi.waitFor(() => expect(r.m.board.getState().panels[0]?.state).toBe('done'), SLOW);
    // Closed: keys reach the pane again.
    r.type('pwd\r');
    expect(r.typed).toEqual(['ls\r', 'pwd\r']);
    expect(r.bottom()).not.toContain('mention ▸');
  });

  it('completes names from the registry with Tab: the common prefix, then the only one', async () => {
    const r = (rig = mount());
    r.type(`${P}@ec`);
    r.type('\t');
    await vi.waitFor(() => expect(r.prompt.getState().line).toMatchObject({ text: '@echo', choices: ['echo', 'echoer'] }));
    await vi.waitFor(() => expect(r.bottom()).toContain('@echo  · echo  echoer'));
    r.type('e\t');
    await vi.waitFor(() => expect(r.prompt.getState().line).toEqual({ text: '@echoer ', cursor: 8 }));
    r.type('go\r');
    await vi.waitFor(() => expect(r.m.board.getState().panels.map((p) => p.label)).toEqual(['@echoer']), SLOW);
  });

  it('cancels on Esc without starting anything, and the next keys go to the pane', async () => {
    const r = (rig = mount());
    r.type(`${P}@echo never`);
    r.type('\x1b');
    await vi.waitFor(() => expect(r.prompt.getState().line).toBeNull());
    expect(r.keys.prompting).toBe(false);
    r.type('x');
    expect(r.typed).toEqual(['x']);
    expect(r.m.board.getState().panels).toEqual([]);
  });

  it('shows an unknown name in the line until the next key, keeping the text to fix', async () => {
    const r = (rig = mount());
    r.type(`${P}@ecko hi\r`);
    await vi.waitFor(() => expect(r.prompt.getState().line?.error).toBe('no agent named "ecko" (did you mean echo?); known: echo, echoer, ghost, keeper, lingerer; run tai agents to list them'));
    await vi.waitFor(() => expect(r.bottom()).toContain('@ecko hi  ✗ no agent named "ecko"'));
    r.type('!');
    await vi.waitFor(() => expect(r.prompt.getState().line).toEqual({ text: '@ecko hi!', cursor: 9 }));
    expect(r.m.board.getState().panels).toEqual([]);
  });

  it('refuses an agent whose program is not on PATH', async () => {
    const r = (rig = mount());
    r.type(`${P}@ghost boo\r`);
    await vi.waitFor(() => expect(r.prompt.getState().line?.error).toBe('@ghost cannot start: "tai-test-no-such-program" is not found on PATH (tai agents lists what is available)'));
    expect(r.m.board.getState().panels).toEqual([]);
  });

  it('shows the cap refusal in the line when the board holds no more live agents', async () => {
    const r = (rig = mount(1));
    r.type(`${P}@lingerer wait\r`);
    await vi.waitFor(() => expect(r.m.board.getState().panels).toHaveLength(1), SLOW);
    await vi.waitFor(() => expect(r.prompt.getState().line).toBeNull());
    r.type(`${P}@echo one more\r`);
    await vi.waitFor(() => expect(r.prompt.getState().line?.error).toMatch(/^too many agents: 1 are running and the limit is 1; /));
    expect(r.m.board.getState().panels).toHaveLength(1);
  });

  it('treats a second mention of a live agent as a turn of its session, not a second process', async () => {
    const r = (rig = mount());
    r.type(`${P}@lingerer first\r`);
    await vi.waitFor(() => expect(r.m.board.getState().panels).toHaveLength(1), SLOW);
    await vi.waitFor(() => expect(r.prompt.getState().line).toBeNull());
    const id = r.m.board.getState().panels[0].id;
    r.type(`${P}@lingerer second\r`);
    await vi.waitFor(() => expect(r.prompt.getState().line?.error).toBe(`@lingerer is still working in panel #${id}: its session takes the next turn when this one ends (or close the panel)`));
    expect(r.m.board.getState().panels).toHaveLength(1);
  });

  it("continues an ACP agent's session on the next mention once its panel finished, and refuses one while it works", async () => {
    const r = (rig = mount());
    const panel = (n: number) => r.m.board.getState().panels[n];
    const resultOf = (n: number) => r.service.peek(panel(n)?.id ?? 0)?.text ?? '';
    r.type(`${P}@keeper hello\r`);
    await vi.waitFor(() => expect(panel(0)?.state).toBe('done'), SLOW);
    const pid = Number(/^pid (\d+) turn 1: hello$/.exec(resultOf(0))?.[1]);
    expect(groupExists(pid)).toBe(true); // kept for the next turn

    r.type(`${P}@keeper slow again\r`);
    await vi.waitFor(() => expect(resultOf(1)).toContain(`pid ${pid} turn 2: tick 0. tick 1.`), SLOW);
    expect(panel(1)?.label).toBe('@keeper');
    r.type(`${P}@keeper are you there\r`);
    await vi.waitFor(() => expect(r.prompt.getState().line?.error).toBe(`@keeper is still working in panel #${panel(1)?.id}: its session takes the next turn when this one ends (or close the panel)`), SLOW);
    expect(r.m.board.getState().panels).toHaveLength(2);
    r.type('\x1b');

    r.m.board.getState().cancel(panel(1)?.id ?? 0, 'enough', Date.now(), 'user');
    await vi.waitFor(() => expect(panel(1)?.state).toBe('cancelled'), SLOW);
    r.type(`${P}@keeper third\r`);
    await vi.waitFor(() => expect(panel(2)?.state).toBe('done'), SLOW);
    expect(resultOf(2)).toBe(`pid ${pid} turn 3: third`);
  });

  it('takes a paste as text, newlines as spaces, and never sends it to the pane', async () => {
    const r = (rig = mount());
    r.type(`${P}@`);
    r.type('\x1b[200~echo two\nlines\x1b[201~');
    await vi.waitFor(() => expect(r.prompt.getState().line?.text).toBe('@echo two lines'));
    expect(r.typed).toEqual([]);
  });
});

describe('the help overlay', () => {
  it('documents the mention key after the prefix', () => {
    expect(helpLines(P)).toContain('   @ / a            start an agent by name: @name prompt, Tab completes, Enter starts, Esc cancels');
  });
});
