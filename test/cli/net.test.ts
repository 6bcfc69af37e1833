import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listOutages, readLog } from '../../src/io/outage/outage-store.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { testEnv } from '../helpers/test-env.js';

/** The built CLI, as a user runs it (npm test builds it first). */
const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));

let dir: string;
const opened: StateDb[] = [];

/** The state database the children share. */
function stateDb(): StateDb {
  const db = openStateDb(join(dir, 'state', 'tai', 'tai.db'));
  opened.push(db);
  return db;
}

/** A running `tai` child: its output so far, a way to wait on it, and its end. */
interface Tai {
  readonly out: () => string;
  readonly err: () => string;
  readonly stderrShows: (text: string, deadlineMs?: number) => Promise<void>;
  readonly exit: Promise<number>;
  readonly kill: (signal: NodeJS.Signals) => void;
}

function tai(args: readonly string[], env: Record<string, string> = {}): Tai {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: testEnv({ XDG_STATE_HOME: join(dir, 'state'), TAI_NOTIFY_HOOK: '', TAI_NETWORK_PROBE: 'false', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const watchers: (() => void)[] = [];
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const watch of watchers) watch();
  });
  const exit = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const deadline = setTimeout(() => child.kill('SIGKILL'), 80_000);
  void exit.finally(() => clearTimeout(deadline));
  return {
    out: () => out,
    err: () => err,
    exit,
    kill: (signal) => child.kill(signal),
    stderrShows: (text, deadlineMs = 15_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`stderr never showed "${text}":\n${err}`)), deadlineMs);
        const watch = (): void => {
          if (err.includes(text)) {
            clearTimeout(timer);
            resolve();
          }
        };
        watchers.push(watch);
        watch();
      }),
  };
}

/** Every probe of the schedule, in order, as the run log names its claim. */
const SCHEDULE = [
  'probe 1 (one-minute)', 'probe 2 (five-minutes)', 'probe 3 (ten-minutes)', 'probe 4 (one-hour)',
  ...Array.from({ length: 8 }, (_, i) => `probe ${i + 5} (hourly)`),
];

/** A step that fails like git on a lost network until the file `up` exists, then prints "fetched". */
const FLAKY_STEP = ['sh', '-c', 'if [ -e up ]; then echo fetched; else echo "fatal: unable to access \'https://example.invalid/\': Could not resolve host: example.invalid" >&2; exit 128; fi'];

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first with \`npx tsc -p .\` (npm test does)`);
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-net-'));
});

afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tai net', () => {
  it('runs a step that works once, passing its output through', async () => {
    const run = tai(['net', '--', 'sh', '-c', 'echo out; echo note >&2']);
    expect(await run.exit).toBe(0);
    expect(run.out()).toBe('out\n');
    expect(run.err()).toBe('note\n');
    expect(listOutages(stateDb())).toEqual([]);
  });

  it('passes another failure through with the step\'s own exit code', async () => {
    const run = tai(['net', '--', 'sh', '-c', 'echo "fatal: not a git repository" >&2; exit 3']);
    expect(await run.exit).toBe(3);
    expect(run.err()).toBe('fatal: not a git repository\n');
    expect(listOutages(stateDb())).toEqual([]);
  });

  it('reports a rate limit as it is and never waits it out', async () => {
    const run = tai(['net', '--', 'sh', '-c', 'echo "HTTP 429: API rate limit exceeded for user" >&2; exit 1']);
    expect(await run.exit).toBe(1);
    expect(run.err()).toBe('HTTP 429: API rate limit exceeded for user\ntai net: a rate limit, not an outage: HTTP 429: API rate limit exceeded for user\n');
    expect(listOutages(stateDb())).toEqual([]);
  });

  it('waits a lost network out on the shared probe, showing the stage and the next probe, then runs the step again', async () => {
    const run = tai(['net', '--', ...FLAKY_STEP], { TAI_OUTAGE_TIME_SCALE: '0.001', TAI_NETWORK_PROBE: 'test -e up' });
    await run.stderrShows('tai net: waiting for the network (outage #1, stage one-minute): probe 1 at ');
    writeFileSync(join(dir, 'up'), '');
    expect(await run.exit).toBe(0);
    expect(run.out()).toBe('fetched\n');
    const lines = run.err().split('\n');
    expect(lines[0]).toBe("fatal: unable to access 'https://example.invalid/': Could not resolve host: example.invalid");
    expect(lines[1]).toBe('tai net: the network is lost (fatal: unable to access \'https://example.invalid/\': Could not resolve host: example.invalid); opened outage #1');
    expect(lines.at(-2)).toBe(`tai net: network is back; running again: ${FLAKY_STEP.join(' ')}`);
    const db = stateDb();
    expect(readLog(db, { kind: ['net-wait', 'net-done'] }).map((row) => [row.kind, row.outageId, row.detail])).toEqual([
      ['net-wait', 1, FLAKY_STEP.join(' ')],
      ['net-done', 1, FLAKY_STEP.join(' ')],
    ]);
    expect(listOutages(db)[0]?.endedAt).not.toBeNull();
  });

  it('has three steps share one probe per step and, at give-up, exit 69 with exactly one notification', async () => {
    const hookFile = join(dir, 'notified');
    const env = { TAI_OUTAGE_TIME_SCALE: '0.0001', TAI_NETWORK_PROBE: 'false', TAI_NOTIFY_HOOK: `echo "$TAI_NOTIFY_MESSAGE" >> ${hookFile}` };
    const runs = [1, 2, 3].map(() => tai(['net', '--', ...FLAKY_STEP], env));
    expect(await Promise.all(runs.map((run) => run.exit))).toEqual([69, 69, 69]);
    for (const run of runs) expect(run.err()).toContain('tai net: gave up waiting (outage #1); not run: ');
    expect(readFileSync(hookFile, 'utf8').split('\n').filter((line) => line !== '')).toHaveLength(1);
    const db = stateDb();
    expect(listOutages(db)).toHaveLength(1);
    // A lab hour lasts 360 ms here: slow probes may end the schedule a step early, never probe a step twice.
    const claims = readLog(db, { kind: 'probe-claim' }).map((row) => row.detail);
    expect(claims).toEqual(SCHEDULE.slice(0, claims.length));
    expect(claims.length).toBeGreaterThanOrEqual(9);
    expect(readLog(db, { kind: 'net-wait' })).toHaveLength(3);
    expect(readLog(db, { kind: 'net-left' })).toHaveLength(3);
    expect(readLog(db, { kind: 'notify' })).toHaveLength(1);
  });

  it('leaves the step undone, on the record, when Ctrl-C ends the wait', async () => {
    const run = tai(['net', '--', ...FLAKY_STEP]);
    await run.stderrShows('tai net: waiting for the network (outage #1, stage one-minute)');
    run.kill('SIGINT');
    expect(await run.exit).toBe(130);
    expect(run.err()).toContain(`tai net: interrupted while waiting; not run: ${FLAKY_STEP.join(' ')}\n`);
    expect(readLog(stateDb(), { kind: 'net-left' }).map((row) => row.detail)).toEqual([`${FLAKY_STEP.join(' ')} (interrupted)`]);
  });

  it('refuses an empty command line', async () => {
    const run = tai(['net']);
    expect(await run.exit).toBe(64);
    expect(run.err()).toMatch(/^tai net: a command to run is needed\nusage: tai net \[--\] CMD ARGS\.\.\.\n/);
  });
});

describe('tai outage and tai report', () => {
  it('record a probe by hand, show the status, and let a waiter go when the network is back', async () => {
    const opening = tai(['outage', 'probe', '--network', 'fail'], { TAI_OUTAGE_TIME_SCALE: '10' });
    expect(await opening.exit).toBe(0);
    expect(opening.out()).toMatch(/^network outage #1 opened: waiting for the network \(outage #1, stage one-minute\): probe 1 at /);
    const status = tai(['outage', 'status']);
    expect(await status.exit).toBe(0);
    expect(status.out()).toMatch(/^1 outage open\n#1 network · open · since \S+ \S+Z · \d+ ms · 0 probes\n  next probe 1 \(one-minute\) at \S+ \S+Z \(in \d+ (s|min)/);
    const waiting = tai(['outage', 'wait']);
    await waiting.stderrShows('tai outage: waiting for the network (outage #1, stage one-minute)');
    const back = tai(['outage', 'probe', '--network', 'ok']);
    expect(await back.exit).toBe(0);
    expect(back.out()).toBe('network outage #1 ended\n');
    expect(await waiting.exit).toBe(0);
    expect(waiting.err()).toContain('tai outage: network is back (outage #1 ended)\n');
    const report = tai(['report']);
    expect(await report.exit).toBe(0);
    expect(report.out()).toMatch(/^tai report: 1 outage\n\n#1 network · ended · \S+ \S+Z → \S+Z · \d+ (ms|s) · 1 probe\n  cause: probe failed \(recorded by hand\)\n$/);
    const json = tai(['outage', 'status', '--json']);
    expect(await json.exit).toBe(0);
    expect(JSON.parse(json.out())).toMatchObject([{ id: 1, service: 'network', state: 'ended', probes: 1 }]);
  });

  it('have twenty waiting processes make exactly one probe per schedule step and send one notification', async () => {
    const hookFile = join(dir, 'notified');
    const env = { TAI_NETWORK_PROBE: 'false', TAI_NOTIFY_HOOK: `echo "$TAI_OUTAGE_ID" >> ${hookFile}` };
    // A minute lasts 30 ms: the whole schedule to give-up takes about 17 s.
    const opening = tai(['outage', 'probe', '--network', 'fail'], { TAI_OUTAGE_TIME_SCALE: '0.0005' });
    expect(await opening.exit).toBe(0);
    const waiters = Array.from({ length: 20 }, () => tai(['outage', 'wait'], env));
    expect(await Promise.all(waiters.map((waiter) => waiter.exit))).toEqual(Array.from({ length: 20 }, () => 69));
    const db = stateDb();
    const claims = readLog(db, { kind: 'probe-claim' }).map((row) => row.detail);
    expect(claims).toEqual(SCHEDULE.slice(0, claims.length));
    expect(claims.length).toBeGreaterThanOrEqual(9);
    expect(readLog(db, { kind: 'probe-fail' })).toHaveLength(claims.length);
    expect(readLog(db, { kind: 'notify' })).toHaveLength(1);
    expect(readFileSync(hookFile, 'utf8')).toBe('1\n');
  }, 90_000);

  it('returns at once from wait when no outage is open, and refuses a bad probe outcome', async () => {
    const waiting = tai(['outage', 'wait', '--service', 'model']);
    expect(await waiting.exit).toBe(0);
    expect(waiting.err()).toBe('tai outage: no model outage open\n');
    const bad = tai(['outage', 'probe', '--model', 'maybe']);
    expect(await bad.exit).toBe(64);
    expect(bad.err()).toMatch(/^tai outage: --model takes ok or fail, got 'maybe'\n/);
  });
});
