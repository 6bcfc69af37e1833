/**
 * The folder `src/core/cost/`: what an agent costs the machine, from the kernel's counters, for the agent's whole
 * process group (docs/cockpit.md, "What each agent costs"). Children ticks (`cutime + cstime`) count a `git
 * status` that lived between two samples; RSS counts shared pages in each process, as `ps` does.
 */

/** Clock ticks per second of /proc's CPU times (USER_HZ). */
export const CLOCK_TICKS = 100;

/** One process as /proc/PID/stat says. */
export interface ProcStat {
  readonly pid: number;
  readonly pgid: number;
  /** When it started (ticks after boot): with the pid, a process that cannot be another reusing the pid. */
  readonly start: number;
  readonly ticks: number;
  readonly childTicks: number;
  readonly rssPages: number;
}

/** A group's counters at one sample, for the next one's CPU. */
export interface GroupSample {
  readonly at: number;
  /** Ticks by `pid:start`. */
  readonly ticks: ReadonlyMap<string, number>;
  /** Children ticks by `pid:start`. */
  readonly childTicks: ReadonlyMap<string, number>;
}

/** What a group costs now. */
export interface Cost {
  /** Percent of one core over the last sample; undefined until a second sample. */
  readonly cpu: number | undefined;
  readonly rssBytes: number;
}

/** The fields of a /proc/PID/stat line, or undefined for one that does not parse. */
export function parseProcStat(text: string): ProcStat | undefined {
  // The command name may hold spaces and parentheses: the fields start after the last ')'.
  const close = text.lastIndexOf(')');
  const pid = Number.parseInt(text, 10);
  if (close < 0 || !Number.isInteger(pid)) return undefined;
  const f = text.slice(close + 2).split(' ');
  // f[0] is the state (field 3): field N is f[N - 3].
  const num = (field: number): number => Number(f[field - 3]);
  const stat = { pid, pgid: num(5), start: num(22), ticks: num(14) + num(15), childTicks: num(16) + num(17), rssPages: num(24) };
  return Object.values(stat).every((v) => Number.isFinite(v)) ? stat : undefined;
}

/**
 * A group's cost from its processes now and its previous sample: known processes add their new ticks, new ones
 * all theirs, and grown children ticks add what ended in between, less what was counted of it while it lived.
 */
export function groupCost(prev: GroupSample | undefined, procs: readonly ProcStat[], at: number, pageSize: number): { readonly sample: GroupSample; readonly cost: Cost } {
  const ticks = new Map<string, number>();
  const childTicks = new Map<string, number>();
  let rssPages = 0;
  let used = 0;
  let reaped = 0;
  for (const p of procs) {
    const key = `${p.pid}:${p.start}`;
    ticks.set(key, p.ticks);
    childTicks.set(key, p.childTicks);
    rssPages += p.rssPages;
    const before = prev?.ticks.get(key);
    used += before === undefined ? p.ticks : Math.max(0, p.ticks - before);
    const childrenBefore = prev?.childTicks.get(key);
    if (childrenBefore !== undefined) reaped += Math.max(0, p.childTicks - childrenBefore);
  }
  let countedOfGone = 0;
  for (const [key, t] of prev?.ticks ?? []) if (!ticks.has(key)) countedOfGone += t;
  used += Math.max(0, reaped - countedOfGone);
  const seconds = prev === undefined ? 0 : (at - prev.at) / 1000;
  const cpu = seconds > 0 ? (used / CLOCK_TICKS / seconds) * 100 : undefined;
  return { sample: { at, ticks, childTicks }, cost: { cpu, rssBytes: rssPages * pageSize } };
}

/**
 * A cost in a few characters (`cpu 12% · 143 MB`, `cpu … · 143 MB` before a second sample). Under 1 % reads
 * `<1%`, so a process at rest keeps one text, and an unchanged text draws nothing.
 */
export function formatCost(cost: Cost): string {
  const cpu = cost.cpu === undefined ? '…' : `${cost.cpu < 1 ? '<1' : Math.round(cost.cpu)}%`;
  return `cpu ${cpu} · ${formatBytes(cost.rssBytes)}`;
}

/** Bytes as `143 MB` (whole megabytes under 10 GB), `12.5 GB` beyond. */
export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 10_240 ? `${(mb / 1024).toFixed(1)} GB` : `${Math.round(mb)} MB`;
}
