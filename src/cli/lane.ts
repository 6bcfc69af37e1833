/**
 * `tai lane list|diff|merge|drop|restart` (docs/lanes.md): the lanes of the
 * state database, with or without a cockpit. `list` shows every lane of the
 * repository here (all lanes outside one); `diff NAME` prints the lane's
 * changes against its base (coloured on a terminal, plain on a pipe);
 * `merge NAME` commits its uncommitted edits and merges it into the branch
 * it was made from; `drop NAME [--force]` removes it; `restart NAME` saves
 * its edits aside and starts a fresh agent from its last commit. Exit 0 on
 * success, 1 on a refusal (the message says why and what to do), 64 for a
 * bad command line.
 */
import { join, resolve } from 'node:path';
import { laneAge, diffStatText } from '../core/lanes/lane-lines.js';
import { messageOf, RequestError } from '../core/errors.js';
import { GitError } from '../io/lanes/lane-git.js';
import { findLane, LaneError, repoOf } from '../io/lanes/lanes.js';
import { laneDiff, laneInfo } from '../io/lanes/lane-status.js';
import { mergeLane } from '../io/lanes/lane-merge.js';
import { MERGE_LOCK_WAIT_MS } from '../io/lanes/merge-lock.js';
import { dropLane } from '../io/lanes/lane-end.js';
import { LaneStore } from '../io/lanes/lane-store.js';
import { openStateDb, stateDir, STATE_DB_FILE, type StateDb } from '../io/storage/state-db.js';
import { readCommandLine, USAGE_EXIT } from './command-line.js';
import { CliOutput, field } from './output.js';
import { processIo, type CliIo } from './spawn.js';
import { restartLaneCli } from './lane-restart.js';
import { hostLaneCli } from './lane-host.js';

const USAGE =
  'usage: tai lane list [--json]          (each verb takes -C DIR: the repository to look in; default here)\n' +
  '       tai lane diff NAME\n' +
  '       tai lane merge NAME\n' +
  '       tai lane drop NAME [--force]\n' +
  '       tai lane restart NAME [--socket PATH]   (the fresh agent runs in the cockpit; with none, here until it ends)\n' +
  'A lane is an agent in its own git worktree on a branch tai/NAME (tai spawn --lane; docs/lanes.md).\n';

const VERBS: readonly string[] = ['list', 'diff', 'merge', 'drop', 'restart'];

/** Runs `tai lane ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const [verb, ...rest] = args;
  if (verb === undefined || verb === 'help' || verb === '--help' || verb === '-h') {
    out.say(USAGE);
    return verb === undefined ? USAGE_EXIT : 0;
  }
  const parsed = readCommandLine({ name: `lane ${verb}`, usage: USAGE, options: { force: { type: 'boolean' }, json: { type: 'boolean' }, repo: { type: 'string', short: 'C' }, socket: { type: 'string' } } }, rest, out);
  if (typeof parsed === 'number') return parsed;
  const name = parsed.positionals[0];
  if (!VERBS.includes(verb)) {
    out.warn(`tai lane: unknown subcommand '${field(verb)}': it is one of ${VERBS.join(', ')}\n${USAGE}`);
    return USAGE_EXIT;
  }
  if (verb !== 'list' && (name === undefined || parsed.positionals.length > 1)) {
    out.warn(`tai lane ${field(verb)}: give one lane's name\n${USAGE}`);
    return USAGE_EXIT;
  }
  const here = resolve(parsed.values.repo ?? '.');
  const db = openStateDb(join(stateDir(io.env), STATE_DB_FILE));
  try {
    // A lane on another host: its git runs there, through the host's connection (docs/remote.md).
    if (verb === 'diff' || verb === 'merge' || verb === 'drop') {
      const onHost = await findLane(db, name ?? '', here);
      if (onHost.host) return await hostLaneCli(verb, db, onHost, parsed.values.force === true, io, out);
    }
    switch (verb) {
      case 'list':
        return await list(db, here, parsed.values.json === true, out);
      case 'diff': {
        const lane = await findLane(db, name ?? '', here);
        const text = await laneDiff(lane, io.outIsTerminal === true);
        // The diff is the repository's own text, printed as it is: colours only on a terminal.
        out.result(text === '' ? `the lane ${lane.name} has no changes against ${lane.base.slice(0, 7)}\n` : text, false);
        return 0;
      }
      case 'merge': {
        const lane = await findLane(db, name ?? '', here);
        const merged = await mergeLane(db, lane, Date.now(), {
          onWait: (holder) =>
            out.warn(`tai: another merge into ${field(lane.baseBranch)} runs${holder === undefined ? '' : ` (process ${holder})`}: waiting for it (up to ${MERGE_LOCK_WAIT_MS / 1000} s)\n`),
        });
        if (merged.committed) out.warn(`tai: committed the lane's uncommitted edits as ${merged.committed.slice(0, 7)} (${field(lane.task || lane.name)})\n`);
        out.say(
          merged.kind === 'nothing to merge'
            ? `the lane ${lane.name} has nothing ${merged.into} does not have\n`
            : `merged the lane ${lane.name} into ${merged.into} (${merged.kind}, now ${merged.head.slice(0, 7)}); drop it with: tai lane drop ${lane.name}\n`,
        );
        return 0;
      }
      case 'drop': {
        const lane = await findLane(db, name ?? '', here);
        const dropped = await dropLane(db, lane, parsed.values.force === true);
        out.say(`dropped the lane ${lane.name}: worktree ${dropped.worktree}, branch ${lane.branch} ${dropped.branch}\n`);
        return 0;
      }
      case 'restart':
        return await restartLaneCli(db, await findLane(db, name ?? '', here), parsed.values.socket, io, out);
    }
    return USAGE_EXIT; // not reached: the verb was checked
  } catch (err) {
    if (!(err instanceof LaneError || err instanceof RequestError || err instanceof GitError)) throw err;
    out.warn(`tai lane ${verb}: ${field(messageOf(err))}\n`);
    return 1;
  } finally {
    if (db.open) db.close();
  }
}

/** `tai lane list`: one line per lane of this repository (every repository outside one). */
async function list(db: StateDb, cwd: string, json: boolean, out: CliOutput): Promise<number> {
  const here = await repoOf(cwd).catch(() => undefined);
  const lanes = new LaneStore(db).list(here?.repo);
  const infos = await Promise.all(lanes.map((lane) => laneInfo(db, lane)));
  if (json) {
    out.json(infos);
    return 0;
  }
  if (infos.length === 0) {
    out.say(`no lanes${here ? ` in ${here.top}` : ''}: tai spawn --lane makes one\n`);
    return 0;
  }
  const now = Date.now();
  const rows = infos.map((i) => [
    i.lane.name,
    i.agent ? `${field(i.agent.label)} ${i.agent.state}` : 'no agent',
    i.lane.branch,
    `${i.lane.baseBranch}@${i.lane.base.slice(0, 7)}`,
    i.missing ? 'worktree gone' : i.aheadBehind ? `+${i.aheadBehind.ahead}/-${i.aheadBehind.behind}` : '?',
    i.stat ? diffStatText(i.stat) : '-',
    i.missing ? '-' : i.uncommitted ? 'uncommitted' : 'clean',
    i.lane.mergedAt === null ? laneAge(now - i.lane.createdAt) : `${laneAge(now - i.lane.createdAt)} merged`,
  ]);
  const head = ['LANE', 'AGENT', 'BRANCH', 'BASE', 'AHEAD/BEHIND', 'CHANGES', 'EDITS', 'AGE'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => [...(r[c] ?? '')].length)));
  const line = (r: readonly string[]): string => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ').trimEnd();
  out.say(`${[line(head), ...rows.map(line)].join('\n')}\n`);
  return 0;
}
