/**
 * The approval inbox end to end (docs/agents.md, "The inbox"): the built CLI
 * (`tai ask rule ...`, `tai ask answer --all-matching / --agent`, `tai ask
 * log`) against a real control socket on a service opened on a real state
 * database (openAgentService, as the cockpit opens it), whose agents are ACP
 * fixtures on the real SDK asking permission. The service's clock is skewed
 * forward to pass a rule's expiry; nothing sleeps. `npm test` builds first.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { openAgentService, type OpenedAgentService } from '../../src/io/agents/open-agent-service.js';
import { startBoardClock } from '../../src/io/cockpit/board-clock.js';
import { call } from '../../src/io/socket/control-client.js';
import { startControlServer } from '../../src/io/socket/socket-server.js';
import { createBoard, type Board } from '../../store/board.js';
import { fixture } from '../helpers/agents.js';
import { testEnv } from '../helpers/test-env.js';
import { until } from '../helpers/until.js';

const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
const SLOW = { timeout: 20_000 };
const MIN = 60_000;

const ends: (() => unknown)[] = [];
afterEach(async () => {
  for (const end of ends.splice(0).reverse()) await end();
});

interface Rig {
  readonly board: Board;
  readonly opened: OpenedAgentService;
  readonly path: string;
  readonly env: Record<string, string>;
  /** Moves the service's clock forward. */
  skew(ms: number): void;
}

async function start(dir = mkdtempSync(join(tmpdir(), 'tai-inbox-'))): Promise<Rig> {
  const env = testEnv({ XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_RUNTIME_DIR: join(dir, 'run'), TAI_PLEXER_SOCKET: '' });
  let skew = 0;
  const now = (): number => Date.now() + skew;
  const board = createBoard({ drawingOff: 'test' });
  const clock = startBoardClock(board, now);
  const opened = openAgentService(board, env, now);
  const path = join(dir, `c${ends.length}.sock`);
  const server = await startControlServer({ board, agents: opened.service, path, env, now });
  ends.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => opened.close(),
    () => clock.stop(),
    () => server.close(),
    () => {
      for (const p of board.getState().panels) board.getState().cancel(p.id, 'test over', now());
    },
  );
  return { board, opened, path, env, skew: (ms) => (skew += ms) };
}

function tai(r: Rig, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args, ...(args[0] !== 'ask' || args[1] === 'log' ? [] : ['--socket', r.path])], { env: r.env }, (error, out, err) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err });
    });
  });
}

/** `tai ask log --json` once it holds `count` entries. */
async function logOf(r: Rig, count: number): Promise<{ code: number; out: string; err: string }> {
  let log = { code: -1, out: '[]', err: '' };
  await vi.waitFor(async () => {
    log = await tai(r, ['ask', 'log', '--json']);
    expect(log.code, log.err).toBe(0);
    expect((JSON.parse(log.out) as unknown[]).length).toBeGreaterThanOrEqual(count);
  }, { timeout: 20_000, interval: 100 });
  return log;
}

async function spawnAsker(r: Rig, script: string, mode: string[], label: string): Promise<number> {
  const spawned = await call(r.path, { cmd: 'spawn', kind: 'acp', argv: [process.execPath, fixture(script), ...mode], prompt: 'go', label, permissions: 'ask', timeout: 3600 });
  if (!spawned.ok) throw new Error(spawned.error);
  return spawned.data.id;
}

const openQids = (r: Rig): string[] => r.board.getState().questions(Date.now()).filter((q) => q.open).map((q) => q.qid);

interface LogRow {
  readonly event: string;
  readonly qid: string;
  readonly tool: string;
  readonly args: string;
  readonly by?: string;
  readonly rule?: string;
}

describe('rules of the inbox', () => {
  test('a rule answers the second question of its tool at once, and not the next question, of another tool; the log has all of it, masked', async () => {
    const r = await start();
    const id = await spawnAsker(r, 'acp-rules-agent.mjs', [], 'editor');
    await until(() => openQids(r).includes('q1'), SLOW);

    const added = await tai(r, ['ask', 'rule', 'add', 'allow', 'edit', '--agent', String(id), '--for', '30m']);
    expect(added).toMatchObject({ code: 0, err: '' });
    expect(added.out).toBe(`R1 allow edit for panel ${id} · 30 min left · answered 1 waiting question\n`);

    // q2 (Edit other.txt) never waits: the rule answers it as it is asked; q3 (a command) waits for the user.
    await until(() => openQids(r).includes('q3'), SLOW);
    expect(r.board.getState().questions(Date.now()).map((q) => [q.qid, q.tool])).toEqual([['q3', '`npm test`']]);
    expect((await tai(r, ['ask', 'answer', 'q3', 'n'])).code).toBe(0);
    await until(() => r.opened.service.peek(id)?.finished === true, SLOW);
    expect(r.opened.service.peek(id)?.text).toBe('Answers: allow-once, allow-once, reject-once.');

    // The service writes the log a moment after the answers (one transaction per turn of its event loop).
    const log = await logOf(r, 6);
    const rows = JSON.parse(log.out) as LogRow[];
    expect(rows.map((e) => [e.qid, e.event, e.by ?? ''])).toEqual([
      ['q1', 'asked', ''],
      ['q1', 'answered', 'rule R1'],
      ['q2', 'asked', ''],
      ['q2', 'answered', 'rule R1'],
      ['q3', 'asked', ''],
      ['q3', 'answered', 'tai ask'],
    ]);
    const q2 = rows.find((e) => e.qid === 'q2' && e.event === 'asked');
    expect(q2?.args).toContain('path: other.txt');
    expect(q2?.args).toContain('[hidden]');
    expect(log.out).not.toContain('sk-ant-api03');
    const text = await tai(r, ['ask', 'log']);
    expect(text.out).toMatch(/ q2 {2}panel \d+ editor · Edit other\.txt · answered Allow once \(allow-once\) by rule R1 · path: other\.txt; text: token=\[hidden\]\n/);
  }, 60_000);

  test('refuses a rule for everything, an unknown tool, or an expiry past or beyond a day with exit 64; an expired rule answers nothing', async () => {
    const r = await start();
    const everything = await tai(r, ['ask', 'rule', 'add', 'allow', '*', '--all']);
    expect(everything.code).toBe(64);
    expect(everything.err).toContain('this rule would allow every tool for every agent: narrow it');
    const unknown = await tai(r, ['ask', 'rule', 'add', 'allow', 'Bsh', '--all']);
    expect(unknown.code).toBe(64);
    expect(unknown.err).toContain('tai ask: rule refused: no agent has asked for or declared a tool named "Bsh": name one of Bash,');
    const past = await tai(r, ['ask', 'rule', 'add', 'allow', 'edit', '--all', '--until', '2020-01-01T00:00:00Z']);
    expect(past.code).toBe(64);
    expect(past.err).toContain('is in the past');
    const far = await tai(r, ['ask', 'rule', 'add', 'allow', 'edit', '--all', '--for', '25h']);
    expect(far.code).toBe(64);
    expect(far.err).toContain('a rule lives at most 24 hours');
    const nobody = await tai(r, ['ask', 'rule', 'add', 'allow', 'edit']);
    expect(nobody.code).toBe(64);
    expect(nobody.err).toContain('say whose questions it answers');
    expect(await tai(r, ['ask', 'rule', 'list'])).toMatchObject({ code: 0, out: 'no rule is held: tai ask rule add makes one\n' });

    const written = await tai(r, ['ask', 'rule', 'add', 'allow', '*', '--all', '--everything', '--for', '30m']);
    expect(written).toMatchObject({ code: 0, out: 'R1 allow every tool for all agents · 30 min left\n' });
    expect((await tai(r, ['ask', 'rule', 'list'])).out).toBe('R1  allow every tool for all agents · 30 min left\n');
    r.skew(31 * MIN);
    expect((await tai(r, ['ask', 'rule', 'list'])).out).toBe('no rule is held: tai ask rule add makes one\n');
    const id = await spawnAsker(r, 'acp-ask-agent.mjs', ['edit'], 'late');
    await until(() => openQids(r).includes('q1'), SLOW);
    expect((await tai(r, ['ask', 'answer', 'q1', 'n'])).code).toBe(0);
    await until(() => r.opened.service.peek(id)?.finished === true, SLOW);
    expect(r.opened.service.peek(id)?.text).toBe('Editing. Answer: reject-once.');
    expect(await tai(r, ['ask', 'rule', 'drop', 'R1'])).toMatchObject({ code: 1, err: 'tai ask: no such rule: R1 (no rule is held; an expired rule is gone already)\n' });
  }, 60_000);

  test('a rule lives only in its cockpit unless saved: --save writes it to the registry, the next service holds it, drop removes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-inbox-saved-'));
    const a = await start(dir);
    expect((await tai(a, ['ask', 'rule', 'add', 'reject', 'Bash', '--prefix', 'git push', '--lane', 'fix-a', '--for', '2h', '--save'])).code).toBe(0);
    expect((await tai(a, ['ask', 'rule', 'add', 'allow', 'Read', '--all', '--for', '2h'])).code).toBe(0);
    const registry = join(dir, 'config', 'tai', 'agents.json');
    const saved = JSON.parse(readFileSync(registry, 'utf8')) as { agents: object; rules: { tool: string; prefix: string; lane: string }[] };
    expect(saved.agents).toEqual({});
    expect(saved.rules).toMatchObject([{ decision: 'reject', tool: 'Bash', prefix: 'git push', lane: 'fix-a' }]);
    expect((await tai(a, ['agents'])).code).toBe(0); // the registry with rules still reads

    // A second service (the next cockpit) on the same registry: only the saved rule is held again.
    const fresh = createBoard({ drawingOff: 'test' });
    const again = openAgentService(fresh, { ...a.env, XDG_STATE_HOME: join(dir, 'state-b') }, Date.now);
    ends.push(() => again.close());
    expect(fresh.getState().rules(Date.now()).map((rule) => [rule.text, rule.saved])).toEqual([['reject Bash `git push` for lane fix-a', true]]);

    const dropped = await tai(a, ['ask', 'rule', 'drop', 'R1']);
    expect(dropped).toMatchObject({ code: 0, out: 'R1 dropped: reject Bash `git push` for lane fix-a\nR1 removed from the agents registry too\n' });
    expect((JSON.parse(readFileSync(registry, 'utf8')) as { rules: unknown[] }).rules).toEqual([]);
    expect(existsSync(registry)).toBe(true);
  }, 60_000);
});

describe('batch answers', () => {
  test("answers three agents' questions of one tool at once and says how many; --agent answers one agent's; the log names the batch", async () => {
    const r = await start();
    const ids = [await spawnAsker(r, 'acp-ask-agent.mjs', ['edit'], 'one'), await spawnAsker(r, 'acp-ask-agent.mjs', ['edit'], 'two'), await spawnAsker(r, 'acp-ask-agent.mjs', ['edit'], 'three')];
    await until(() => openQids(r).length === 3, SLOW);
    const batch = await tai(r, ['ask', 'answer', '--all-matching', 'edit', 'y']);
    expect(batch.code, batch.err).toBe(0);
    expect(batch.out.split('\n').at(-2)).toBe('answered 3 questions of edit');
    for (const id of ids) await until(() => r.opened.service.peek(id)?.finished === true, SLOW);
    expect(ids.map((id) => r.opened.service.peek(id)?.text)).toEqual(Array(3).fill('Editing. Answer: allow-once.'));
    expect((await tai(r, ['ask', 'answer', '--all-matching', 'edit', 'y'])).out).toBe('answered 0 questions of edit\n');

    const fourth = await spawnAsker(r, 'acp-ask-agent.mjs', ['edit'], 'four');
    await until(() => openQids(r).length === 1, SLOW);
    expect(await tai(r, ['ask', 'answer', '--agent', String(fourth), 'n'])).toMatchObject({ code: 0, out: expect.stringContaining(`answered 1 question of agent ${fourth}\n`) });
    await until(() => r.opened.service.peek(fourth)?.finished === true, SLOW);
    expect(r.opened.service.peek(fourth)?.text).toBe('Editing. Answer: reject-once.');

    const rows = JSON.parse((await logOf(r, 8)).out) as LogRow[];
    expect(rows.filter((e) => e.event === 'answered').map((e) => e.by)).toEqual(['tai ask (batch)', 'tai ask (batch)', 'tai ask (batch)', 'tai ask (batch)']);
    expect(rows.filter((e) => e.event === 'asked')).toHaveLength(4);
  }, 60_000);
});
