/**
 * The live lab of agents waiting out an outage: a real network cut on one
 * machine. Two network namespaces joined by a veth pair; a git daemon in the
 * server namespace; on the client side, `tai net -- git ls-remote git://…` (the built CLI) and
 * agent-like processes that read the remote in a loop, supervised by this test
 * through the real board and the outage watch. The link is cut mid-run (`ip
 * link set … down`, the loud cut: "Network is unreachable" at once) and
 * restored; then cut silently (`tc qdisc … pfifo limit 0`: packets vanish,
 * nothing fails), which only the idle clock notices and the probe confirms;
 * then cut for good, on the lab time scale, until the schedule gives up.
 *
 * Needs root (CI is root); skipped with a printed reason elsewhere. Every
 * name is unique to the run and everything is removed in afterAll, also when a
 * test fails. Only addresses inside the namespaces made here are used.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBoard } from '../../store/board.js';
import { classify } from '../../src/core/outage/classify.js';
import { restartLane } from '../../src/io/outage/lane-restart.js';
import { listOutages, readLog, type RunLogEntry } from '../../src/io/outage/outage-store.js';
import { createOutageWatch, type AgentFailureVerdict, type OutageWatch } from '../../src/io/outage/outage-watch.js';
import { runProbe, type ProbeSource } from '../../src/io/outage/probes.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { until, type Wait } from '../helpers/until.js';

const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
const ID = `t${process.pid}`;
const SRV = `${ID}-srv`;
const CLI_NS = `${ID}-cli`;
const VETH_SRV = `${ID}a`;
const VETH_CLI = `${ID}b`;
const SRV_ADDR = '10.231.0.1';
const CLI_ADDR = '10.231.0.2';
const REMOTE = `git://${SRV_ADDR}/repo.git`;

/** Why the lab cannot run here, or undefined when it can. */
function unavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the network-cut lab needs root (ip netns); CI runs as root';
  const probe = `${ID}-check`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe', timeout: 10_000 });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe', timeout: 10_000 });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `ip netns does not work here: ${stderr || (error instanceof Error ? error.message : String(error))}`;
  }
}

const skipReason = unavailable();
if (skipReason !== undefined) process.stderr.write(`network-cut lab skipped: ${skipReason}\n`);

let dir: string;
/** What to print when a wait times out: each started process's output. */
const diagnostics: (() => string)[] = [];
/** How the lab waits: 20 s at most, a look every 20 ms; a timeout prints every started process's output. */
const LAB: Wait = { timeout: 20_000, interval: 20, explain: () => diagnostics.map((explain) => explain()).join('\n') };
const children: ChildProcess[] = [];
const dbs: StateDb[] = [];

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe', timeout: 10_000 });
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=lab', '-c', 'user.email=lab@example.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

/** Cuts the client's end of the link: every connection fails with "Network is unreachable". */
function cut(): void {
  ip('-n', CLI_NS, 'link', 'set', VETH_CLI, 'down');
}

function restore(): void {
  ip('-n', CLI_NS, 'link', 'set', VETH_CLI, 'up');
}

/** A process started in the client namespace, its output collected. */
interface Started {
  readonly child: ChildProcess;
  readonly out: () => string;
  readonly err: () => string;
  readonly exit: Promise<number>;
}

/** Starts `argv` in the client namespace in its own process group (killed whole in afterAll). */
function inClient(argv: readonly string[], options: { cwd?: string; env?: Record<string, string>; onErrLine?: (line: string) => void } = {}): Started {
  const child = spawn('ip', ['netns', 'exec', CLI_NS, ...argv], {
    cwd: options.cwd ?? dir,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let out = '';
  let err = '';
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) options.onErrLine?.(line);
  });
  const exit = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  diagnostics.push(() => `--- ${argv.join(' ').slice(0, 80)} (exit ${child.exitCode ?? 'running'})\nstdout: ${out.slice(-300)}\nstderr: ${err.slice(-600)}`);
  return { child, out: () => out, err: () => err, exit };
}

/** `tai net -- git ls-remote REMOTE` in the client namespace, on the state folder `state`. */
function taiNet(state: string, env: Record<string, string>): Started {
  return inClient([process.execPath, CLI, 'net', '--', 'git', 'ls-remote', REMOTE, 'HEAD'], {
    env: { XDG_STATE_HOME: state, TAI_NETWORK_PROBE: `git ls-remote ${REMOTE} HEAD`, ...env },
  });
}

/** The network probe of this test process: the same ls-remote, run inside the client namespace. */
const labProbes: ProbeSource = (service) =>
  service === 'network'
    ? () => runProbe({ argv: ['ip', 'netns', 'exec', CLI_NS, 'git', 'ls-remote', REMOTE, 'HEAD'] }, { timeoutMs: 10_000 })
    : undefined;

/**
 * An agent-like process in a lane: it edits its worktree (when `edits`), then
 * reads the remote every 50 ms; a failed read is printed as git's last line.
 * When `dies`, the first failure ends it with git's exit code, as an agent
 * CLI gives up; otherwise it keeps retrying, as an agent CLI does.
 */
function agentScript(options: { edits: boolean; dies: boolean }): string {
  return [
    options.edits ? 'echo "half-done edit" >> README; echo "scratch" > scratch.txt;' : '',
    'i=0; while [ $i -lt 3000 ]; do',
    // A read caught mid-flight by the cut hangs (a silent drop raises nothing): the agent's own
    // request timeout turns it into an error, as an agent CLI's does.
    '  if out=$(timeout 3 git ls-remote origin HEAD 2>&1); then echo "ok $i"; else',
    '    [ $? -eq 124 ] && out="error: request timed out";',
    `    echo "$out" | tail -n 1 >&2; ${options.dies ? 'exit 128;' : ''}`,
    '  fi; i=$((i+1)); sleep 0.05;',
    'done',
  ].join('\n');
}

/** A lane: a clone of the served repository whose origin is the daemon across the link. */
function lane(name: string): string {
  const path = join(dir, name);
  git(dir, 'clone', '-q', join(dir, 'served', 'repo.git'), path);
  git(path, 'remote', 'set-url', 'origin', REMOTE);
  return path;
}

/**
 * A held agent as the agent service will run it: its failures go to the watch,
 * one at a time; at give-up it is stopped, as the run stops its waiting agents.
 */
function supervise(watch: OutageWatch, panelId: number, label: string, started: (onErrLine: (line: string) => void) => Started): {
  readonly agent: Started;
  readonly verdicts: AgentFailureVerdict[];
  /** Stops the agent and ends its supervision. */
  readonly stop: () => void;
} {
  const verdicts: AgentFailureVerdict[] = [];
  let waiting = false;
  let stopped = false;
  const stop = (): void => {
    stopped = true;
    try {
      if (agent.child.pid !== undefined && agent.child.exitCode === null) process.kill(-agent.child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const agent = started((line) => {
    const verdict = classify({ stderr: line, command: 'git' });
    if (stopped || waiting || verdict.kind !== 'network') return;
    waiting = true;
    void watch.onAgentFailure(verdict, panelId, label).then((end) => {
      verdicts.push(end);
      waiting = false;
      if (end.kind === 'gave-up') stop();
    });
  });
  return { agent, verdicts, stop };
}

const kinds = (rows: readonly RunLogEntry[]): string[] => rows.map((row) => row.kind);

/** Every probe of the schedule, in order, as the run log names its claim. */
const SCHEDULE = [
  'probe 1 (one-minute)', 'probe 2 (five-minutes)', 'probe 3 (ten-minutes)', 'probe 4 (one-hour)',
  ...Array.from({ length: 8 }, (_, i) => `probe ${i + 5} (hourly)`),
];

/**
 * The run log shows exactly one probe per schedule step, in order, each with
 * its outcome. (On a lab time scale an hour is a fraction of a second, so a
 * slow probe can push the last hourly ones past the 8-hour mark: the steps
 * are exact, their number may end before 12.)
 */
function expectOneProbePerStep(db: StateDb): void {
  const claims = readLog(db, { kind: 'probe-claim' }).map((row) => row.detail.replace(/;.*$/, ''));
  expect(claims).toEqual(SCHEDULE.slice(0, claims.length));
  expect(readLog(db, { kind: ['probe-ok', 'probe-fail'] })).toHaveLength(claims.length);
}

describe.skipIf(skipReason !== undefined)('a real network cut', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first with \`npx tsc -p .\` (npm test does)`);
    dir = mkdtempSync(join(tmpdir(), 'tai-lab-'));
    ip('netns', 'add', SRV);
    ip('netns', 'add', CLI_NS);
    ip('link', 'add', VETH_SRV, 'type', 'veth', 'peer', 'name', VETH_CLI);
    ip('link', 'set', VETH_SRV, 'netns', SRV);
    ip('link', 'set', VETH_CLI, 'netns', CLI_NS);
    ip('-n', SRV, 'addr', 'add', `${SRV_ADDR}/24`, 'dev', VETH_SRV);
    ip('-n', CLI_NS, 'addr', 'add', `${CLI_ADDR}/24`, 'dev', VETH_CLI);
    for (const [ns, dev] of [[SRV, VETH_SRV], [CLI_NS, VETH_CLI]] as const) {
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      ip('-n', ns, 'link', 'set', dev, 'up');
    }
    // The served repository, with one commit.
    const seed = join(dir, 'seed');
    mkdirSync(seed);
    git(seed, 'init', '-q');
    writeFileSync(join(seed, 'README'), 'the lab\n');
    git(seed, 'add', '.');
    git(seed, 'commit', '-q', '-m', 'first');
    mkdirSync(join(dir, 'served'));
    git(dir, 'clone', '-q', '--bare', seed, join(dir, 'served', 'repo.git'));
    execFileSync(
      'ip',
      ['netns', 'exec', SRV, 'git', 'daemon', '--reuseaddr', `--base-path=${join(dir, 'served')}`, '--export-all',
        `--listen=${SRV_ADDR}`, '--port=9418', '--detach', `--pid-file=${join(dir, 'daemon.pid')}`],
      { stdio: 'pipe', timeout: 10_000 },
    );
  });

  afterAll(async () => {
    for (const child of children) {
      try {
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    for (const db of dbs) if (db.open) db.close();
    try {
      if (dir !== undefined && existsSync(join(dir, 'daemon.pid'))) process.kill(Number(readFileSync(join(dir, 'daemon.pid'), 'utf8')), 'SIGKILL');
    } catch {
      // Already gone.
    }
    for (const ns of [CLI_NS, SRV]) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // Never made, or already removed.
      }
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('waits out the cut: the net step runs again, a held agent resumes, a dead lane restarts from its last commit, one probe per step', async () => {
    // The daemon answers across the link before anything is cut (bounded: 100 tries).
    let reachable = false;
    for (let attempt = 0; attempt < 100 && !reachable; attempt += 1) {
      reachable = (await runProbe({ argv: ['ip', 'netns', 'exec', CLI_NS, 'git', 'ls-remote', REMOTE, 'HEAD'] }, { timeoutMs: 5_000 })).ok;
    }
    expect(reachable).toBe(true);

    const state = join(dir, 'state-1');
    const db = openStateDb(join(state, 'tai', 'tai.db'));
    dbs.push(db);
    const board = createBoard();
    const watch = createOutageWatch({ db, board, probes: labProbes, scale: 0.002 });
    const heldId = board.getState().open({ label: 'lane-a', task: 'read the remote' }, Date.now());
    const deadId = board.getState().open({ label: 'lane-b', task: 'edit the README' }, Date.now());
    const laneA = lane('lane-a');
    const laneB = lane('lane-b');
    const head = git(laneB, 'rev-parse', 'HEAD').trim();
    const held = supervise(watch, heldId, 'lane-a', (onErrLine) =>
      inClient(['sh', '-c', agentScript({ edits: false, dies: false })], { cwd: laneA, onErrLine }));
    const dying = inClient(['sh', '-c', agentScript({ edits: true, dies: true })], { cwd: laneB });
    await until(() => held.agent.out().includes('ok 1') && dying.out().includes('ok 1'), { ...LAB, what: 'both agents reading the remote' });

    cut();
    // The dying agent exits on the lost network; its supervisor holds its panel and waits too.
    const deadVerdict = dying.exit.then((code) => {
      const verdict = classify({ stderr: dying.err(), exitCode: code, command: 'git' });
      return watch.onAgentFailure(verdict, deadId, 'lane-b');
    });
    const net = taiNet(state, { TAI_OUTAGE_TIME_SCALE: '0.002' });
    await until(() => net.err().includes('tai net: waiting for the network (outage #1'), { ...LAB, what: 'the net step waiting' });
    await until(() => board.getState().panels.filter((panel) => panel.state === 'waiting').length === 2, { ...LAB, what: 'both panels held' });
    const heldPanel = board.getState().panels.find((panel) => panel.id === heldId);
    expect(heldPanel?.header).toContain('waiting for network');
    expect(held.agent.child.exitCode).toBeNull();

    restore();
    expect(await net.exit).toBe(0);
    expect(net.out()).toMatch(/^[0-9a-f]{40}\tHEAD\n$/);
    expect(net.err()).toMatch(/errno=Network is unreachable\n/);
    expect(net.err()).toContain(`tai net: network is back; running again: git ls-remote ${REMOTE} HEAD\n`);

    // The held agent resumes in its panel and reads the remote again.
    await until(() => held.verdicts.length === 1, { ...LAB, what: 'the held agent resumed' });
    expect(held.verdicts[0]?.kind).toBe('back');
    expect(board.getState().panels.find((panel) => panel.id === heldId)?.state).toBe('running');
    const before = held.agent.out().length;
    await until(() => held.agent.out().slice(before).includes('ok'), { ...LAB, what: 'the held agent reading again' });

    // The dead lane restarts from its last commit, its edits saved aside.
    expect((await deadVerdict).kind).toBe('back');
    const restart = restartLane(db, {
      lane: 'lane-b', worktree: laneB, task: 'edit the README', reason: { kind: 'died' }, stateDir: join(state, 'tai'),
      now: Date.now(), outageId: 1, service: 'network',
    });
    expect(restart.head).toBe(head);
    expect(restart.files).toEqual(['README', 'scratch.txt']);
    expect(readFileSync(join(restart.savedTo as string, 'changes.patch'), 'utf8')).toContain('+half-done edit');
    expect(readdirSync(join(restart.savedTo as string, 'untracked'))).toEqual(['scratch.txt']);
    expect(git(laneB, 'status', '--porcelain')).toBe('');
    const fresh = inClient(['sh', '-c', 'git ls-remote origin HEAD >/dev/null && git rev-parse HEAD'], { cwd: laneB });
    expect(await fresh.exit).toBe(0);
    expect(fresh.out().trim()).toBe(head);

    // One outage, joined by all three; exactly one probe per schedule step, each with its outcome.
    expect(listOutages(db)).toHaveLength(1);
    expectOneProbePerStep(db);
    expect(kinds(readLog(db, { kind: ['outage-open', 'outage-join'] }))).toEqual(['outage-open', 'outage-join', 'outage-join']);
    expect(kinds(readLog(db, { kind: ['net-wait', 'net-done', 'agent-hold', 'agent-resume', 'lane-restart'] })).sort()).toEqual(
      ['agent-hold', 'agent-hold', 'agent-resume', 'agent-resume', 'lane-restart', 'net-done', 'net-wait'],
    );
    expect(readLog(db, { kind: 'notify' })).toEqual([]);
    held.stop();
  }, 60_000);

  it('confirms a silent cut by the probe: an agent silent past its idle limit is held and resumes', async () => {
    const state = join(dir, 'state-silent');
    const db = openStateDb(join(state, 'tai', 'tai.db'));
    dbs.push(db);
    const board = createBoard();
    // Packets vanish without an error, so a probe only fails by its timeout.
    const probes: ProbeSource = (service) =>
      service === 'network'
        ? () => runProbe({ argv: ['ip', 'netns', 'exec', CLI_NS, 'git', 'ls-remote', REMOTE, 'HEAD'] }, { timeoutMs: 1_500 })
        : undefined;
    const watch = createOutageWatch({ db, board, probes, scale: 0.002 });
    const panelId = board.getState().open({ label: 'lane-d', task: 'read the remote' }, Date.now());
    // An agent with no request timeout of its own: a silent cut leaves it hanging, printing nothing.
    const agent = inClient(['sh', '-c', 'i=0; while [ $i -lt 3000 ]; do git ls-remote origin HEAD >/dev/null && echo "ok $i"; i=$((i+1)); sleep 0.05; done'], {
      cwd: lane('lane-d'),
    });
    await until(() => agent.out().includes('ok 1'), { ...LAB, what: 'the agent reading the remote' });
    const qdisc = ['netns', 'exec', CLI_NS, 'tc', 'qdisc'];
    execFileSync('ip', [...qdisc, 'add', 'dev', VETH_CLI, 'root', 'pfifo', 'limit', '0'], { stdio: 'pipe', timeout: 10_000 });
    let silenced = true;
    try {
      // The idle clock, shortened for the lab: no output for one second.
      let seen = agent.out().length;
      let quietSince = Date.now();
      await until(() => {
        if (agent.out().length !== seen) {
          seen = agent.out().length;
          quietSince = Date.now();
        }
        return Date.now() - quietSince >= 1_000;
      }, { ...LAB, what: 'the agent silent for a second' });
      const verdict = watch.onAgentSilent(panelId, 'lane-d');
      await until(() => board.getState().panels.find((panel) => panel.id === panelId)?.state === 'waiting', { ...LAB, what: 'the silent agent held' });
      expect(board.getState().panels.find((panel) => panel.id === panelId)?.header).toContain('waiting for network');
      execFileSync('ip', [...qdisc, 'del', 'dev', VETH_CLI, 'root'], { stdio: 'pipe', timeout: 10_000 });
      silenced = false;
      expect((await verdict).kind).toBe('back');
      expect(board.getState().panels.find((panel) => panel.id === panelId)?.state).toBe('running');
      expect(listOutages(db)[0]?.detail).toBe('silent past the idle limit; the network probe failed: no answer within 1500 ms');
      expectOneProbePerStep(db);
      // TCP retransmits the hung read once packets flow again.
      const before = agent.out().length;
      await until(() => agent.out().slice(before).includes('ok'), { ...LAB, what: 'the agent reading again', timeout: 45_000 });
    } finally {
      if (silenced) execFileSync('ip', [...qdisc, 'del', 'dev', VETH_CLI, 'root'], { stdio: 'pipe', timeout: 10_000 });
      if (agent.child.pid !== undefined && agent.child.exitCode === null) process.kill(-agent.child.pid, 'SIGKILL');
    }
  }, 90_000);

  it('gives up on the time scale with exactly one notification, however many waited', async () => {
    const state = join(dir, 'state-2');
    const hookFile = join(dir, 'notified');
    const env = { TAI_OUTAGE_TIME_SCALE: '0.0001', TAI_NOTIFY_HOOK: `echo "$TAI_NOTIFY_MESSAGE" >> ${hookFile}` };
    const db = openStateDb(join(state, 'tai', 'tai.db'));
    dbs.push(db);
    const board = createBoard();
    const watch = createOutageWatch({ db, board, probes: labProbes, scale: 0.0001, notify: { env: { ...process.env, ...env } } });
    const panelId = board.getState().open({ label: 'lane-c', task: 'read the remote' }, Date.now());
    const laneC = lane('lane-c');
    cut();
    try {
      const held = supervise(watch, panelId, 'lane-c', (onErrLine) =>
        inClient(['sh', '-c', agentScript({ edits: false, dies: false })], { cwd: laneC, onErrLine }));
      const nets = [taiNet(state, env), taiNet(state, env)];
      expect(await Promise.all(nets.map((net) => net.exit))).toEqual([69, 69]);
      await until(() => held.verdicts.length === 1, { ...LAB, what: 'the held agent given up' });
      expect(held.verdicts[0]?.kind).toBe('gave-up');
      for (const net of nets) expect(net.err()).toContain('tai net: gave up waiting (outage #1); not run: git ls-remote');
      await until(() => existsSync(hookFile), { ...LAB, what: 'the hook to write' });
      expect(readFileSync(hookFile, 'utf8')).toMatch(/^tai gave up waiting for the network after [\d a-z]+ \(\d+ probes\); the run stopped\. See `tai report`\.\n$/);
      expect(readLog(db, { kind: 'notify' })).toHaveLength(1);
      expectOneProbePerStep(db);
      expect(readLog(db, { kind: 'outage-give-up' })).toHaveLength(1);
      expect(kinds(readLog(db, { kind: ['net-left', 'agent-stop'] })).sort()).toEqual(['agent-stop', 'net-left', 'net-left']);
      const report = execFileSync(process.execPath, [CLI, 'report'], { env: { ...process.env, XDG_STATE_HOME: state }, encoding: 'utf8' });
      expect(report).toMatch(/#1 network · gave up · .* · \d+ probes\n/);
      expect(report).toContain('  left       tai net step not run: git ls-remote');
      expect(report).toContain('  left       agent panel #1 lane-c: stopped at give-up');
    } finally {
      restore();
    }
  }, 60_000);
});
