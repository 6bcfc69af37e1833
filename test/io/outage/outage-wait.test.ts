import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { acpFailure } from '../../../src/core/decoders/acp.js';
import { classify } from '../../../src/core/outage/classify.js';
import { notifyGiveUp } from '../../../src/io/outage/notify.js';
import { createOutageWatch } from '../../../src/io/outage/outage-watch.js';
import { getOutage, readLog, recordProbe, reportFailure } from '../../../src/io/outage/outage-store.js';
import {
  OUTAGE_WAKE_UP_MS,
  evaluateOutages,
  startStandingWakeUp,
  waitOutOutage,
  type OutageWaitOptions,
  type WaitEnd,
} from '../../../src/io/outage/outage-wait.js';
import type { ProbeOutcome, ProbeSource } from '../../../src/io/outage/probes.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 9, 9, 23, 0, 0);

let dir: string;
let path: string;
const opened: StateDb[] = [];
let time: FakeClock;

function connect(): StateDb {
  const db = openStateDb(path);
  opened.push(db);
  return db;
}

/** A probe source whose network probe answers from `outcomes` in turn (then fails), counting its runs. */
function scripted(outcomes: readonly boolean[]): ProbeSource & { runs: number } {
  const source = Object.assign(
    (service: 'network' | 'model') =>
      service === 'network'
        ? async (): Promise<ProbeOutcome> => {
            const ok = outcomes[source.runs] ?? false;
            source.runs += 1;
            return { ok, detail: ok ? 'exit 0' : 'exit 128: fatal: unable to access: Network is unreachable' };
          }
        : undefined,
    { runs: 0 },
  );
  return source;
}

function waiter(pid: number, probes: ProbeSource, extra: Partial<OutageWaitOptions> = {}): OutageWaitOptions {
  return { db: connect(), probes, now: time.now, sleep: time.sleep, pid, ...extra };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-outage-wait-'));
  path = join(dir, 'tai.db');
  time = new FakeClock(T0);
});

afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('waiting an outage out', () => {
  it('probes at 1, 5 and 10 minutes and comes back when the third probe succeeds', async () => {
    const { outage } = reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const probes = scripted([false, false, true]);
    const seen: string[] = [];
    const end = await time.runUntil(
      waitOutOutage(waiter(11, probes, { onProgress: (o) => seen.push(`${o.attempts} ${o.stage}`) }), outage.id),
    );
    expect(end.kind).toBe('back');
    expect(end.outage.endedAt).toBe(T0 + 16 * MINUTE);
    expect(probes.runs).toBe(3);
    expect(seen).toEqual(['0 one-minute', '1 five-minutes', '2 ten-minutes']);
    const db = connect();
    expect(readLog(db, { kind: 'probe-claim' }).map((row) => (row.at - T0) / MINUTE)).toEqual([1, 6, 16]);
    expect(readLog(db, { kind: 'probe-output' }).map((row) => row.detail)).toEqual([
      'exit 128: fatal: unable to access: Network is unreachable',
      'exit 128: fatal: unable to access: Network is unreachable',
      'exit 0',
    ]);
  });

  it('has five waiting processes make exactly one probe per step between them', async () => {
    const { outage } = reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const probes = scripted([false, false, false, true]);
    const waits = [21, 22, 23, 24, 25].map((pid) => waitOutOutage(waiter(pid, probes, { pollMs: MINUTE }), outage.id));
    const ends = await time.runUntil(Promise.all(waits));
    expect(ends.map((end) => end.kind)).toEqual(['back', 'back', 'back', 'back', 'back']);
    expect(probes.runs).toBe(4);
    const claims = readLog(connect(), { kind: 'probe-claim' });
    expect(claims.map((row) => row.detail)).toEqual([
      'probe 1 (one-minute)', 'probe 2 (five-minutes)', 'probe 3 (ten-minutes)', 'probe 4 (one-hour)',
    ]);
  });

  it('gives up after twelve probes and lets exactly one of the waiters notify', async () => {
    const { outage } = reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const probes = scripted([]);
    const waits = [31, 32, 33].map((pid) => waitOutOutage(waiter(pid, probes, { pollMs: 10 * MINUTE }), outage.id));
    const ends: WaitEnd[] = await time.runUntil(Promise.all(waits));
    expect(ends.map((end) => end.kind)).toEqual(['gave-up', 'gave-up', 'gave-up']);
    expect(probes.runs).toBe(12);
    const sent = await Promise.all(
      ends.map((end, i) => notifyGiveUp(connect(), end.outage, { now: time.t, pid: 31 + i, env: { PATH: '' } })),
    );
    expect(sent.map((result) => result.sent)).toEqual([true, false, false]);
    expect(readLog(connect(), { kind: 'notify' })).toHaveLength(1);
  });

  it('waits on a model outage with no canary configured until its outcome is recorded by hand', async () => {
    const { outage } = reportFailure(connect(), 'model', 'HTTP 529: overloaded_error', T0);
    const probes = scripted([]);
    const end = waitOutOutage(waiter(41, probes), outage.id);
    const byHand = (async () => {
      await time.sleep(3 * MINUTE);
      recordProbe(connect(), 'model', true, time.t, 42);
    })();
    expect((await time.runUntil(Promise.all([end, byHand])))[0].kind).toBe('back');
    expect(probes.runs).toBe(0);
    expect(readLog(connect(), { kind: 'probe-ok' }).map((row) => [row.pid, row.at - T0])).toEqual([[42, 3 * MINUTE]]);
  });

  it('sees an outcome recorded by another process within the poll bound', async () => {
    const { outage } = reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const end = waitOutOutage(waiter(51, scripted([]), { pollMs: 1_000 }), outage.id);
    const byHand = (async () => {
      await time.sleep(20_500);
      recordProbe(connect(), 'network', true, time.t, 52);
    })();
    const [result] = await time.runUntil(Promise.all([end, byHand]));
    expect(result.kind).toBe('back');
    expect(time.t - T0).toBeLessThanOrEqual(21_500);
  });

  it('discards a probe whose step was decided while it ran, so the schedule moves one step', async () => {
    const { outage } = reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const slow: ProbeSource = () => async () => {
      await time.sleep(2 * MINUTE);
      return { ok: false, detail: 'exit 128: too late' };
    };
    const end = waitOutOutage(waiter(101, slow), outage.id);
    const byHand = (async () => {
      await time.sleep(MINUTE + 30_000);
      recordProbe(connect(), 'network', true, time.t, 102);
    })();
    const [result] = await time.runUntil(Promise.all([end, byHand]));
    expect(result.kind).toBe('back');
    const db = connect();
    expect(readLog(db, { kind: ['probe-ok', 'probe-fail'] }).map((row) => [row.kind, row.pid])).toEqual([['probe-ok', 102]]);
    expect(readLog(db, { kind: 'probe-late' }).map((row) => row.detail)).toEqual([
      'discarded, the step was already decided: exit 128: too late',
    ]);
  });

  it('waits out another process holding the database past the busy timeout', async () => {
    const { outage } = reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const holder = connect();
    const impatient = openStateDb(path, { busyTimeoutMs: 20 });
    opened.push(impatient);
    const probes = scripted([true]);
    const end = waitOutOutage({ ...waiter(111, probes), db: impatient }, outage.id);
    const locker = (async () => {
      await time.sleep(MINUTE - 1);
      holder.exec('BEGIN IMMEDIATE');
      await time.sleep(5_000);
      holder.exec('COMMIT');
    })();
    const [result] = await time.runUntil(Promise.all([end, locker]));
    expect(result.kind).toBe('back');
    expect(probes.runs).toBe(1);
    expect(readLog(connect(), { kind: 'probe-claim' }).map((row) => row.at - T0)).toEqual([MINUTE + 5_000]);
  });

  it('stops waiting when its signal aborts', async () => {
    const { outage } = reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const stop = new AbortController();
    const end = waitOutOutage(waiter(61, scripted([]), { signal: stop.signal }), outage.id);
    const aborter = (async () => {
      await time.sleep(30_000);
      stop.abort();
    })();
    const [result] = await time.runUntil(Promise.all([end, aborter]));
    expect(result.kind).toBe('aborted');
    expect(getOutage(connect(), outage.id)?.endedAt).toBeNull();
  });
});

describe('the standing wake-up', () => {
  it('re-evaluates the outages every 20 minutes with no waiter left, probing what is due', async () => {
    const { outage } = reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const probes = scripted([false, false, true]);
    const evaluations: number[] = [];
    const wake = startStandingWakeUp({
      ...waiter(71, probes),
      onEvaluated: (evaluation) => {
        evaluations.push(evaluation.open.length);
      },
    });
    const ended = (async () => {
      while (getOutage(connect(), outage.id)?.endedAt === null) await time.sleep(MINUTE);
      wake.stop();
      await wake.done;
    })();
    await time.runUntil(ended);
    expect(OUTAGE_WAKE_UP_MS).toBe(20 * MINUTE);
    expect(readLog(connect(), { kind: 'probe-claim' }).map((row) => (row.at - T0) / MINUTE)).toEqual([20, 40, 60]);
    expect(evaluations).toEqual([1, 1, 1, 0]);
  });

  it('reports an outage that gave up and was not yet notified', async () => {
    const db = connect();
    const { outage } = reportFailure(db, 'network', 'Network is unreachable', T0);
    let current = getOutage(db, outage.id);
    while (current?.nextProbeAt != null) current = recordProbe(db, 'network', false, current.nextProbeAt);
    const evaluation = await evaluateOutages(waiter(81, scripted([])));
    expect(evaluation.open).toEqual([]);
    expect(evaluation.gaveUp.map((o) => o.id)).toEqual([outage.id]);
    await notifyGiveUp(db, evaluation.gaveUp[0]!, { now: time.t, env: { PATH: '' } });
    expect((await evaluateOutages(waiter(82, scripted([])))).gaveUp).toEqual([]);
  });
});

describe('the outage watch for agents', () => {
  it('holds a panel through a lost network and resumes it when the probe succeeds', async () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'lane-1', task: 'fix the parser' }, T0);
    const watch = createOutageWatch({ ...waiter(91, scripted([false, true])), board, scale: 1 });
    const failure = classify(acpFailure({ code: -32603, message: 'Internal error', data: { errorKind: 'transport_lost' } }));
    const verdict = watch.onAgentFailure(failure, id, 'lane-1');
    await new Promise((resolve) => setImmediate(resolve));
    const held = board.getState().panels.find((panel) => panel.id === id);
    expect(held?.state).toBe('waiting');
    expect(held?.header).toContain('waiting for network');
    expect((await time.runUntil(verdict)).kind).toBe('back');
    expect(board.getState().panels.find((panel) => panel.id === id)?.state).toBe('running');
    expect(readLog(connect(), { kind: ['agent-hold', 'agent-resume'] }).map((row) => [row.kind, row.detail])).toEqual([
      ['agent-hold', 'panel #1 lane-1: errorKind transport_lost: Internal error'],
      ['agent-resume', 'panel #1 lane-1'],
    ]);
  });

  it('hands a rate limit back as it is, without holding the panel or opening an outage', async () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'lane-2' }, T0);
    const watch = createOutageWatch({ ...waiter(92, scripted([])), board, scale: 1 });
    const verdict = await watch.onAgentFailure(classify({ status: 429, body: 'rate_limit_error' }), id);
    expect(verdict).toMatchObject({ kind: 'not-outage', classification: { kind: 'rate_limit' } });
    expect(board.getState().panels.find((panel) => panel.id === id)?.state).not.toBe('waiting');
    expect(readLog(connect())).toEqual([]);
  });

  it('stops a held agent at give-up and sends the one notification', async () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'lane-3' }, T0);
    const calls = join(dir, 'hook');
    const watch = createOutageWatch({
      ...waiter(93, scripted([]), { pollMs: 10 * MINUTE }),
      board,
      scale: 1,
      notify: { env: { PATH: '', TAI_NOTIFY_HOOK: `echo once >> ${calls}` } },
    });
    const verdict = await time.runUntil(watch.onAgentFailure(classify({ error: Object.assign(new Error('connect ENETUNREACH'), { code: 'ENETUNREACH' }) }), id));
    expect(verdict).toMatchObject({ kind: 'gave-up', notified: true });
    expect(readLog(connect(), { kind: ['agent-stop', 'notify'] }).map((row) => row.kind)).toEqual(['agent-stop', 'notify']);
  });

  it('confirms a silent agent by one probe: held when the network is gone, handed back when it works', async () => {
    const board = createBoard();
    const a = board.getState().open({ label: 'lane-4' }, T0);
    const b = board.getState().open({ label: 'lane-5' }, T0);
    const probes = scripted([false, true, true]);
    const watch = createOutageWatch({ ...waiter(94, probes), board, scale: 1 });
    const both = Promise.all([watch.onAgentSilent(a, 'lane-4'), watch.onAgentSilent(b, 'lane-5')]);
    const verdicts = await time.runUntil(both);
    expect(verdicts.map((verdict) => verdict.kind)).toEqual(['back', 'back']);
    // One probe confirmed the outage for both, one more (the shared one-minute probe) ended it.
    expect(probes.runs).toBe(2);
    expect(readLog(connect(), { kind: ['outage-open', 'outage-join'] }).map((row) => row.detail)).toEqual([
      'silent past the idle limit; the network probe failed: exit 128: fatal: unable to access: Network is unreachable',
      'silent past the idle limit; the network probe failed: exit 128: fatal: unable to access: Network is unreachable',
    ]);
    const fine = await watch.onAgentSilent(a, 'lane-4');
    expect(fine).toEqual({ kind: 'not-outage', classification: { kind: 'other', detail: 'silent past the idle limit; the network probe succeeded' } });
  });

  it('arms the cockpit\'s standing wake-up, which probes what is due and sends the one notification at give-up', async () => {
    const board = createBoard();
    const calls = join(dir, 'hook');
    reportFailure(connect(), 'network', 'Network is unreachable', T0);
    const probes = scripted([]);
    const watch = createOutageWatch({ ...waiter(95, probes), board, scale: 1, notify: { env: { PATH: '', TAI_NOTIFY_HOOK: `echo once >> ${calls}` } } });
    const wake = watch.armWakeUp();
    const stopped = (async () => {
      while (readLog(connect(), { kind: 'notify' }).length === 0) await time.sleep(OUTAGE_WAKE_UP_MS);
      wake.stop();
      await wake.done;
    })();
    await time.runUntil(stopped);
    expect(probes.runs).toBe(12);
    expect(readFileSync(calls, 'utf8')).toBe('once\n');
    expect(readLog(connect(), { kind: 'probe-claim' }).every((row) => (row.at - T0) % OUTAGE_WAKE_UP_MS === 0)).toBe(true);
  });
});

