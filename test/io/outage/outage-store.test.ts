import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  claimNotification,
  claimProbe,
  ensureOutageSchema,
  getOutage,
  listOutages,
  log,
  openOutage,
  outageTimeScale,
  readLog,
  recordProbe,
  reportFailure,
} from '../../../src/io/outage/outage-store.js';
import { StateDbLockedError, migrate, openStateDb, stateDir, type StateDb } from '../../../src/io/storage/state-db.js';
import { testEnv } from '../../helpers/test-env.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.UTC(2026, 9, 9, 23, 0, 0);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

let dir: string;
let path: string;
const opened: StateDb[] = [];

/** A connection of its own to the test's database file, as another process would have. */
function connect(options?: { busyTimeoutMs?: number }): StateDb {
  const db = openStateDb(path, options);
  opened.push(db);
  return db;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-outage-'));
  path = join(dir, 'state', 'tai.db');
});

afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the state database', () => {
  it('creates its folder 0700 and its file 0600, in WAL mode with synchronous FULL', () => {
    const db = connect();
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('lives under $XDG_STATE_HOME/tai, or ~/.local/state/tai when that is unset or relative', () => {
    expect(stateDir({ XDG_STATE_HOME: '/var/lib/someone' })).toBe('/var/lib/someone/tai');
    expect(stateDir({})).toBe(join(homedir(), '.local', 'state', 'tai'));
    expect(stateDir({ XDG_STATE_HOME: 'relative/state' })).toBe(join(homedir(), '.local', 'state', 'tai'));
  });

  it('applies a migration once and records it in the schema table', () => {
    const db = connect();
    expect(migrate(db, 'test/1', ['CREATE TABLE thing (id INTEGER PRIMARY KEY)'], T0)).toBe(true);
    expect(migrate(db, 'test/1', ['CREATE TABLE thing (id INTEGER PRIMARY KEY)'], T0 + 1)).toBe(false);
    expect(db.prepare('SELECT name, applied_at FROM schema').all()).toEqual([{ name: 'test/1', applied_at: T0 }]);
  });

  it('turns a database locked by another writer into an error that says what to do', () => {
    const holder = connect();
    const waiter = connect({ busyTimeoutMs: 50 });
    ensureOutageSchema(holder);
    ensureOutageSchema(waiter);
    holder.exec('BEGIN IMMEDIATE');
    try {
      expect(() => reportFailure(waiter, 'network', 'fetch failed', T0)).toThrow(StateDbLockedError);
      expect(() => reportFailure(waiter, 'network', 'fetch failed', T0)).toThrow(
        `the state database ${path} is locked: another process has held it for more than 50 ms. ` +
          `Wait for that process to finish, or find it with \`fuser ${path}\` and stop it, then run the command again.`,
      );
    } finally {
      holder.exec('ROLLBACK');
    }
    expect(reportFailure(waiter, 'network', 'fetch failed', T0).opened).toBe(true);
  });
});

describe('the outage store', () => {
  it('opens an outage on the first report and joins it on the later ones', () => {
    const db = connect();
    const first = reportFailure(db, 'network', 'connect ENETUNREACH 10.231.0.1:443', T0, 1, 101);
    const second = reportFailure(connect(), 'network', 'Could not resolve host: github.com', T0 + 5_000, 1, 102);
    expect(first.opened).toBe(true);
    expect(second.opened).toBe(false);
    expect(second.outage.id).toBe(first.outage.id);
    expect(openOutage(db, 'network')).toEqual({
      id: first.outage.id,
      service: 'network',
      detail: 'connect ENETUNREACH 10.231.0.1:443',
      startedAt: T0,
      stage: 'one-minute',
      attempts: 0,
      nextProbeAt: T0 + MINUTE,
      hourlyStartedAt: null,
      timeScale: 1,
      reports: 2,
      proberPid: null,
      leaseUntil: null,
      endedAt: null,
      gaveUpAt: null,
      notifiedAt: null,
    });
    expect(openOutage(db, 'model')).toBeUndefined();
    expect(readLog(db).map(({ kind, pid, detail }) => [kind, pid, detail])).toEqual([
      ['outage-open', 101, 'connect ENETUNREACH 10.231.0.1:443'],
      ['outage-join', 102, 'Could not resolve host: github.com'],
    ]);
  });

  it('keeps the network and the model service as two outages', () => {
    const db = connect();
    reportFailure(db, 'network', 'fetch failed', T0);
    reportFailure(db, 'model', 'HTTP 529: overloaded_error: Overloaded', T0 + 1);
    expect(listOutages(db).map((outage) => outage.service)).toEqual(['network', 'model']);
  });

  it('gives a probe that is due to exactly one of two claimants', () => {
    const a = connect();
    const b = connect();
    reportFailure(a, 'network', 'fetch failed', T0);
    expect(claimProbe(a, 'network', 201, T0 + MINUTE - 1, 30_000)).toBe(false);
    expect(claimProbe(a, 'network', 201, T0 + MINUTE, 30_000)).toBe(true);
    expect(claimProbe(b, 'network', 202, T0 + MINUTE, 30_000)).toBe(false);
    expect(claimProbe(a, 'network', 201, T0 + MINUTE + 1, 30_000)).toBe(false);
    expect(claimProbe(b, 'model', 202, T0 + MINUTE, 30_000)).toBe(false);
    expect(openOutage(b, 'network')).toMatchObject({ proberPid: 201, leaseUntil: T0 + MINUTE + 30_000 });
    expect(readLog(b, { kind: 'probe-claim' }).map(({ pid, detail }) => [pid, detail])).toEqual([[201, 'probe 1 (one-minute)']]);
  });

  it('lets another process take over a probe whose lease expired', () => {
    const db = connect();
    reportFailure(db, 'network', 'fetch failed', T0);
    expect(claimProbe(db, 'network', 301, T0 + MINUTE, 30_000)).toBe(true);
    expect(claimProbe(connect(), 'network', 302, T0 + MINUTE + 29_999, 30_000)).toBe(false);
    expect(claimProbe(connect(), 'network', 302, T0 + MINUTE + 30_000, 30_000)).toBe(true);
    expect(readLog(db, { kind: 'probe-claim' }).map(({ pid, detail }) => [pid, detail])).toEqual([
      [301, 'probe 1 (one-minute)'],
      [302, 'probe 1 (one-minute); took over from pid 301, whose lease expired'],
    ]);
  });

  it('moves a failed probe one step along the schedule and releases the lease', () => {
    const db = connect();
    reportFailure(db, 'network', 'fetch failed', T0);
    claimProbe(db, 'network', 401, T0 + MINUTE, 30_000);
    const failedAt = T0 + MINUTE + 2_500;
    expect(recordProbe(db, 'network', false, failedAt, 401)).toMatchObject({
      attempts: 1,
      stage: 'five-minutes',
      nextProbeAt: failedAt + 5 * MINUTE,
      proberPid: null,
      leaseUntil: null,
      endedAt: null,
    });
    expect(readLog(db, { kind: 'probe-fail' }).map((entry) => entry.detail)).toEqual([
      `probe 1 (one-minute) failed; next probe 2 (five-minutes) at ${new Date(failedAt + 5 * MINUTE).toISOString()}`,
    ]);
  });

  it('ends the outage when a probe succeeds, and a later loss opens a new one', () => {
    const db = connect();
    const { outage } = reportFailure(db, 'model', 'HTTP 529', T0);
    claimProbe(db, 'model', 501, T0 + MINUTE, 30_000);
    expect(recordProbe(db, 'model', true, T0 + MINUTE + 800, 501)).toMatchObject({
      endedAt: T0 + MINUTE + 800,
      nextProbeAt: null,
      proberPid: null,
    });
    expect(openOutage(db, 'model')).toBeUndefined();
    expect(recordProbe(db, 'model', true, T0 + 2 * MINUTE)).toBeUndefined();
    expect(readLog(db, { outageId: outage.id, kind: ['probe-ok', 'outage-end'] }).map((entry) => entry.detail)).toEqual([
      'probe 1 (one-minute) succeeded',
      'ended after 1 probe, 1 min 1 s after it began',
    ]);
    const again = reportFailure(db, 'model', 'HTTP 503', T0 + HOUR);
    expect(again.opened).toBe(true);
    expect(again.outage.id).not.toBe(outage.id);
  });

  it('gives up when the probe at the 8-hour mark of the hourly stage fails, after twelve probes', () => {
    const db = connect();
    const { outage } = reportFailure(db, 'network', 'fetch failed', T0);
    let current = getOutage(db, outage.id);
    while (current !== undefined && current.nextProbeAt !== null) {
      const due = current.nextProbeAt;
      expect(claimProbe(db, 'network', 601, due, 30_000)).toBe(true);
      current = recordProbe(db, 'network', false, due, 601);
    }
    expect(current).toMatchObject({ attempts: 12, gaveUpAt: T0 + 556 * MINUTE, hourlyStartedAt: T0 + 76 * MINUTE, endedAt: null });
    expect(openOutage(db, 'network')).toBeUndefined();
    const claims = readLog(db, { kind: 'probe-claim' });
    expect(claims.map((entry) => (entry.at - T0) / MINUTE)).toEqual([1, 6, 16, 76, 136, 196, 256, 316, 376, 436, 496, 556]);
    expect(readLog(db).at(-1)).toMatchObject({ kind: 'outage-give-up', detail: 'gave up after 12 probes, 9 h 16 min after it began' });
  });

  it('runs an outage opened on a time scale on that scale, whoever records its probes', () => {
    const db = connect();
    reportFailure(db, 'network', 'fetch failed', T0, 0.001);
    expect(openOutage(db, 'network')).toMatchObject({ nextProbeAt: T0 + 60, timeScale: 0.001 });
    expect(recordProbe(connect(), 'network', false, T0 + 60)).toMatchObject({ nextProbeAt: T0 + 60 + 300 });
  });

  it('reads the lab time scale from TAI_OUTAGE_TIME_SCALE', () => {
    expect(outageTimeScale({})).toBe(1);
    expect(outageTimeScale({ TAI_OUTAGE_TIME_SCALE: '0.001' })).toBe(0.001);
    expect(() => outageTimeScale({ TAI_OUTAGE_TIME_SCALE: '-3' })).toThrow(RangeError);
  });

  it('sends exactly one notification per outage, however many processes ask', () => {
    const { outage } = reportFailure(connect(), 'network', 'fetch failed', T0);
    const answers = [701, 702, 703, 704, 705].map((pid, i) => claimNotification(connect(), outage.id, T0 + i, pid));
    expect(answers).toEqual([true, false, false, false, false]);
    expect(getOutage(connect(), outage.id)?.notifiedAt).toBe(T0);
    expect(readLog(connect(), { kind: 'notify' }).map(({ pid, outageId }) => [pid, outageId])).toEqual([[701, outage.id]]);
    expect(claimNotification(connect(), outage.id + 99, T0)).toBe(false);
  });

  it('keeps the run log append-only and reads it back by filter', () => {
    const db = connect();
    log(db, { at: T0, pid: 801, kind: 'lane-restart', detail: 'lane-2 from 4f2a9c1' });
    log(db, { at: T0 + 1, pid: 802, kind: 'net-wait', service: 'network', outageId: 7, detail: 'git push' });
    expect(() => db.prepare("UPDATE run_log SET detail = 'rewritten'").run()).toThrow('the run log is append-only');
    expect(() => db.prepare('DELETE FROM run_log').run()).toThrow('the run log is append-only');
    expect(readLog(db)).toEqual([
      { id: 1, at: T0, pid: 801, kind: 'lane-restart', service: null, outageId: null, detail: 'lane-2 from 4f2a9c1' },
      { id: 2, at: T0 + 1, pid: 802, kind: 'net-wait', service: 'network', outageId: 7, detail: 'git push' },
    ]);
    expect(readLog(db, { service: 'network' }).map((entry) => entry.id)).toEqual([2]);
    expect(readLog(db, { pid: 801 }).map((entry) => entry.id)).toEqual([1]);
    expect(readLog(db, { since: T0 + 1 }).map((entry) => entry.id)).toEqual([2]);
    expect(readLog(db, { kind: [] })).toEqual([]);
  });
});

/**
 * The probers are real `node` processes, so they need the store as JavaScript.
 * Rather than depend on a prior `tsc` build (which may be stale or missing when
 * vitest runs alone), the test transpiles the store and the modules it imports
 * from the current sources into a scratch folder inside the repository, where
 * `better-sqlite3` resolves from node_modules as it does for the real build.
 */
function transpileStore(): { storeUrl: string; scratch: string } {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const scratch = mkdtempSync(join(ROOT, '.tmp', 'outage-store-'));
  const pending = [join(ROOT, 'src/io/outage/outage-store.ts')];
  const done = new Set<string>();
  while (pending.length > 0) {
    const source = pending.pop() as string;
    if (done.has(source)) continue;
    done.add(source);
    const text = readFileSync(source, 'utf8');
    const { outputText } = ts.transpileModule(text, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    const target = join(scratch, relative(ROOT, source)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
    for (const [, specifier] of outputText.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
      pending.push(resolve(dirname(source), `${specifier}.ts`));
    }
  }
  return { storeUrl: pathToFileURL(join(scratch, 'src/io/outage/outage-store.js')).href, scratch };
}

/** Resolves when `count` children have printed "ready", or rejects at the deadline. */
function untilReady(children: readonly ChildProcess[], deadlineMs: number): Promise<void> {
  return new Promise((resolveReady, reject) => {
    let ready = 0;
    const timer = setTimeout(() => reject(new Error(`only ${ready} of ${children.length} probers got ready`)), deadlineMs);
    for (const child of children) {
      let seen = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        const before = seen.includes('ready\n');
        seen += chunk.toString();
        if (!before && seen.includes('ready\n') && ++ready === children.length) {
          clearTimeout(timer);
          resolveReady();
        }
      });
    }
  });
}

/** Each child's summary line once it exits 0; rejects on a failure or at the deadline. */
function summaries(children: readonly ChildProcess[], deadlineMs: number): Promise<{ probes: number; notified: boolean }[]> {
  const each = children.map(
    (child) =>
      new Promise<{ probes: number; notified: boolean }>((resolveChild, reject) => {
        let out = '';
        let err = '';
        child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
        // 'close', not 'exit': the exit can come before the last stdout chunk is read.
        child.on('close', (code) => {
          const last = out.trim().split('\n').at(-1) ?? '';
          if (code === 0) resolveChild(JSON.parse(last) as { probes: number; notified: boolean });
          else reject(new Error(`prober ${child.pid} exited ${code}: ${err}`));
        });
      }),
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the probers did not finish in time')), deadlineMs);
  });
  return Promise.race([Promise.all(each), deadline]).finally(() => clearTimeout(timer));
}

describe('twenty processes waiting on one outage', () => {
  const PROBERS = 20;
  /** A minute lasts 6 ms: the whole schedule to give-up takes about 3.3 s. */
  const SCALE = 0.0001;
  let storeUrl: string;
  let scratch: string;
  let children: ChildProcess[] = [];

  beforeAll(() => {
    ({ storeUrl, scratch } = transpileStore());
  });

  afterEach(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    children = [];
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Starts the probers, opens the outage once all are ready, and returns their summaries. */
  async function race(outcomes: string): Promise<{ probes: number; notified: boolean }[]> {
    const db = connect();
    ensureOutageSchema(db);
    const fixture = join(ROOT, 'test/fixtures/outage-prober.mjs');
    children = Array.from({ length: PROBERS }, () =>
      spawn(process.execPath, [fixture, path, outcomes], {
        env: testEnv({ TAI_TEST_STORE_MODULE: storeUrl }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const finished = summaries(children, 25_000);
    // If the probers never get ready, the test fails on that, not on this promise left behind.
    finished.catch(() => undefined);
    await untilReady(children, 15_000);
    reportFailure(db, 'network', 'fetch failed', Date.now(), SCALE);
    return finished;
  }

  it('make exactly one probe per schedule step, counted in the run log, and send one notification at give-up', async () => {
    const results = await race('');
    const db = connect();
    const claims = readLog(db, { kind: 'probe-claim' });
    expect(claims.map((entry) => entry.detail)).toEqual([
      'probe 1 (one-minute)', 'probe 2 (five-minutes)', 'probe 3 (ten-minutes)', 'probe 4 (one-hour)',
      ...Array.from({ length: 8 }, (_, i) => `probe ${i + 5} (hourly)`),
    ]);
    expect(readLog(db, { kind: 'probe-fail' })).toHaveLength(12);
    expect(readLog(db, { kind: 'outage-give-up' })).toHaveLength(1);
    expect(readLog(db, { kind: 'notify' })).toHaveLength(1);
    expect(results.reduce((sum, result) => sum + result.probes, 0)).toBe(12);
    expect(results.filter((result) => result.notified)).toHaveLength(1);
  }, 40_000);

  it('stop probing once a probe succeeds, and notify nobody', async () => {
    const results = await race('fail,fail,fail,fail,fail,ok');
    const db = connect();
    expect(readLog(db, { kind: 'probe-claim' }).map((entry) => entry.detail)).toEqual([
      'probe 1 (one-minute)', 'probe 2 (five-minutes)', 'probe 3 (ten-minutes)', 'probe 4 (one-hour)',
      'probe 5 (hourly)', 'probe 6 (hourly)',
    ]);
    expect(readLog(db, { kind: ['probe-ok', 'outage-end'] }).map((entry) => entry.kind)).toEqual(['probe-ok', 'outage-end']);
    expect(readLog(db, { kind: 'notify' })).toEqual([]);
    expect(results.filter((result) => result.notified)).toEqual([]);
    expect(listOutages(db)[0]?.endedAt).not.toBeNull();
  }, 40_000);
});
