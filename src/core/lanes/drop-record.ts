/**
 * A saved drop (docs/lanes.md, "Undoing a drop"): a commit under `refs/tai/drops/NAME/<time>` whose message carries
 * the lane's row (all `tai lane undrop` needs) and whose committer date is the drop's time (what `tai lane gc`
 * ages). Pure: names, message and ages.
 */

/** Every saved drop lives under this ref prefix. */
export const DROPS_REF = 'refs/tai/drops';

/** Saved drops older than this are removed by `tai lane gc`, unless told otherwise. */
export const DROP_KEEP_DAYS = 7;

/** The environment variable that sets the days `tai lane gc` keeps drops (the flag `--older-than DAYS` wins). */
export const DROP_KEEP_ENV = 'TAI_LANE_DROP_DAYS';

const DAY_MS = 86_400_000;

/** The lane as it was, enough to make it again. */
export interface DroppedLane {
  readonly name: string;
  readonly branch: string;
  readonly base: string;
  readonly baseBranch: string;
  readonly task: string;
  readonly agent: unknown;
  readonly createdAt: number;
  /** The lane's last commit (the drop commit's parent). */
  readonly head: string;
  /** Paths the worktree had that its last commit lacks or differs in, counted (what the drop kept). */
  readonly files: number;
  readonly droppedAt: number;
}

/** `refs/tai/drops/NAME/20261204T194409.123Z`: sortable, one per drop. */
export function dropRef(name: string, at: number): string {
  return `${DROPS_REF}/${name}/${new Date(at).toISOString().replace(/[-:]/g, '')}`;
}

/** The lane name of a drop ref, or undefined for another ref. */
export function dropNameOf(ref: string): string | undefined {
  const m = new RegExp(`^${DROPS_REF}/([^/]+)/[^/]+$`).exec(ref);
  return m?.[1];
}

const FIRST_LINE = 'tai lane drop';

/** The drop commit's message: a line for people, then the lane as JSON. */
export function dropMessage(lane: DroppedLane): string {
  return `${FIRST_LINE} ${lane.name}\n\n${JSON.stringify(lane)}\n`;
}

/** Reads a drop commit's message; undefined when it is not one. */
export function parseDropMessage(message: string): DroppedLane | undefined {
  if (!message.startsWith(FIRST_LINE)) return undefined;
  const json = message.slice(message.indexOf('\n\n') + 2).trim();
  try {
    const lane = JSON.parse(json) as Partial<DroppedLane>;
    if (typeof lane.name !== 'string' || typeof lane.head !== 'string' || typeof lane.base !== 'string' || typeof lane.baseBranch !== 'string') return undefined;
    return { task: '', agent: {}, createdAt: 0, files: 0, droppedAt: 0, branch: `tai/${lane.name}`, ...lane } as DroppedLane;
  } catch {
    return undefined;
  }
}

/** A saved drop as `git for-each-ref` lists it. */
export interface SavedDrop {
  readonly ref: string;
  readonly name: string;
  /** The committer date, ms since the epoch. */
  readonly at: number;
}

/** Reads `git for-each-ref --format='%(refname) %(committerdate:unix)' refs/tai/drops/`, newest first. */
export function parseDropRefs(output: string): SavedDrop[] {
  const drops: SavedDrop[] = [];
  for (const line of output.split('\n')) {
    const [ref, unix] = line.trim().split(' ');
    const name = ref === undefined ? undefined : dropNameOf(ref);
    if (ref === undefined || name === undefined || unix === undefined) continue;
    drops.push({ ref, name, at: Number(unix) * 1000 });
  }
  return drops.sort((a, b) => b.at - a.at || (a.ref < b.ref ? 1 : -1));
}

/** The drops `tai lane gc` removes at `now`: those saved more than `keepMs` ago. */
export function expiredDrops(drops: readonly SavedDrop[], now: number, keepMs: number): SavedDrop[] {
  return drops.filter((d) => now - d.at > keepMs);
}

/** How long gc keeps drops: the flag's days, else the environment's, else a week; an error message for a bad value. */
export function dropKeepMs(flag: string | undefined, env: string | undefined): number | string {
  const [value, from] = flag !== undefined ? [flag, '--older-than'] : env !== undefined && env !== '' ? [env, DROP_KEEP_ENV] : [undefined, ''];
  if (value === undefined) return DROP_KEEP_DAYS * DAY_MS;
  const days = Number(value);
  if (!Number.isFinite(days) || days < 0 || value.trim() === '') return `${from} takes a number of days (0 or more, fractions allowed), not '${value}'`;
  return days * DAY_MS;
}

