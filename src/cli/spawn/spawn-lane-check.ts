/**
 * The lane a `tai spawn` names, checked before any cockpit is asked, so that
 * a lane the line cannot have is a bad command line (64 with the usage)
 * inside a cockpit and outside one alike (docs/lanes.md).
 */
import { join } from 'node:path';
import { findLane, LaneError, repoOf } from '../../io/lanes/lanes.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../../io/storage/state-db.js';

/** Why the request's `lane` or `in_lane` cannot be, or undefined when it can. */
export async function laneRequestProblem(request: { readonly lane?: string; readonly in_lane?: string }, cwd: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    // A new lane needs a repository; an existing one must be known by that name.
    if (request.lane !== undefined) await repoOf(cwd);
    if (request.in_lane !== undefined) {
      const db = openStateDb(join(stateDir(env), STATE_DB_FILE));
      try {
        await findLane(db, request.in_lane, cwd);
      } finally {
        db.close();
      }
    }
    return undefined;
  } catch (err) {
    if (err instanceof LaneError) return err.message;
    throw err;
  }
}
