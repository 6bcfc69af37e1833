/**
 * The folder `src/cli/lanes/`: `tai lane`, here or on a host. This file: `tai lane list|diff|merge|drop|restart`
 * (docs/lanes.md, "`tai lane`"): the state database's lanes, with or without a cockpit. Exit 0, 1 on a refusal (the
 * message says why and what to do), 64 for a bad command line.
 */
import { join, resolve } from 'node:path';
import { laneAge, diffStatText } from '../../core/lanes/lane-lines.js';
import { messageOf, RequestError } from '../../core/errors.js';
import { GitError } from '../../io/lanes/lane-git.js';
import { findLane, LaneError, repoOf } from '../../io/lanes/lanes.js';
import { laneDiff, laneInfo } from '../../io/lanes/lane-status.js';
import { mergeLane } from '../../io/lanes/lane-merge.js';
import { MERGE_LOCK_WAIT_MS } from '../../io/lanes/merge-lock.js';
import { dropLane } from '../../io/lanes/lane-end.js';
import { LaneStore } from '../../io/lanes/lane-store.js';
import { openStateDb, stateDir, STATE_DB_FILE, type StateDb } from '../../io/storage/state-db.js';
import { readCommandLine, USAGE_EXIT, type CommandLine } from '../command-line.js';
import { CliOutput, field } from '../output.js';
import { processIo, type CliIo } from '../spawn/spawn.js';
import { restartLaneCli } from './lane-restart.js';
import { DROP_KEEP_DAYS, DROP_KEEP_ENV, dropKeepMs } from '../../core/lanes/drop-record.js';
import { undropLane } from '../../io/lane-drops/undrop.js';
import { gcDrops } from '../../io/lane-drops/drop-gc.js';
import { collisionTag, fileList, type CollisionWith } from '../../core/lanes/collisions.js';
import { mergeOrder, BASE } from '../../core/lanes/merge-order.js';
import { collisionsAmong } from '../../io/lane-collide/collide.js';
import { touchedFiles } from '../../io/lane-collide/touched.js';
import { conflictsAmong, conflictsWith, liveLanes } from '../../io/lane-collide/lane-conflicts.js';
import type { StoredLane } from '../../io/lanes/lane-store.js';
import { hostLaneCli } from './lane-host.js';

const USAGE =
  'usage: tai lane list [--json]          (each verb takes -C DIR: the repository to look in; default here)\n' +
  '       tai lane diff NAME\n' +
  '       tai lane merge NAME\n' +
  '       tai lane drop NAME [--force]       (--force saves what the lane held first: tai lane undrop brings it back)\n' +
  '       tai lane undrop NAME [--as NEW]\n' +
  '       tai lane order                     (a merge order with the fewest conflicts)\n' +
  `       tai lane gc [--older-than DAYS]    (removes saved drops older than ${DROP_KEEP_DAYS} days; or ${DROP_KEEP_ENV})\n` +
  '       tai lane restart NAME [--socket PATH]   (the fresh agent runs in the cockpit; with none, here until it ends)\n' +
  'A lane is an agent in its own git worktree on a branch tai/NAME (tai spawn --lane; docs/lanes.md).\n';

const VERBS: readonly string[] = ['list', 'diff', 'merge', 'drop', 'restart', 'undrop', 'order', 'gc'];

/** Verbs that take no lane name. */
const NAMELESS: readonly string[] = ['list', 'order', 'gc'];

const OPTIONS = { force: { type: 'boolean' }, json: { type: 'boolean' }, repo: { type: 'string', short: 'C' }, socket: { type: 'string' }, as: { type: 'string' }, 'older-than': { type: 'string' } } as const;

/** The option values of a `tai lane` line. */
type LaneValues = CommandLine<typeof OPTIONS>['values'];

/** Runs `tai lane ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const [verb, ...rest] = args;
  if (verb === undefined || verb === 'help' || verb === '--help' || verb === '-h') {
    out.say(USAGE);
    return verb === undefined ? USAGE_EXIT : 0;
  }
  const parsed = readCommandLine({ name: `lane ${verb}`, usage: USAGE, options: OPTIONS }, rest, out);
  if (typeof parsed === 'number') return parsed;
  const bad = verbProblem(verb, parsed.positionals, out);
  if (bad !== undefined) return bad;
  const here = resolve(parsed.values.repo ?? '.');
  const db = openStateDb(join(stateDir(io.env), STATE_DB_FILE));
  try {
    return await carryOut(verb, parsed.positionals[0] ?? '', parsed.values, { db, here, io, out });
  } catch (err) {
    if (!(err instanceof LaneError || err instanceof RequestError || err instanceof GitError)) throw err;
    out.warn(`tai lane ${verb}: ${field(messageOf(err))}\n`);
    return 1;
  } finally {
    if (db.open) db.close();
  }
}

/** The exit code after saying what is wrong with the verb or its lane names, if anything is. */
function verbProblem(verb: string, positionals: readonly string[], out: CliOutput): number | undefined {
  if (!VERBS.includes(verb)) {
    out.warn(`tai lane: unknown subcommand '${field(verb)}': it is one of ${VERBS.join(', ')}\n${USAGE}`);
    return USAGE_EXIT;
  }
  if (NAMELESS.includes(verb) ? positionals.length > 0 : positionals[0] === undefined || positionals.length > 1) {
    if (NAMELESS.includes(verb)) {
      out.warn(`tai lane ${field(verb)}: takes no lane name\n${USAGE}`);
      return USAGE_EXIT;
    }
    out.warn(`tai lane ${field(verb)}: give one lane's name\n${USAGE}`);
    return USAGE_EXIT;
  }
  return undefined;
}

/** Where a verb is carried out: the state database, the repository, the terminal. */
interface LaneRun {
  readonly db: StateDb;
  readonly here: string;
  readonly io: CliIo;
  readonly out: CliOutput;
}

/** Carries out a checked verb on the lane `name` ('' for the nameless verbs). */
async function carryOut(verb: string, name: string, values: LaneValues, at: LaneRun): Promise<number> {
  const { db, here, io, out } = at;
  // A lane on another host: its git runs there, through the host's connection (docs/remote.md).
  if (verb === 'diff' || verb === 'merge' || verb === 'drop') {
    const onHost = await findLane(db, name, here);
    if (onHost.host) return await hostLaneCli(verb, db, onHost, values.force === true, io, out);
  }
  switch (verb) {
    case 'list':
      return await list(db, here, values.json === true, out);
    case 'diff':
      return await diff(await findLane(db, name, here), io, out);
    case 'merge':
      return await merge(db, await findLane(db, name, here), out);
    case 'drop':
      return await drop(db, await findLane(db, name, here), values.force === true, out);
    case 'undrop': {
      const back = await undropLane(db, here, name, values.as);
      out.say(
        `the lane ${back.lane.name} is back in ${back.lane.worktree} on ${back.lane.branch} (${back.files} saved path${back.files === 1 ? '' : 's'} restored; ${back.from} removed): ` +
          `tai lane diff ${back.lane.name} shows it\n`,
      );
      return 0;
    }
    case 'order':
      return await order(db, here, out);
    case 'gc':
      return await gc(here, values['older-than'], io, out);
    case 'restart':
      return await restartLaneCli(db, await findLane(db, name, here), values.socket, io, out);
  }
  return USAGE_EXIT; // not reached: the verb was checked
}

/** `tai lane diff`: the lane's changes against its base, as the repository prints them. */
async function diff(lane: StoredLane, io: CliIo, out: CliOutput): Promise<number> {
  const text = await laneDiff(lane, io.outIsTerminal === true);
  // The diff is the repository's own text, printed as it is: colours only on a terminal.
  out.result(text === '' ? `the lane ${lane.name} has no changes against ${lane.base.slice(0, 7)}\n` : text, false);
  return 0;
}

/** `tai lane merge`: commits the lane's edits, merges it into its base branch, then names the lanes that now conflict. */
async function merge(db: StateDb, lane: StoredLane, out: CliOutput): Promise<number> {
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
  if (merged.kind !== 'nothing to merge') await sayConflictsAfter(db, lane, merged.head, out);
  return 0;
}

/** `tai lane drop`: removes the lane's worktree and branch; with --force what it held is saved first. */
async function drop(db: StateDb, lane: StoredLane, force: boolean, out: CliOutput): Promise<number> {
  const dropped = await dropLane(db, lane, force, Date.now());
  out.say(`dropped the lane ${lane.name}: worktree ${dropped.worktree}, branch ${lane.branch} ${dropped.branch}\n`);
  if (dropped.saved) {
    out.warn(
      `tai: what the lane held (its last commit and ${dropped.saved.files} changed, new or ignored path${dropped.saved.files === 1 ? '' : 's'}) is saved as ${dropped.saved.ref}: ` +
        `tai lane undrop ${lane.name} brings it back; tai lane gc removes saved drops after ${DROP_KEEP_DAYS} days\n`,
    );
  }
  return 0;
}

/** `tai lane list`: one line per lane of this repository (every repository outside one). */
async function list(db: StateDb, cwd: string, json: boolean, out: CliOutput): Promise<number> {
  const here = await repoOf(cwd).catch(() => undefined);
  const lanes = new LaneStore(db).list(here?.repo);
  const infos = await Promise.all(lanes.map((lane) => laneInfo(db, lane)));
  const collide = await laneCollisions(lanes);
  if (json) {
    out.json(infos.map((i) => ({ ...i, collisions: collide.get(`${i.lane.repo}\0${i.lane.name}`) ?? [] })));
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
    collisionTag(collide.get(`${i.lane.repo}\0${i.lane.name}`) ?? []) || '-',
  ]);
  const head = ['LANE', 'AGENT', 'BRANCH', 'BASE', 'AHEAD/BEHIND', 'CHANGES', 'EDITS', 'AGE', 'COLLIDES WITH'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => [...(r[c] ?? '')].length)));
  const line = (r: readonly string[]): string => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join('  ').trimEnd();
  out.say(`${[line(head), ...rows.map(line)].join('\n')}\n`);
  return 0;
}

/** `tai lane gc`: removes this repository's saved drops older than the keep time. */
async function gc(here: string, flag: string | undefined, io: CliIo, out: CliOutput): Promise<number> {
  const keep = dropKeepMs(flag, io.env[DROP_KEEP_ENV]);
  if (typeof keep === 'string') {
    out.warn(`tai lane gc: ${keep}\n${USAGE}`);
    return USAGE_EXIT;
  }
  const { top } = await repoOf(here);
  const done = await gcDrops(top, Date.now(), keep);
  const days = `${keep / 86_400_000} day${keep === 86_400_000 ? '' : 's'}`;
  const names = done.removed.map((d) => d.ref).join(', ');
  out.say(
    done.removed.length === 0
      ? `no saved drop in ${top} is older than ${days} (${done.kept.length} kept)\n`
      : `removed ${done.removed.length} saved drop${done.removed.length === 1 ? '' : 's'} older than ${days}: ${names} (${done.kept.length} kept)\n`,
  );
  return 0;
}

/** The collisions of each live lane (keyed by repository and name) with the other live lanes of its repository. */
async function laneCollisions(lanes: readonly StoredLane[]): Promise<Map<string, CollisionWith[]>> {
  const found = new Map<string, CollisionWith[]>();
  const live = liveLanes(lanes);
  for (const repo of new Set(live.map((l) => l.repo))) {
    const mine = live.filter((l) => l.repo === repo);
    const touches = await Promise.all(mine.map(async (l) => ({ name: l.name, files: await touchedFiles(l) })));
    for (const [name, list] of await collisionsAmong(mine, touches)) found.set(`${repo}\0${name}`, list);
  }
  return found;
}

/** After a merge: the other live lanes into the same branch that now conflict with it. */
async function sayConflictsAfter(db: StateDb, merged: StoredLane, head: string, out: CliOutput): Promise<void> {
  const others = liveLanes(new LaneStore(db).list(merged.repo)).filter((l) => l.name !== merged.name && l.baseBranch === merged.baseBranch);
  if (others.length === 0) return;
  const found = await conflictsWith(merged.top, head, others, Date.now());
  if (found.guessed !== null) {
    out.warn(`tai: ${found.guessed}; not checked: tai lane order lists the lanes that change the same lines\n`);
    return;
  }
  if (found.conflicts.length === 0) {
    out.warn(`tai: no other lane conflicts with ${merged.baseBranch} now (${others.map((l) => l.name).join(', ')} checked)\n`);
    return;
  }
  const named = found.conflicts.map((c) => `${c.a} (${fileList(c.files)})`).join(', ');
  out.warn(
    `tai: ${found.conflicts.length === 1 ? 'the lane' : 'the lanes'} ${named} now ${found.conflicts.length === 1 ? 'conflicts' : 'conflict'} with ${merged.baseBranch}: ` +
      `before merging ${found.conflicts.length === 1 ? 'it' : 'each'}, resolve in the lane (cd WORKTREE && git merge ${merged.baseBranch}; tai lane list shows where)\n`,
  );
}

/** `tai lane order`: the merge order of this repository's live lanes with the fewest conflicts (docs/lanes.md, "Merge order"). */
async function order(db: StateDb, here: string, out: CliOutput): Promise<number> {
  const { repo, top } = await repoOf(here);
  const lanes = liveLanes(new LaneStore(db).list(repo));
  if (lanes.length === 0) {
    out.say(`no lanes to merge in ${top}: tai lane list shows the lanes\n`);
    return 0;
  }
  const found = await conflictsAmong(top, lanes, Date.now());
  const proposal = mergeOrder(lanes.map((l) => l.name), found.pairs.map((c) => [c.a, c.b] as const), found.withBase.map((c) => c.a));
  const filesOf = (a: string, b: string): readonly string[] =>
    b === BASE
      ? (found.withBase.find((c) => c.a === a)?.files ?? [])
      : (found.pairs.find((c) => (c.a === a && c.b === b) || (c.a === b && c.b === a))?.files ?? []);
  const conflicted = new Map(proposal.conflicted.map((c) => [c.lane, c.with]));
  const lines = proposal.order.map((name, i) => {
    const lane = lanes.find((l) => l.name === name);
    const against = conflicted.get(name);
    const what = against === undefined ? 'merges clean' : `will conflict with ${against.map((o) => `${o === BASE ? lane?.baseBranch ?? o : o} (${fileList(filesOf(name, o))})`).join(', ')}`;
    return `  ${i + 1}. ${name.padEnd(Math.max(...proposal.order.map((n) => n.length)))}  ${what}`;
  });
  const n = proposal.conflicted.length;
  out.say(
    `merge order for ${lanes.length} lane${lanes.length === 1 ? '' : 's'} in ${top} (${n === 0 ? 'no conflicts' : `${n} conflicted merge${n === 1 ? '' : 's'}${proposal.exact ? ', the fewest possible' : ''}`}):\n` +
      `${lines.join('\n')}\n` +
      (found.guessed === null ? '' : `(${found.guessed})\n`) +
      'the lanes that merge clean go first: no two of them conflict, and no larger such set exists (docs/lanes.md, "Merge order")\n',
  );
  return 0;
}
