/**
 * The hosts waited for now, as `tai status`, `tai outage status` and `tai report` show them (docs/remote.md, "Held
 * during a lost link"): from the hold files, each host once with its outage and the agents held for it.
 */
import { readHostOutage } from '../remote/host-outage.js';
import { holdsDir, readHolds, type HeldAgent } from './host-holds.js';

/** One host waited for. Times are epoch ms. */
export interface HostOutageView {
  readonly host: string;
  /** The earliest loss of its agents' links. */
  readonly since: number;
  readonly nextProbeAt?: number;
  /** Probes that failed so far. */
  readonly attempts: number;
  /** The last failed probe's reason. */
  readonly detail?: string;
  readonly held: readonly HeldAgent[];
}

/** The hosts waited for now, oldest first. */
export function hostOutagesNow(dir: string = holdsDir()): HostOutageView[] {
  const byHost = new Map<string, HeldAgent[]>();
  for (const hold of readHolds(dir)) byHost.set(hold.host, [...(byHost.get(hold.host) ?? []), hold]);
  const views: HostOutageView[] = [];
  for (const [host, held] of byHost) {
    const first = held[0];
    if (first === undefined) continue;
    const outage = readHostOutage(first.outageFile);
    const open = outage !== undefined && outage.endedAt === undefined && outage.gaveUpAt === undefined;
    views.push({
      host,
      since: Math.min(...held.map((h) => h.since)),
      attempts: open ? outage.attempts : 0,
      ...(open ? { nextProbeAt: outage.nextProbeAt } : {}),
      ...(open && outage.detail !== undefined ? { detail: outage.detail } : {}),
      held,
    });
  }
  return views.sort((a, b) => a.since - b.since);
}

const clock = (at: number): string => new Date(at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');

function agentWord(hold: HeldAgent): string {
  const who = hold.panel === undefined ? `process ${hold.pid}` : `#${hold.panel.panel} ${hold.panel.label}`;
  return hold.stopPending === true ? `${who} (stop pending)` : who;
}

/** One line: `waiting for host HOST (ssh://HOST) since ...: probe N at ...; held: #3 LABEL`. */
export function hostOutageLine(view: HostOutageView): string {
  const probe = view.nextProbeAt === undefined ? 'probing' : `probe ${view.attempts + 1} at ${clock(view.nextProbeAt)}`;
  const last = view.detail === undefined ? '' : ` (last: ${view.detail})`;
  return `waiting for host ${view.host} (ssh://${view.host}) since ${clock(view.since)}: ${probe}${last}; held: ${view.held.map(agentWord).join(', ')}`;
}

/** As JSON, beside the machine's outages (`service: "host"`). */
export function hostOutageJson(view: HostOutageView): unknown {
  return {
    service: 'host',
    host: view.host,
    state: 'waiting',
    startedAt: new Date(view.since).toISOString(),
    nextProbeAt: view.nextProbeAt === undefined ? null : new Date(view.nextProbeAt).toISOString(),
    probes: view.attempts,
    cause: view.detail ?? null,
    held: view.held.map((h) => ({ pid: h.pid, panel: h.panel?.panel ?? null, label: h.panel?.label ?? null, since: new Date(h.since).toISOString(), stopPending: h.stopPending === true })),
  };
}
