/**
 * `tai lane restart NAME`: docs/spec.md's "A lane cut off mid-task" by hand (docs/lanes.md, "`tai lane`"). Where
 * the fresh agent will run (the cockpit the socket finds, else here) is settled first, so a refusal changes
 * nothing; then the edits are saved aside, the worktree reset to its last commit, and the same agent started.
 */
import { LaneError } from '../../io/lanes/lanes.js';
import { restartLaneByHand } from '../../io/lanes/lane-end.js';
import type { StoredLane } from '../../io/lanes/lane-store.js';
import { NO_COCKPIT_HINT, resolveSocket } from '../../io/socket/control-client.js';
import { socketLive } from '../../io/socket/socket-path.js';
import { stateDir, type StateDb } from '../../io/storage/state-db.js';
import { CliOutput, field } from '../output.js';
import { run as spawn, type CliIo } from '../spawn/spawn.js';

/** Restarts the lane's agent; returns the exit code (a LaneError for a refusal). */
export async function restartLaneCli(db: StateDb, lane: StoredLane, socketFlag: string | undefined, io: CliIo, out: CliOutput): Promise<number> {
  const found = resolveSocket(socketFlag, io.env);
  if (found.path === undefined && found.why !== NO_COCKPIT_HINT) throw new LaneError(`${found.why}; nothing was changed`);
  if (found.path !== undefined && !(await socketLive(found.path))) {
    throw new LaneError(`the cockpit at ${found.path} does not answer: nothing was changed (start tai, or pass --socket PATH of one that runs)`);
  }
  const restart = restartLaneByHand(db, lane, stateDir(io.env), Date.now());
  out.warn(
    restart.savedTo === null
      ? `tai: the lane ${lane.name} had no uncommitted edits; a fresh agent starts from ${restart.head.slice(0, 7)}\n`
      : `tai: the lane ${lane.name}'s uncommitted edits (${restart.files.length} file${restart.files.length === 1 ? '' : 's'}) are saved aside: ${restart.savedTo}/changes.patch; the worktree is back at ${restart.head.slice(0, 7)}, where a fresh agent starts\n`,
  );
  db.close();
  const a = lane.agent;
  // The first agent's prompt, if it had one; none is read from stdin either (the restart is of that agent).
  const quiet: CliIo = { ...io, readStdin: async () => undefined };
  const args = [
    '--kind', a.kind, '--label', a.label, ...(a.prompt ? ['--prompt', a.prompt] : []), '--cwd', lane.worktree, '--in-lane', lane.name,
    ...(a.timeout === undefined ? [] : ['--timeout', String(a.timeout)]),
    ...(a.allow ? ['--allow'] : []),
  ];
  if (found.path === undefined) {
    out.warn(`tai: no cockpit runs: the fresh agent runs here, supervised by this command until it ends (Ctrl-C stops it); run tai lane restart inside tai to give it a panel\n`);
    return spawn([...args, '--', ...a.argv], quiet);
  }
  let reply = '';
  const code = await spawn([...args, '--socket', found.path, '--detach', '--json', '--', ...a.argv], { ...quiet, out: (text) => void (reply += text) });
  if (code !== 0) return code;
  const started = JSON.parse(reply) as { id: number; label: string };
  out.warn(`tai: agent #${started.id} (${field(started.label)}) runs in the lane ${lane.name} in the cockpit (${field(found.path)}); when it ends: tai lane diff ${lane.name}\n`);
  out.say(`${started.id}\n`);
  return 0;
}
