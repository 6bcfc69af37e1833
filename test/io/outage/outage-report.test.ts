import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatOutageStatus, formatReport, outageReport, reportJson } from '../../../src/io/outage/outage-report.js';
import { claimProbe, getOutage, log, recordProbe, reportFailure } from '../../../src/io/outage/outage-store.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 9, 9, 23, 0, 4);
let dir: string;
let db: StateDb;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-report-'));
  db = openStateDb(join(dir, 'tai.db'));
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An outage that ended at its third probe, with a net step, a held agent and a restarted lane. */
function shortOutage(): void {
  const { outage } = reportFailure(db, 'network', "git: fatal: unable to access 'https://github.com/o/r/': Could not resolve host: github.com", T0, 1, 4411);
  const at = { service: 'network' as const, outageId: outage.id };
  log(db, { ...at, at: T0, pid: 4411, kind: 'net-wait', detail: 'git push origin lane-2' });
  log(db, { ...at, at: T0 + 5_000, pid: 4102, kind: 'agent-hold', detail: 'panel #3 lane-1: errorKind transport_lost' });
  for (const [due, ok] of [[T0 + MINUTE, false], [T0 + 6 * MINUTE, false], [T0 + 16 * MINUTE, true]] as const) {
    claimProbe(db, 'network', 4411, due, 45_000);
    recordProbe(db, 'network', ok, due, 4411);
  }
  log(db, { ...at, at: T0 + 16 * MINUTE, pid: 4411, kind: 'net-done', detail: 'git push origin lane-2' });
  log(db, { ...at, at: T0 + 16 * MINUTE, pid: 4102, kind: 'agent-resume', detail: 'panel #3 lane-1' });
  log(db, { ...at, at: T0 + 16 * MINUTE + 1_000, pid: 4102, kind: 'lane-restart', detail: 'lane-3 (died) restarts from 4f2a9c1; no uncommitted edits; task: fix it' });
}

describe('the outage report', () => {
  it('shows every outage with its span, duration, probes, and what waited, was done and restarted', () => {
    shortOutage();
    expect(formatReport(outageReport(db, T0 + 60 * MINUTE))).toBe(
      [
        'tai report: 1 outage',
        '',
        '#1 network · ended · 2026-10-09 23:00:04Z → 23:16:04Z · 16 min · 3 probes',
        "  cause: git: fatal: unable to access 'https://github.com/o/r/': Could not resolve host: github.com",
        '  waited     tai net step git push origin lane-2 (pid 4411, 2026-10-09 23:00:04Z)',
        '  waited     agent panel #3 lane-1: errorKind transport_lost (pid 4102, 2026-10-09 23:00:09Z)',
        '  done       ran again, succeeded: git push origin lane-2 (pid 4411, 2026-10-09 23:16:04Z)',
        '  done       resumed panel #3 lane-1 (pid 4102, 2026-10-09 23:16:04Z)',
        '  restarted  lane lane-3 (died) restarts from 4f2a9c1; no uncommitted edits; task: fix it (pid 4102, 2026-10-09 23:16:05Z)',
        '',
      ].join('\n'),
    );
  });

  it('says what is left after a give-up', () => {
    const { outage } = reportFailure(db, 'network', 'Network is unreachable', T0, 1, 5120);
    log(db, { at: T0, pid: 5120, kind: 'net-wait', service: 'network', outageId: outage.id, detail: 'gh pr create --fill' });
    let current = getOutage(db, outage.id);
    while (current?.nextProbeAt != null) current = recordProbe(db, 'network', false, current.nextProbeAt, 5120);
    const end = T0 + 556 * MINUTE;
    log(db, { at: end, pid: 5120, kind: 'net-left', service: 'network', outageId: outage.id, detail: 'gh pr create --fill' });
    log(db, { at: end, pid: 5120, kind: 'notify-sent', service: 'network', outageId: outage.id, detail: 'hook: exit 0' });
    expect(formatReport(outageReport(db, end))).toBe(
      [
        'tai report: 1 outage',
        '',
        '#1 network · gave up · 2026-10-09 23:00:04Z → 2026-10-10 08:16:04Z · 9 h 16 min · 12 probes',
        '  cause: Network is unreachable',
        '  waited     tai net step gh pr create --fill (pid 5120, 2026-10-09 23:00:04Z)',
        '  left       tai net step not run: gh pr create --fill (pid 5120, 2026-10-10 08:16:04Z)',
        '  notified   sent through hook: exit 0 (pid 5120, 2026-10-10 08:16:04Z)',
        '',
      ].join('\n'),
    );
    expect(reportJson(outageReport(db, end))).toMatchObject([{ id: 1, state: 'gave-up', probes: 12, durationMs: 556 * MINUTE }]);
  });

  it('shows an open outage in the status with its next probe and who waits', () => {
    const { outage } = reportFailure(db, 'model', 'HTTP 529: overloaded_error: Overloaded', T0, 1, 77);
    log(db, { at: T0, pid: 77, kind: 'agent-hold', service: 'model', outageId: outage.id, detail: 'panel #2 lane-4: HTTP 529' });
    expect(formatOutageStatus(outageReport(db, T0 + 20_000), T0 + 20_000)).toBe(
      [
        '1 outage open',
        '#1 model · open · since 2026-10-09 23:00:04Z · 20 s · 0 probes',
        '  next probe 1 (one-minute) at 2026-10-09 23:01:04Z (in 40 s)',
        '  waiting: agent panel #2 lane-4: HTTP 529 (pid 77, 2026-10-09 23:00:04Z)',
        '',
      ].join('\n'),
    );
    expect(formatOutageStatus([], T0)).toBe('no outages recorded\n');
  });

  it('stops listing a waiter that left (a tai net step interrupted with Ctrl-C) or whose process is gone, and says who makes a due probe', () => {
    const { outage } = reportFailure(db, 'network', 'Network is unreachable', T0, 1, 5120);
    log(db, { at: T0, pid: 5120, kind: 'net-wait', service: 'network', outageId: outage.id, detail: 'git push' });
    log(db, { at: T0 + 5_000, pid: 5120, kind: 'net-left', service: 'network', outageId: outage.id, detail: 'git push (interrupted)' });
    log(db, { at: T0, pid: 6000, kind: 'net-wait', service: 'network', outageId: outage.id, detail: 'gh pr create' });
    const at = T0 + 2 * MINUTE;
    const status = formatOutageStatus(outageReport(db, at), at, (pid) => pid !== 6000);
    expect(status).not.toMatch(/^  waiting: /m);
    expect(status).toContain('(due now)');
    expect(status).toContain('nobody is waiting: the probe is made by the next waiter (tai outage wait, tai net) or a cockpit\'s 20-minute wake-up');
    log(db, { at, pid: 7000, kind: 'net-wait', service: 'network', outageId: outage.id, detail: 'git fetch' });
    expect(formatOutageStatus(outageReport(db, at), at, () => true)).toContain('waiting: tai net step git fetch');
  });
});

