/**
 * A cockpit's record and its restore (docs/restore.md, "Restoring"): a named cockpit records its run and claims
 * the newest run of its name that ended without a deliberate end; its main program starts again, and each live
 * agent gets its panel back with its transcript and its session resumed, or a line saying it ended with the cockpit.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../../core/errors.js';
import { parseLaunch, type Launch } from '../../core/restore/launch.js';
import { continueArgv, endedLine, INTERRUPTED_PROMPT, restoreStep, SEAM, spentMs } from '../../core/restore/restore-plan.js';
import { sanitize } from '../../core/text/sanitize.js';
import type { Board } from '../../../store/board.js';
import type { Opening, Restoring } from '../agents/agent-start.js';
import type { RunSpec } from '../agents/runners/runner.js';
import { checkMainProgram, mainArgv } from '../cockpit/main/main-program.js';
import { LaneStore } from '../lanes/lane-store.js';
import { processStart } from '../process-identity.js';
import { currentRun } from '../storage/agents-store.js';
import { openStateDb, stateDir, STATE_DB_FILE, type StateDb } from '../storage/state-db.js';
import { TranscriptStore } from '../storage/transcripts.js';
import { claimCockpit, thisOwner, type Claim } from './cockpit-claim.js';
import { sameness } from './fingerprint.js';
import { RestoreStore, type StoredCockpit, type StoredLaunch } from './restore-store.js';
import { aliveTouch } from './alive-touch.js';
export { restoreWanted } from './stored-cockpits.js';
export { ALIVE_EVERY_MS } from './alive-touch.js';

/** What a restore needs of the agent service (LocalAgentService). */
export interface RestoringService {
  restore(launch: Launch, spec: RunSpec, now: number, restoring: Restoring): number;
  showEnded(launch: Launch, why: (id: number) => string, now: number, opening: Opening & { readonly from: string }): number;
}

/** A cockpit's record while it runs. */
export interface CockpitRecord {
  /** The main program: the restored cockpit's, continued, or the one asked for. */
  readonly argv: readonly string[];
  /** Lines for the main pane at start. */
  readonly notices: readonly string[];
  readonly claim: Claim;
  /** Restores the claimed cockpit's agents, and keeps the last sign of life while `board` has a live agent; `notice` tells the user a line. */
  restoreAgents(service: RestoringService, board: Board, notice: (line: string) => void): void;
  /** The cockpit ended: a `deliberate` end marks it ended, so nothing of it is restored. */
  end(deliberate: boolean): void;
}

/** What a record is made from. */
export interface RecordOptions {
  readonly name: string;
  /** The main program asked for (empty: $SHELL). */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly restore: boolean;
  readonly now: () => number;
}

/** Records this cockpit and claims a restore; undefined (with why in `failed`) when the state database cannot be used. */
export function recordCockpit(o: RecordOptions, failed: (why: string) => void): CockpitRecord | undefined {
  let db: StateDb;
  try {
    db = openStateDb(join(stateDir(o.env), STATE_DB_FILE), { busyTimeoutMs: 1_000 });
  } catch (err) {
    failed(`this cockpit is not recorded, so it cannot be restored after a crash: ${messageOf(err)}`);
    return undefined;
  }
  try {
    const store = new RestoreStore(db);
    const me = thisOwner();
    const run = currentRun();
    const now = o.now();
    const self: StoredCockpit = { run, name: o.name, ...me, pid: process.pid, start: processStart(process.pid) ?? null, argv: mainArgv(o.argv, o.env), cwd: process.cwd(), state: 'running', claimedBy: null, startedAt: now, aliveAt: now, endedAt: null };
    const claim = claimCockpit(store, self, o.restore);
    const notices: string[] = [];
    const argv = claim.kind === 'claimed' ? mainProgram(claim.from, o, notices) : o.argv;
    if (claim.kind === 'claimed') store.addCockpit({ ...self, argv: mainArgv(argv, o.env), cwd: process.cwd() });
    if (claim.kind === 'foreign') notices.push(claim.message);
    if (claim.kind === 'taken') notices.push(`cockpit ${o.name} is being restored by another tai (run ${claim.by}); this one starts afresh`);
    return liveRecord(db, store, run, claim, argv, notices, o.now);
  } catch (err) {
    db.close();
    failed(`this cockpit is not recorded, so it cannot be restored after a crash: ${messageOf(err)}`);
    return undefined;
  }
}

/** The restored cockpit's main program, in its folder: said when either is gone. */
function mainProgram(from: StoredCockpit, o: RecordOptions, notices: string[]): readonly string[] {
  if (existsSync(from.cwd)) process.chdir(from.cwd);
  else notices.push(`the restored cockpit's folder ${from.cwd} no longer exists: its main program starts in ${process.cwd()}`);
  const argv = from.argv.length > 0 ? continueArgv(from.argv) : o.argv;
  try {
    checkMainProgram(argv, o.env);
  } catch (err) {
    notices.push(`the restored cockpit's main program cannot start (${messageOf(err).replace(/^tai: /, '')}): ${o.argv.join(' ') || 'the shell'} runs instead`);
    return o.argv;
  }
  const asked = o.argv.join(' ');
  if (asked !== '' && asked !== from.argv.join(' ')) notices.push(`cockpit ${o.name} is restored with its own main program (${argv.join(' ')}), not ${asked}; tai -s ${o.name} --no-restore starts afresh`);
  return argv;
}

function liveRecord(db: StateDb, store: RestoreStore, run: string, claim: Claim, argv: readonly string[], notices: string[], now: () => number): CockpitRecord {
  const alive = aliveTouch((at) => attempt(() => store.touch(run, at)), now);
  let ended = false;
  return {
    argv,
    notices,
    claim,
    restoreAgents(service, board, notice) {
      if (ended) return;
      alive.follow(board);
      if (claim.kind !== 'claimed') return;
      restoreLaunches(db, claim.from, claim.launches, service, board, notice, now);
      attempt(() => store.setState(claim.from.run, 'restored', now(), ['restoring']));
    },
    end(deliberate) {
      if (ended) return;
      ended = true;
      alive.stop();
      attempt(() => store.touch(run, now()));
      if (deliberate) attempt(() => store.setState(run, 'ended', now(), ['running']));
      db.close();
    },
  };
}

/** Each live agent of `from` back in a panel, resumed or shown ended; one whose launch does not parse is said and left as stored. */
export function restoreLaunches(db: StateDb, from: StoredCockpit, launches: readonly StoredLaunch[], service: RestoringService, board: Board, notice: (line: string) => void, now: () => number): void {
  const store = new RestoreStore(db);
  const transcripts = new TranscriptStore(db);
  const said: string[] = [];
  for (const row of launches) {
    const launch = parseLaunch(row.launch);
    if ('problem' in launch) {
      notice(`agent ${row.id} of cockpit ${from.name} was not restored: ${launch.problem}; its row is kept as it was (tai logs ${from.pid}/${row.id} shows its transcript)`);
      continue;
    }
    said.push(restoreOne(store, transcripts, from, row, launch, service, board, now));
  }
  if (launches.length > 0) notice(`cockpit ${from.name} restored after it ended: ${said.join('; ') || 'no agent'}`);
}

/** One agent restored; returns how, for the notice. */
function restoreOne(store: RestoreStore, transcripts: TranscriptStore, from: StoredCockpit, row: StoredLaunch, launch: Launch, service: RestoringService, board: Board, now: () => number): string {
  const carried = transcriptText(transcripts, row);
  const spent = spentMs(launch, row.startedAt, from.aliveAt);
  const step = restoreStep(launch, spent, sameness(launch.program, true), sameness(launch.dir, false));
  const before = (seam: (id: number) => string) => (id: number) => {
    const b = board.getState();
    if (carried !== '') b.write(id, panelText(carried), now());
    b.write(id, `\r\n\x1b[2m${seam(id)}\x1b[0m\r\n`, now());
    for (const note of step.notes) b.emit(id, { type: 'note', text: note }, now());
  };
  const origin = `${row.run}/${row.id}`;
  // The new transcript (tai logs) starts with the old one and the same seam as the panel.
  const opening = (seam: (id: number) => string) => ({ carried: (id: number) => `${carried}\n${seam(id)}\n`, from: origin, before: before(seam) });
  const ended = (why: string): string => {
    const id = service.showEnded(launch, (n) => endedLine(n, why), now(), opening(() => SEAM));
    return `#${id} ${launch.label} ended with the cockpit (tai restart ${id})`;
  };
  if (step.action === 'ended') return ended(step.why);
  const spec = { ...specOf(launch), prompt: INTERRUPTED_PROMPT, resume: launch.sessionId ?? '' };
  const info = { limitMs: launch.limitMs, spentMs: spent, from: origin, ...(launch.sessionId === undefined ? {} : { sessionId: launch.sessionId }), ...(launch.prompt === undefined ? {} : { prompt: launch.prompt }) };
  const lane = launch.lane === undefined ? undefined : laneOf(store.db, launch);
  try {
    const seam = (id: number): string => `${SEAM} resuming session ${launch.sessionId ?? ''} with ${Math.round(step.remainingMs / 1000)} s of its wall clock left; if it cannot resume, tai restart ${id} starts it afresh`;
    const id = service.restore(launch, spec, now(), { timeoutMs: step.remainingMs, info, ...opening(seam), ...(lane === undefined ? {} : { lane }) });
    return `#${id} ${launch.label} resumed`;
  } catch (err) {
    return ended(`its session ${launch.sessionId ?? ''} could not be resumed (${messageOf(err)})`);
  }
}

/** The launch's spec as it was stored, byte for byte. */
export function specOf(launch: Launch): RunSpec {
  return {
    argv: launch.argv,
    ...(launch.cwd === undefined ? {} : { cwd: launch.cwd }),
    ...(launch.env === undefined ? {} : { env: launch.env }),
    ...(launch.prompt === undefined ? {} : { prompt: launch.prompt }),
    ...(launch.allow === undefined ? {} : { allow: launch.allow }),
    ...(launch.permissions === undefined ? {} : { permissions: launch.permissions }),
    ...(launch.askTimeoutMs === undefined ? {} : { askTimeoutMs: launch.askTimeoutMs }),
    ...(launch.askDefault === undefined ? {} : { askDefault: launch.askDefault }),
    ...(launch.session === undefined ? {} : { session: launch.session }),
    ...(launch.stdin === undefined ? {} : { stdin: launch.stdin }),
  };
}

/** The lane a launch ran in, if it is still stored (its worktree the launch's folder). */
function laneOf(db: StateDb, launch: Launch): ReturnType<LaneStore['list']>[number] | undefined {
  try {
    return new LaneStore(db).list().find((l) => l.name === launch.lane && l.worktree === launch.cwd);
  } catch {
    return undefined;
  }
}

/** The stored transcript of a launch as plain text ('' when none was stored). */
function transcriptText(transcripts: TranscriptStore, row: StoredLaunch): string {
  try {
    const t = transcripts.read(row.run, row.id);
    if (t === undefined) return '';
    const head = t.parts.filter((p) => p.head).map((p) => p.text).join('');
    const tail = t.parts.filter((p) => !p.head).map((p) => p.text).join('');
    return t.cutBytes > 0 ? `${head}\n[${t.cutBytes} bytes cut]\n${tail}` : head + tail;
  } catch {
    return '';
  }
}

/** Plain text for a panel's screen: made safe, lines ended with CRLF. */
function panelText(text: string): string {
  return sanitize(text).replace(/\r?\n/g, '\r\n');
}

function attempt(write: () => unknown): void {
  try {
    write();
  } catch {
    // Locked or full: the next write tries again; a record is for a restore, never for supervision.
  }
}
