/**
 * The resume of each real CLI's own session (docs/restore.md) against the
 * fake model server: a first turn through tai's runner reports the session id
 * the CLI gave it; then `tai spawn --resume ID` (the built CLI) continues that
 * session: the fake server sees the first turn's prompt in the resumed
 * request, and the agent ends done. Claude Code (`--resume`), Codex
 * (`exec resume`), claude-agent-acp and the Node codex-acp (both offer
 * session/load and session/resume: tai takes session/load and drops its replay).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { runAcp } from '../../src/io/agents/runners/acp/acp.js';
import { runClaude } from '../../src/io/agents/runners/claude.js';
import { runCodex } from '../../src/io/agents/runners/codex.js';
import type { Runner } from '../../src/io/agents/runners/runner.js';
import { FINAL_TEXT } from '../helpers/fake-model-server.js';
import { notInstalled, runTai, type RealCli } from '../helpers/real-agents.js';
import { leftovers, Run } from './real-run.js';

const missing = notInstalled();
const RUNNERS: Readonly<Record<string, Runner>> = { claude: runClaude, codex: runCodex, acp: runAcp };
/** A word only the first turn's prompt holds: found in a later request, it is the history. */
const MARKER = 'tai-resume-heron';

let run: Run | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

/** The first turn, through the runner of the CLI's kind: its events and how it ended. */
async function firstTurn(current: Run, cli: RealCli): Promise<{ events: AgentEvent[]; state: string; summary: string }> {
  const { kind, argv } = await current.setUp(cli, { mode: 'ok' });
  const runner = RUNNERS[kind];
  if (runner === undefined) throw new Error(`no runner for ${kind}`);
  const events: AgentEvent[] = [];
  const agent = runner({ argv, cwd: current.place.project, prompt: `run echo tai-tool-ok; remember ${MARKER}` }, (e) => events.push(e));
  const outcome = await agent.ended;
  return { events, state: outcome.state, summary: outcome.summary };
}

const sessionOf = (events: readonly AgentEvent[]): string | undefined => events.find((e): e is Extract<AgentEvent, { type: 'session' }> => e.type === 'session')?.id;

/** Every CLI of the suite: a first turn that reports its session, then `tai spawn --resume` that continues it. */
const resumes = (cli: RealCli, how: string, said: (id: string) => string): void => {
  it(`${cli}: the first turn reports its session id; tai spawn --resume ID continues it (${how}): the server sees the earlier prompt, and it ends done`, async () => {
    run = new Run();
    const current = run;
    const first = await firstTurn(current, cli);
    expect(first.state, first.summary).toBe('done');
    const id = sessionOf(first.events);
    expect(id, JSON.stringify(first.events.filter((e) => e.type !== 'text'))).toBeDefined();
    const before = current.server.requests.length;
    current.spawnAgain(['--timeout', '120', '--resume', id ?? ''], 'you were interrupted: go on');
    const { run: tai, result } = await current.finish();
    expect(tai.code, tai.stderr).toBe(0);
    expect(result.state).toBe('done');
    const resumed = current.server.requests.slice(before).filter((r) => r.provider !== 'other').map((r) => JSON.stringify(r.body));
    expect(resumed.length).toBeGreaterThan(0);
    // The resumed request carries the first turn (its prompt and its answer) and the new prompt.
    const withHistory = resumed.find((body) => body.includes(MARKER) && body.includes('you were interrupted: go on'));
    expect(withHistory, resumed.join('\n---\n').slice(0, 4000)).toBeDefined();
    expect(withHistory).toContain(FINAL_TEXT.slice(0, 20));
    // The panel says how it resumed, and shows the new answer once: an ACP replay is not drawn again.
    const agent = /agent #(\d+)/.exec(tai.stderr)?.[1] ?? '1';
    const logs = (await runTai(['logs', agent], current.env, current.place.project).done).stdout;
    expect(logs).toContain(said(id ?? ''));
    expect(logs.split(FINAL_TEXT).length - 1, logs).toBe(1);
    expect(leftovers(current.place.dir)).toEqual([]);
  }, 300_000);
};

/** A session id the CLI never gave: `tai spawn --resume` fails and says why in one line. */
const refuses = (cli: RealCli, said: string): void => {
  it(`${cli}: a session id it does not know fails the spawn with one line that says so`, async () => {
    run = new Run();
    const current = run;
    await current.setUp(cli, { mode: 'ok' });
    current.spawnAgain(['--timeout', '120', '--resume', UNKNOWN], 'go on');
    const { run: tai, result } = await current.finish();
    expect(tai.code, tai.stderr).toBe(1);
    expect(result.state).toBe('failed');
    expect(result.reason).toContain(said);
    expect(result.reason).toContain('start it again with tai restart ID');
    expect(result.reason).not.toContain('\n');
    expect(current.server.requests.filter((r) => r.provider !== 'other')).toEqual([]);
  }, 120_000);
};

/** A well-formed id no CLI has seen. */
const UNKNOWN = '3f1d2c4e-0000-4000-8000-000000000000';

describe.skipIf(missing !== undefined)(`resuming a real CLI's session under tai${missing ? ` (skipped: ${missing})` : ''}`, () => {
  resumes('claude', '--resume', (id) => `session ${id}`);
  resumes('codex', 'exec resume', (id) => `codex thread ${id}`);
  resumes('claude-agent-acp', 'session/load', (id) => `resumed session ${id.slice(0, 8)} (session/load; `);
  resumes('codex-acp-2', 'session/load', (id) => `resumed session ${id.slice(0, 8)} (session/load; `);
  refuses('claude', `claude cannot resume session ${UNKNOWN}: No conversation found with session ID: ${UNKNOWN}`);
  refuses('codex', `codex cannot resume thread ${UNKNOWN}: no rollout found for thread id ${UNKNOWN}`);
  refuses('codex-acp-2', `acp codex-acp cannot resume session ${UNKNOWN}: `);
});
