/**
 * `tai lane diff|merge|drop NAME` of a lane on another host (docs/remote.md,
 * "Lanes on a host"): the same words as a local lane's, its git run on the
 * host through its shared connection (src/io/remote/remote-lanes.ts).
 */
import type { StoredLane } from '../../io/lanes/lane-store.js';
import { hostLaneDiff, hostLaneDrop, hostLaneMerge } from '../../io/remote/remote-lanes.js';
import type { StateDb } from '../../io/storage/state-db.js';
import type { CliIo } from '../cli-io.js';
import { field, type CliOutput } from '../output.js';

/** Runs one verb on the host's lane; exit 0, or a LaneError for lane.ts to say. */
export async function hostLaneCli(verb: 'diff' | 'merge' | 'drop', db: StateDb, lane: StoredLane, force: boolean, io: CliIo, out: CliOutput): Promise<number> {
  const host = lane.host ?? '';
  switch (verb) {
    case 'diff': {
      const text = await hostLaneDiff(lane, io.env);
      out.result(text === '' ? `the lane ${lane.name} on ${host} has no changes against ${lane.base.slice(0, 7)}\n` : text, false);
      return 0;
    }
    case 'merge': {
      const merged = await hostLaneMerge(db, lane, Date.now(), io.env);
      if (merged.committed) out.warn(`tai: committed the lane's uncommitted edits on ${host} as ${merged.committed.slice(0, 7)} (${field(lane.task || lane.name)})\n`);
      out.say(`merged the lane ${lane.name} into ${lane.baseBranch} on ${host} (now ${merged.head.slice(0, 7)}); drop it with: tai lane drop ${lane.name}\n`);
      return 0;
    }
    case 'drop':
      await hostLaneDrop(db, lane, force, io.env);
      out.say(`dropped the lane ${lane.name} on ${host}: worktree ${lane.worktree}, branch ${lane.branch}\n`);
      return 0;
  }
}
