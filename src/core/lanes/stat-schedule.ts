/**
 * When an unwatched live lane's diff stat is taken again (docs/lanes.md, "The panel"; docs/perf-log.md, "Lanes at
 * rest"): each is a git child process, so a lane whose agent and stat stayed quiet waits twice as long each time,
 * up to LANE_STAT_MAX_EVERY_MS; any event or changed stat brings it back. The agent's end takes one anyway.
 */

/** A working lane's diff stat is refreshed this often. */
export const LANE_STAT_EVERY_MS = 5_000;

/** A quiet lane's diff stat is refreshed at least this often. */
export const LANE_STAT_MAX_EVERY_MS = 80_000;

/** The wait before the next stat, after one taken with the lane `quiet` (no event since the previous stat, the same stat) or not. */
export function nextStatEvery(every: number, quiet: boolean): number {
  return quiet ? Math.min(Math.max(every, LANE_STAT_EVERY_MS) * 2, LANE_STAT_MAX_EVERY_MS) : LANE_STAT_EVERY_MS;
}
