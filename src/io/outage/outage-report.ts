/**
 * `tai outage status` and `tai report`, read from the outage table and the run log: every outage with its times
 * and probes, what waited, resumed, restarted or was left (docs/outages.md, "The report format" and "The run
 * log"; docs/spec.md, "Give-up and notification").
 */
import { sanitizeLine } from '../../core/text/sanitize.js';
import { formatDuration as duration, listOutages, readLog, type Outage, type RunLogEntry } from './outage-store.js';
import type { StateDb } from '../storage/state-db.js';

/** Run log kinds of a waiter joining an outage. */
const WAITED = ['net-wait', 'agent-hold', 'lane-wait'];
/** Run log kinds of work that went on once the outage ended. */
const DONE = ['net-done', 'net-failed', 'agent-resume'];
/** Run log kinds of work left undone at give-up. */
const LEFT = ['net-left', 'agent-stop', 'lane-left'];

/** Where an outage stands. */
export type OutageState = 'open' | 'ended' | 'gave-up';

/** One outage, with what the run log says about it. */
export interface OutageReportEntry {
  readonly outage: Outage;
  readonly state: OutageState;
  /** From its start to its end, give-up, or now while it is open (ms). */
  readonly durationMs: number;
  /** Probes whose outcome was recorded. */
  readonly probes: number;
  readonly waited: readonly RunLogEntry[];
  readonly done: readonly RunLogEntry[];
  readonly restarted: readonly RunLogEntry[];
  readonly left: readonly RunLogEntry[];
  /** Where the give-up notification went, if it was sent. */
  readonly notified: readonly RunLogEntry[];
}

/** Every outage on the machine, oldest first, with what waited, was done, restarted and left. */
export function outageReport(db: StateDb, now: number): OutageReportEntry[] {
  const rows = readLog(db);
  return listOutages(db).map((outage) => {
    const mine = rows.filter((row) => row.outageId === outage.id);
    const of = (kinds: readonly string[]): RunLogEntry[] => mine.filter((row) => kinds.includes(row.kind));
    const state: OutageState = outage.endedAt !== null ? 'ended' : outage.gaveUpAt !== null ? 'gave-up' : 'open';
    return {
      outage,
      state,
      durationMs: (outage.endedAt ?? outage.gaveUpAt ?? now) - outage.startedAt,
      probes: of(['probe-ok', 'probe-fail']).length,
      waited: of(WAITED),
      done: of(DONE),
      restarted: of(['lane-restart']),
      left: of(LEFT),
      notified: of(['notify-sent']),
    };
  });
}

/**
 * Who still waits on an outage: a waiter that joined and has not left, been done or ended (a `tai net` step
 * stopped with Ctrl-C logs `net-left`), and whose process lives.
 */
export function stillWaiting(entry: OutageReportEntry, alive: (pid: number) => boolean): RunLogEntry[] {
  const over = [...entry.done, ...entry.left];
  return entry.waited.filter((row) => alive(row.pid) && !over.some((o) => o.pid === row.pid && o.at >= row.at && sameWaiter(row.detail, o.detail)));
}

/** Whether two run-log details name the same waiter: a step (`STEP`, `STEP (interrupted)`) or an agent or lane (`WHO: ...`). */
function sameWaiter(joined: string, later: string): boolean {
  const who = (detail: string): string => detail.split(': ')[0] ?? detail;
  return later.startsWith(joined) || who(joined) === who(later);
}

/** The status: one line per outage, the open ones with their next probe and who still waits (`alive` tells a live waiter's pid). */
export function formatOutageStatus(entries: readonly OutageReportEntry[], now: number, alive: (pid: number) => boolean = () => true): string {
  if (entries.length === 0) return 'no outages recorded\n';
  const open = entries.filter((entry) => entry.state === 'open');
  const lines = [open.length === 0 ? 'no outage open' : `${open.length} outage${open.length === 1 ? '' : 's'} open`];
  for (const entry of entries) {
    lines.push(headline(entry));
    if (entry.state !== 'open') {
      const counts = [
        [entry.waited.length, 'waited'],
        [entry.restarted.length, 'restarted'],
        [entry.left.length, 'left undone'],
      ] as const;
      const said = counts.filter(([count]) => count > 0).map(([count, what]) => `${count} ${what}`);
      if (said.length > 0) lines.push(`  ${said.join(', ')}`);
      continue;
    }
    const { outage } = entry;
    const next =
      outage.nextProbeAt === null
        ? 'no probe pending'
        : `next probe ${outage.attempts + 1} (${outage.stage}) at ${clock(outage.nextProbeAt)}` +
          (outage.nextProbeAt <= now ? ' (due now)' : ` (in ${duration(outage.nextProbeAt - now)})`);
    const waiting = stillWaiting(entry, alive);
    // A probe is made by a waiter (or a cockpit's standing wake-up): due with none waiting, say who will make it.
    const nobody = waiting.length === 0 && outage.proberPid === null && outage.nextProbeAt !== null && outage.nextProbeAt <= now;
    lines.push(`  ${next}${outage.proberPid === null ? '' : `; being probed by pid ${outage.proberPid}`}`);
    if (nobody) lines.push('  nobody is waiting: the probe is made by the next waiter (tai outage wait, tai net) or a cockpit\'s 20-minute wake-up');
    for (const row of waiting) lines.push(`  waiting: ${describe(row)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The end-of-run report: every outage, what waited, what was done and restarted, and after a give-up what is left. */
export function formatReport(entries: readonly OutageReportEntry[]): string {
  if (entries.length === 0) return 'tai report: no outages\n';
  const lines = [`tai report: ${entries.length} outage${entries.length === 1 ? '' : 's'}`];
  for (const entry of entries) {
    lines.push('', headline(entry), `  cause: ${sanitizeLine(entry.outage.detail)}`);
    const section = (title: string, rows: readonly RunLogEntry[]): void => {
      for (const row of rows) lines.push(`  ${title.padEnd(10)} ${describe(row)}`);
    };
    section('waited', entry.waited);
    section('done', entry.done);
    section('restarted', entry.restarted);
    if (entry.state === 'gave-up') {
      section('left', entry.left);
      if (entry.left.length === 0) lines.push('  left       nothing was waiting');
      section('notified', entry.notified);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The report as plain data, for `--json`. */
export function reportJson(entries: readonly OutageReportEntry[]): unknown {
  const row = ({ at, pid, kind, detail }: RunLogEntry): unknown => ({ at: new Date(at).toISOString(), pid, kind, detail });
  return entries.map((entry) => ({
    id: entry.outage.id,
    service: entry.outage.service,
    state: entry.state,
    cause: entry.outage.detail,
    startedAt: new Date(entry.outage.startedAt).toISOString(),
    endedAt: iso(entry.outage.endedAt),
    gaveUpAt: iso(entry.outage.gaveUpAt),
    durationMs: entry.durationMs,
    probes: entry.probes,
    stage: entry.outage.stage,
    nextProbeAt: iso(entry.outage.nextProbeAt),
    reports: entry.outage.reports,
    waited: entry.waited.map(row),
    done: entry.done.map(row),
    restarted: entry.restarted.map(row),
    left: entry.left.map(row),
    notified: entry.notified.map(row),
  }));
}

/** "#3 network · ended · 2026-11-30 14:02:11Z → 14:20:40Z · 18 min 29 s · 3 probes". */
function headline(entry: OutageReportEntry): string {
  const { outage } = entry;
  const end = outage.endedAt ?? outage.gaveUpAt;
  const start = clock(outage.startedAt);
  // The end drops its date when it is the start's.
  const finish = end === null ? '' : clock(end).startsWith(start.slice(0, 11)) ? clock(end).slice(11) : clock(end);
  const span = end === null ? `since ${start}` : `${start} → ${finish}`;
  const probes = `${entry.probes} probe${entry.probes === 1 ? '' : 's'}`;
  const state = entry.state === 'gave-up' ? 'gave up' : entry.state;
  return `#${outage.id} ${outage.service} · ${state} · ${span} · ${duration(entry.durationMs)} · ${probes}`;
}

/** One run log row as a report line: what, by which process, when. */
function describe(row: RunLogEntry): string {
  const what: Record<string, string> = {
    'net-wait': 'tai net step',
    'agent-hold': 'agent',
    'net-done': 'ran again, succeeded:',
    'net-failed': 'ran again, failed:',
    'agent-resume': 'resumed',
    'lane-restart': 'lane',
    'net-left': 'tai net step not run:',
    'agent-stop': 'agent',
    'lane-wait': 'lane',
    'lane-left': 'lane not restarted:',
    'notify-sent': 'sent through',
  };
  return `${what[row.kind] ?? row.kind} ${sanitizeLine(row.detail)} (pid ${row.pid}, ${clock(row.at)})`;
}

/** "2026-11-30 14:02:11Z": a moment, in UTC so every reader sees the same text. */
function clock(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function iso(at: number | null): string | null {
  return at === null ? null : new Date(at).toISOString();
}
