/**
 * Agents waiting out an outage: real child processes under a real
 * board and agent service, with a fake probe and a fake clock for the outage
 * side. The clock moves only when a test wakes the outage wait's sleep.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { dispatch } from '../../../store/dispatch.js';
import { acpFailure } from '../../../src/core/decoders/acp.js';
import { claudeFailure } from '../../../src/core/decoders/claude.js';
import { codexFailure } from '../../../src/core/decoders/codex.js';
import type { AgentFailure, FailureInput } from '../../../src/core/outage/classify.js';
import { judgeAttempt, laneWorktree } from '../../../src/io/outage/agent-outages.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { openAgentService } from '../../../src/io/agents/open-agent-service.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { createOutageWatch, type OutageWatch } from '../../../src/io/outage/outage-watch.js';
import { listOutages, readLog } from '../../../src/io/outage/outage-store.js';
import type { ProbeSource } from '../../../src/io/outage/probes.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { xtermScreens, type XtermScreen } from '../../../src/io/terminal/screen.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';
import { fixture } from '../../helpers/agents.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { until, untilPasses, type Wait } from '../../helpers/until.js';

const T0 = Date.UTC(2026, 10, 30, 22, 0, 0);
const MINUTE = 60_000;
const node = process.execPath;
const LOST = "fatal: unable to access 'https://example.invalid/lane.git/': Could not resolve host: example.invalid";

interface Setup {
  readonly dir: string;
  readonly time: FakeClock;
  /** How a test waits here: waking the outage wait's sleep between looks (the clock moves only then). */
  readonly wait: Wait;
  readonly board: ReturnType<typeof createBoard>;
  readonly db: StateDb;
  readonly watch: OutageWatch;
  readonly service: LocalAgentService;
  /** The fake network: what the probe answers, and how often it ran. */
  readonly network: { up: boolean; runs: number };
  /** The fake model service's probe (TAI_MODEL_PROBE): up unless a test says otherwise. */
  readonly model: { up: boolean; runs: number };
  /** The give-up hook's output file. */
  readonly hook: string;
  /** What the outage flows told a panel-less supervisor (`AgentOutages.tell`), as `#id line`. */
  readonly told: string[];
  screen(id: number): Promise<string>;
  state(id: number): string | undefined;
}

let setups: Setup[] = [];
afterEach(() => {
  for (const s of setups) {
    s.service.dispose();
    s.db.close();
    rmSync(s.dir, { recursive: true, force: true });
  }
  setups = [];
});

function setup(): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'tai-agent-outages-'));
  const time = new FakeClock(T0);
  const board = createBoard({ createScreen: xtermScreens, cols: 160, rows: 48 });
  const db = openStateDb(join(dir, 'state', 'tai.db'));
  const network = { up: false, runs: 0 };
  const model = { up: true, runs: 0 };
  const probes: ProbeSource = (service) =>
    service === 'network'
      ? async () => {
          network.runs += 1;
          return network.up ? { ok: true, detail: 'exit 0' } : { ok: false, detail: 'exit 128: fatal: unable to access: Network is unreachable' };
        }
      : async () => {
          model.runs += 1;
          return model.up ? { ok: true, detail: 'exit 0' } : { ok: false, detail: 'exit 1: HTTP 500' };
        };
  const hook = join(dir, 'hook');
  const told: string[] = [];
  const watch = createOutageWatch({
    db,
    board,
    probes,
    now: time.now,
    sleep: time.sleep,
    pollMs: 60 * MINUTE,
    scale: 1,
    notify: { env: { PATH: '', TAI_NOTIFY_HOOK: `echo once >> ${hook}` } },
  });
  const service = new LocalAgentService({
    board,
    records: new RecordStore(db),
    agents: new AgentsStore(db),
    now: time.now,
    run: 'test-run',
    outages: { watch, db, stateDir: join(dir, 'state'), tell: (panelId, line) => told.push(`#${panelId} ${line}`) },
  });
  const screen = async (id: number): Promise<string> => {
    board.getState().flush(time.t + 10 * MINUTE);
    const s = board.getState().screenOf(id) as XtermScreen | undefined;
    if (!s) return '';
    await s.parsed();
    return s.text().join('\n');
  };
  const state = (id: number): string | undefined => board.getState().status(time.t).agents.find((row) => row.id === id)?.state;
  const wait: Wait = { timeout: 15_000, between: time.wake };
  const made = { dir, time, wait, board, db, watch, service, network, model, hook, told, screen, state };
  setups.push(made);
  return made;
}

/** A shell agent: fails with a lost network the first time (marker absent), then runs `then`. */
function failsOnceThen(marker: string, then: string): string[] {
  return ['/bin/sh', '-c', `if [ -f '${marker}' ]; then ${then}; else touch '${marker}'; echo "${LOST}" >&2; exit 128; fi`];
}

describe('agents that fail with a lost network', () => {
  it('holds the agent in its panel as waiting for network while another keeps working, and restarts it in the same panel when the probe says the network is back', async () => {
    const s = setup();
    const other = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv: [node, fixture('command-agent.mjs'), '--linger'], label: 'offline work' }, s.time.t);
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv: failsOnceThen(join(s.dir, 'mark'), 'echo pushed after the outage'), label: 'pusher', prompt: 'push the branch' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect(s.board.getState().panels.find((p) => p.id === id)?.header).toContain('waiting for network');
    expect(s.state(other.id)).toBe('running');
    expect(readLog(s.db, { kind: 'agent-hold' }).map((row) => row.detail)).toEqual([`panel #${id} pusher: ${LOST}`]);
    expect((await s.service.poll(id))?.finished).toBe(false);

    // The first probe (one minute in) still fails; the network comes back before the second.
    await until(() => s.network.runs === 1, s.wait);
    expect(s.state(id)).toBe('waiting');
    s.network.up = true;
    await until(() => s.service.peek(id)?.finished === true, s.wait);

    const result = await s.service.poll(id);
    expect(result).toMatchObject({ state: 'done', exitCode: 0 });
    expect(result?.text).toBe(`#${id}: the network is back (outage 1); a fresh agent starts with the same task\npushed after the outage\n`);
    expect(s.network.runs).toBe(2);
    expect(s.board.getState().panels.map((p) => p.label)).toEqual(['offline work', 'pusher']);
    const screen = await s.screen(id);
    expect(screen).toContain('stderr│ fatal: unable to access');
    expect(screen).toContain('the network is back (outage 1)');
    expect(screen).toContain('pushed after the outage');
    expect(readLog(s.db, { kind: 'agent-resume' }).map((row) => row.detail)).toEqual([`panel #${id} pusher`]);
    expect(s.state(other.id)).toBe('running');
    s.board.getState().cancel(other.id, 'done with it', s.time.t);
    expect((await s.service.poll(other.id, 10_000))?.state).toBe('cancelled');
  });

  it('cancels a held ACP agent that died with a lost transport when the schedule gives up, with exactly one notification', async () => {
    const s = setup();
    const argv = ['/bin/sh', '-c', `echo 'Error: connect ENETUNREACH 160.79.104.10:443' >&2; exec '${node}' '${fixture('acp-agent.mjs')}' lost`];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'acp', argv, label: 'acp lane', prompt: 'fix it' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect(readLog(s.db, { kind: 'agent-hold' })[0]?.detail).toBe(`panel #${id} acp lane: Error: connect ENETUNREACH 160.79.104.10:443`);
    await until(() => s.service.peek(id)?.finished === true, { ...s.wait, timeout: 20_000 });
    const result = await s.service.poll(id);
    expect(result).toMatchObject({ state: 'cancelled', exitCode: 130 });
    expect(result?.reason).toMatch(/^gave up waiting for the network \(outage 1, 12 probes\): Error: connect ENETUNREACH/);
    expect(result?.text).toContain('partial result]\nhalf an answer');
    expect(readFileSync(s.hook, 'utf8')).toBe('once\n');
    expect(readLog(s.db, { kind: ['agent-stop', 'notify'] }).map((row) => row.kind)).toEqual(['agent-stop', 'notify']);
    expect(await s.screen(id)).toContain('gave up waiting for the network');
    expect(s.told).toEqual([
      `#${id} held: waiting for the network (Error: connect ENETUNREACH 160.79.104.10:443)`,
      `#${id} cancelled: ${result?.reason ?? ''}`,
    ]);
  });

  it('holds a Codex agent whose stream disconnected and restarts it when the network is back; the row says waiting meanwhile', async () => {
    const s = setup();
    const marker = join(s.dir, 'mark');
    const emitter = fixture('codex-emitter.mjs');
    const argv = ['/bin/sh', '-c', `if [ -f '${marker}' ]; then exec '${node}' '${emitter}' run; else touch '${marker}'; exec '${node}' '${emitter}' fail; fi`];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'codex', argv, label: 'codex', prompt: 'list the files' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect(readLog(s.db, { kind: 'agent-hold' })[0]?.detail).toBe(`panel #${id} codex: stream disconnected before completion`);
    expect(new AgentsStore(s.db).get('test-run', id)?.state).toBe('waiting');
    s.network.up = true;
    await until(() => s.service.peek(id)?.finished === true, s.wait);
    expect((await s.service.poll(id))?.state).toBe('done');
    expect(new AgentsStore(s.db).get('test-run', id)?.state).toBe('done');
  });

  it('holds a Codex agent that waits for the network by itself ("Reconnecting... waiting for network", never a turn.failed) and restarts it when the network is back', async () => {
    const s = setup();
    const marker = join(s.dir, 'mark');
    const emitter = fixture('codex-emitter.mjs');
    const argv = ['/bin/sh', '-c', `if [ -f '${marker}' ]; then exec '${node}' '${emitter}' run; else touch '${marker}'; exec '${node}' '${emitter}' offline; fi`];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'codex', argv, label: 'codex', prompt: 'list the files' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect(readLog(s.db, { kind: 'agent-hold' })[0]?.detail).toBe(
      `panel #${id} codex: codex waiting for network: Reconnecting... waiting for network (Connection failed: error sending request)`,
    );
    s.network.up = true;
    await until(() => s.service.peek(id)?.finished === true, s.wait);
    expect((await s.service.poll(id))?.state).toBe('done');
  });

  it('holds a codex-acp agent that says "Reconnecting... waiting for network" as events and never ends its turn, and restarts it when the network is back', async () => {
    const s = setup();
    const marker = join(s.dir, 'mark');
    const agent = fixture('acp-agent.mjs');
    const argv = ['/bin/sh', '-c', `if [ -f '${marker}' ]; then exec '${node}' '${agent}' twice; else touch '${marker}'; exec '${node}' '${agent}' offline; fi`];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'acp', argv, label: 'codex-acp', prompt: 'list the files' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect(readLog(s.db, { kind: 'agent-hold' }).map((row) => [row.service, row.detail])).toEqual([
      ['network', `panel #${id} codex-acp: Reconnecting... waiting for network (Connection failed: error sending request for url (http://127.0.0.1:9/v1/responses))`],
    ]);
    s.network.up = true;
    await until(() => s.service.peek(id)?.finished === true, s.wait);
    const result = await s.service.poll(id);
    expect(result?.state).toBe('done');
    expect(result?.text).toContain('The tool printed tai-tool-ok.');
  });

  it('fails a rate-limited Claude agent as it is, never holding it', async () => {
    const s = setup();
    const argv = [node, fixture('claude-emitter.mjs'), 'rate-limit', '--input-format', 'stream-json'];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'claude', argv, prompt: 'go' }, s.time.t);
    const result = await s.service.poll(id, 10_000);
    expect(result?.state).toBe('failed');
    expect(result?.reason).toContain('rate limited: ');
    expect(result?.reason).toContain('HTTP 429');
    expect(listOutages(s.db)).toEqual([]);
  });

  it('fails a rate-limited agent with its detail and reset time, without holding it or opening an outage', async () => {
    const s = setup();
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'acp', argv: [node, fixture('acp-agent.mjs'), 'rate-limit'], prompt: 'go' }, s.time.t);
    const result = await s.service.poll(id, 10_000);
    expect(result).toMatchObject({ state: 'failed', exitCode: 1 });
    expect(result?.reason).toContain(`rate limited: Rate limit exceeded: try again in 30s (resets at ${new Date(s.time.t + 30_000).toISOString()})`);
    expect(listOutages(s.db)).toEqual([]);
    expect(readLog(s.db)).toEqual([]);
    expect(s.network.runs).toBe(0);
  });

  it('stops the wait when a held agent is cancelled (tai cancel), as cancelled', async () => {
    const s = setup();
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv: failsOnceThen(join(s.dir, 'mark'), 'true') }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    const reply = await dispatch({ cmd: 'cancel', id }, { board: s.board, now: s.time.t, agents: s.service });
    expect(reply).toEqual({ ok: true, data: { id, cancelled: true } });
    const result = await s.service.poll(id, 10_000);
    expect(result).toMatchObject({ state: 'cancelled', exitCode: 130 });
    expect(result?.reason).toBe('cancelled by request (tai cancel)');
  });
});

describe('a lost connection while the network answers', () => {
  it('is the model service\'s outage: the network probe succeeds, the agent is held for the model service and restarted when its probe passes', async () => {
    const s = setup();
    s.network.up = true;
    s.model.up = false;
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv: failsOnceThen(join(s.dir, 'mark'), 'echo answered'), label: 'streamer' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect(s.board.getState().panels.find((p) => p.id === id)?.header).toContain('waiting for model');
    expect(readLog(s.db, { kind: 'agent-hold' }).map((row) => [row.service, row.detail])).toEqual([['model', `panel #${id} streamer: ${LOST}; the network probe succeeded`]]);
    expect(s.told[0]).toBe(`#${id} held: waiting for the model service (${LOST}; the network probe succeeded)`);
    s.model.up = true;
    await until(() => s.service.peek(id)?.finished === true, s.wait);
    const result = await s.service.poll(id);
    expect(result?.state).toBe('done');
    expect(result?.text).toContain('the model service is back (outage 1)');
    expect(listOutages(s.db).map((o) => o.service)).toEqual(['model']);
  });

  it('widens the holds of an agent that fails again at once: five, then ten minutes, never a restart every few seconds', async () => {
    const s = setup();
    s.network.up = true;
    const argv = ['/bin/sh', '-c', `echo "${LOST}" >&2; exit 128`];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv, label: 'flaky' }, s.time.t);
    await until(() => readLog(s.db, { kind: 'agent-resume' }).length >= 3, { ...s.wait, timeout: 30_000 });
    const holds = readLog(s.db, { kind: 'agent-hold' }).map((row) => row.at);
    const resumes = readLog(s.db, { kind: 'agent-resume' }).map((row) => row.at);
    const held = resumes.slice(0, 3).map((at, i) => at - (holds[i] ?? 0));
    expect(held[0]).toBeGreaterThanOrEqual(MINUTE);
    expect(held[1]).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(held[2]).toBeGreaterThanOrEqual(10 * MINUTE);
    s.board.getState().cancel(id, 'enough', s.time.t);
    expect((await s.service.poll(id, 10_000))?.state).toBe('cancelled');
  });
});

describe('an agent silent past the idle limit', () => {
  it('is confirmed by the probe, held while the network is down, and carries on when it is back', async () => {
    const s = setup();
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv: [node, fixture('command-agent.mjs'), '--linger'], label: 'quiet' }, s.time.t);
    await untilPasses(() => expect(s.service.peek(id)?.text).toBe('waiting\n'));
    s.time.t += 60_000;
    s.board.getState().tick(s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect(s.network.runs).toBe(1);
    expect(readLog(s.db, { kind: 'agent-hold' })[0]?.detail).toBe(`panel #${id} quiet: silent past the idle limit; the network probe failed: exit 128: fatal: unable to access: Network is unreachable`);
    s.network.up = true;
    await until(() => s.state(id) === 'running', s.wait);
    expect(await s.screen(id)).toContain('the network is back (outage 1); the agent carries on');
    s.board.getState().cancel(id, 'enough', s.time.t);
    expect((await s.service.poll(id, 10_000))?.state).toBe('cancelled');
  });
});

describe('an agent silent past the idle limit while the model fails', () => {
  it('is checked against the model probe when the network is fine, held for the model service, named where no panel shows it, and carries on when it is back', async () => {
    const s = setup();
    s.network.up = true;
    s.model.up = false;
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv: [node, fixture('command-agent.mjs'), '--linger'], label: 'retrying' }, s.time.t);
    await untilPasses(() => expect(s.service.peek(id)?.text).toBe('waiting\n'));
    s.time.t += 60_000;
    s.board.getState().tick(s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect([s.network.runs, s.model.runs]).toEqual([1, 1]);
    const why = 'silent past the idle limit; the network probe succeeded; the model probe failed: exit 1: HTTP 500';
    expect(readLog(s.db, { kind: 'agent-hold' })[0]?.detail).toBe(`panel #${id} retrying: ${why}`);
    expect(s.told[0]).toBe(`#${id} held: waiting for the model service (${why})`);
    s.model.up = true;
    await until(() => s.state(id) === 'running', s.wait);
    expect(await s.screen(id)).toContain('the model service is back (outage 1); the agent carries on');
    s.board.getState().cancel(id, 'enough', s.time.t);
    expect((await s.service.poll(id, 10_000))?.state).toBe('cancelled');
  });
});

describe('a lane whose agent died to the outage', () => {
  /** A repository with one commit and a linked worktree `lane-1` on its own branch. */
  function repoWithLane(dir: string): { lane: string; head: string } {
    const repo = join(dir, 'repo');
    const git = (cwd: string, ...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' });
    mkdirSync(repo);
    git(repo, 'init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    const lane = join(dir, 'lane-1');
    git(repo, 'worktree', 'add', '-q', '-b', 'lane-1', lane);
    return { lane, head: git(lane, 'rev-parse', 'HEAD').trim() };
  }

  it('saves its edits aside and restarts a fresh agent from the last commit when the network is back', async () => {
    const s = setup();
    const { lane, head } = repoWithLane(s.dir);
    expect(laneWorktree(lane)).toBe(lane);
    expect(laneWorktree(join(s.dir, 'repo'))).toBeUndefined();
    const marker = join(s.dir, 'mark');
    const argv = ['/bin/sh', '-c', `if [ -f '${marker}' ]; then git status --porcelain; echo clean start; else touch '${marker}'; echo two >> a.txt; echo new > b.txt; echo "${LOST}" >&2; exit 128; fi`];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv, cwd: lane, label: 'lane-1', prompt: 'add a line' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    s.network.up = true;
    await until(() => s.service.peek(id)?.finished === true, s.wait);
    const result = await s.service.poll(id);
    expect(result?.state).toBe('done');
    const [restart] = readLog(s.db, { kind: 'lane-restart' });
    const saved = /saved aside to (\S+);/.exec(restart?.detail ?? '')?.[1] as string;
    expect(restart?.detail).toBe(`lane-1 (died) restarts from ${head.slice(0, 7)}; 2 files saved aside to ${saved}; task: add a line`);
    expect(saved.startsWith(join(s.dir, 'state', 'saved-edits', 'lane-1-'))).toBe(true);
    expect(readFileSync(join(saved, 'changes.patch'), 'utf8')).toContain('+two');
    expect(readFileSync(join(saved, 'untracked', 'b.txt'), 'utf8')).toBe('new\n');
    // The fresh agent started from the last commit: nothing uncommitted in its worktree.
    expect(result?.text).toBe(
      `#${id}: the network is back (outage 1); a fresh agent starts with the same task; the lane restarts from its last commit ${head.slice(0, 7)}; its uncommitted edits were saved aside to ${saved}\nclean start\n`,
    );
    expect(readFileSync(join(lane, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(lane, 'b.txt'))).toBe(false);
  });

  it('restarts a lane that handed back with NETWORK: <cmd> through the shared probe', async () => {
    const s = setup();
    const { lane, head } = repoWithLane(s.dir);
    const marker = join(s.dir, 'mark');
    const argv = ['/bin/sh', '-c', `if [ -f '${marker}' ]; then echo pushed; else touch '${marker}'; echo half > c.txt; echo 'committed nothing'; echo 'NETWORK: git push origin lane-1'; fi`];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv, cwd: lane, label: 'lane-1', prompt: 'push' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    expect(readLog(s.db, { kind: 'lane-wait' }).map((row) => row.detail)).toEqual(['lane-1: handed back with NETWORK: git push origin lane-1']);
    s.network.up = true;
    await until(() => s.service.peek(id)?.finished === true, s.wait);
    const result = await s.service.poll(id);
    expect(result?.state).toBe('done');
    expect(result?.text.endsWith('\npushed\n')).toBe(true);
    expect(result?.text).toContain(`after NETWORK: git push origin lane-1; the lane restarts from its last commit ${head.slice(0, 7)}`);
    expect(readLog(s.db, { kind: 'lane-restart' })[0]?.detail).toContain('lane-1 (yielded "NETWORK: git push origin lane-1")');
    expect(existsSync(join(lane, 'c.txt'))).toBe(false);
  });
});

describe('a yielded lane at give-up', () => {
  it('is cancelled with its worktree untouched, logged as left, with one notification', async () => {
    const s = setup();
    const repo = join(s.dir, 'repo');
    mkdirSync(repo);
    const git = (cwd: string, ...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' });
    git(repo, 'init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    const lane = join(s.dir, 'lane-2');
    git(repo, 'worktree', 'add', '-q', '-b', 'lane-2', lane);
    const argv = ['/bin/sh', '-c', "echo half >> a.txt; echo 'NETWORK: git push origin lane-2'"];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv, cwd: lane, label: 'lane-2', prompt: 'push' }, s.time.t);
    await untilPasses(() => expect(s.state(id)).toBe('waiting'));
    await until(() => s.service.peek(id)?.finished === true, { ...s.wait, timeout: 20_000 });
    const result = await s.service.poll(id);
    expect(result?.state).toBe('cancelled');
    expect(result?.reason).toBe('gave up waiting for the network (outage 1, 12 probes): NETWORK: git push origin lane-2');
    expect(git(lane, 'status', '--porcelain')).toBe(' M a.txt\n');
    expect(readLog(s.db, { kind: ['lane-left', 'agent-stop'] }).map((row) => row.kind)).toEqual(['lane-left', 'agent-stop']);
    expect(readFileSync(s.hook, 'utf8')).toBe('once\n');
  });
});

describe('the one outage watch of a process', () => {
  it('is created by openAgentService and exposed for the cockpit, or injected', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-open-service-'));
    const board = createBoard();
    const env = { XDG_STATE_HOME: dir, PATH: process.env['PATH'] ?? '' };
    const opened = openAgentService(board, env);
    expect(opened.service.watch).toBe(opened.watch);
    expect(typeof opened.watch.armWakeUp).toBe('function');
    opened.close();
    const watch = createOutageWatch({ db: openStateDb(join(dir, 'other.db')), board, probes: () => undefined });
    const injected = openAgentService(board, env, Date.now, { watch });
    expect(injected.watch).toBe(watch);
    expect(injected.service.watch).toBe(watch);
    injected.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('tai cancel on a retried job', () => {
  it('cancels the attempt running now when given the id of the first', async () => {
    const s = setup();
    const marker = join(s.dir, 'retry');
    const argv = ['/bin/sh', '-c', `if [ -f '${marker}' ]; then exec '${node}' '${fixture('command-agent.mjs')}' --linger; else touch '${marker}'; exit 2; fi`];
    const { id } = await s.service.spawn({ cmd: 'spawn', kind: 'command', argv, retries: 1, label: 'flaky' }, s.time.t);
    await untilPasses(() => expect(s.service.peek(id)?.text).toBe('waiting\n'));
    const second = s.service.currentAttempt(id) as number;
    expect(second).not.toBe(id);
    const reply = await dispatch({ cmd: 'cancel', id }, { board: s.board, now: s.time.t, agents: s.service });
    expect(reply).toEqual({ ok: true, data: { id: second, cancelled: true } });
    const result = await s.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
  });
});

describe('judging an attempt that ended on its own', () => {
  const now = T0;
  /** A protocol message's failure, as the runner hands it over: read by the kind's decoder. */
  const read = (failure: AgentFailure | undefined): FailureInput => {
    if (failure === undefined) throw new Error('the decoder read no failure');
    return { agent: failure };
  };
  it.each([
    ['a hand-back ending in NETWORK: <cmd>', { state: 'done', summary: 'exit 0' }, 'pushed nothing\nNETWORK: gh pr create\n', { kind: 'yielded', step: 'gh pr create' }],
    ['a clean end', { state: 'done', summary: 'exit 0' }, 'done', { kind: 'final', summary: 'exit 0' }],
    ['git losing the network', { state: 'failed', summary: 'exit 128', failure: [{ stderr: LOST, exitCode: 128, command: 'git' }] }, '', { kind: 'outage', service: 'network' }],
    ['ACP transport_lost', { state: 'failed', summary: 'x', failure: [acpFailure({ code: -32603, message: 'Internal error', data: { errorKind: 'transport_lost' } })] }, '', { kind: 'outage', service: 'network' }],
    ['Claude overloaded (529)', { state: 'failed', summary: 'x', failure: [read(claudeFailure({ type: 'result', subtype: 'success', is_error: true, api_error_status: 529, result: 'API Error: 529 overloaded_error' }))] }, '', { kind: 'outage', service: 'model' }],
    ['a Codex usage limit', { state: 'failed', summary: "You've hit your usage limit. Try again in 2 hours.", failure: [read(codexFailure({ type: 'turn.failed', error: { message: "You've hit your usage limit. Try again in 2 hours." } }))] }, '', { kind: 'final', summary: `rate limited: You've hit your usage limit. Try again in 2 hours. (resets at ${new Date(T0 + 2 * 3_600_000).toISOString()})` }],
    ['an ACP rate_limit whose words say when it resets',
      { state: 'failed', summary: 'rate limited: Claude AI usage limit reached|1791601200', failure: [acpFailure({ code: -32603, message: 'Claude AI usage limit reached|1791601200', data: { errorKind: 'rate_limit' } })] }, '',
      { kind: 'final', summary: 'rate limited: Claude AI usage limit reached|1791601200 (resets at 2026-10-10T03:00:00.000Z)' }],
    ['a Claude 429 result after a rejected rate_limit_event that carries the reset',
      { state: 'failed', summary: 'HTTP 429', failure: [
        read(claudeFailure({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: 429 rate_limit_error' })),
        read(claudeFailure({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1791601200, rateLimitType: 'five_hour' } })),
      ] }, '',
      { kind: 'final', summary: 'rate limited: HTTP 429 (resets at 2026-10-10T03:00:00.000Z)' }],
    ['a plain exit', { state: 'failed', summary: 'exit 3', failure: [{ stderr: '', exitCode: 3, command: 'node' }] }, '', { kind: 'final', summary: 'exit 3' }],
  ] as const)('sorts %s', (_name, outcome, result, expected) => {
    expect(judgeAttempt(outcome, result, now)).toMatchObject(expected);
  });
});
