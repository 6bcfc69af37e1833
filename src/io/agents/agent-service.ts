/**
 * The folder `src/io/agents/`: starting, supervising and finishing agents (the service, its jobs, holds and
 * results, `spawn/`, and `runners/`, one per kind). This file: the AgentService over a board, the runners and
 * the record store (docs/spec.md, "Owners and sessions", "Supervision", "Claim check"); an attempt's life and
 * its words (settle, finish, conclude, sweep): docs/agents.md, "An attempt's end".
 */
import type { AgentResult, AgentService, RecordPage, SpawnResult, SteerResult } from '../../core/agents/agent-service.js';
import type { CommandOf } from '../../core/protocol/commands.js';
import { defaultLabel } from '../../core/agents/agent-spawn.js';
import { RequestError, messageOf } from '../../core/errors.js';
import type { Board } from '../../../store/board.js';
import { waitForResult, type Attempt } from './agent-jobs.js';
import type { AgentOutages } from '../outage/agent-outages.js';
import { liveResult, storedResult } from './agent-results.js';
import { hostReady, hostRequest } from '../remote/remote-spawn.js';
import { hostOfWrapper } from '../remote/remote-agent.js';
import { SLOT_RENEW_MS, type AgentSlots } from '../storage/agent-slots.js';
import { STATE_DB_WAIT_MS } from '../storage/state-db.js';
import { freeRoom, importUnsaved, reserveRoom } from '../storage/unsaved.js';
import { currentRun, type AgentsStore } from '../storage/agents-store.js';
import type { OutageWatch } from '../outage/outage-watch.js';
import type { RecordStore } from '../storage/records.js';
import type { TranscriptStore } from '../storage/transcripts.js';
import { AgentTranscripts } from '../transcripts/agent-transcripts.js';
import { RecordIndexer } from './record-indexer.js';
import { DEFAULT_RUNNERS } from './runners/table.js';
import { checkStartable } from './spawn/startable.js';
import { StartTurns } from './spawn/start-turns.js';
import { runSpecOf, type Runner, type RunSpec } from './runners/runner.js';
import { workerRunner, type WorkerFn } from './runners/worker.js';
import { laneFailure, NO_LANES, type LaneWatch } from '../lanes/lane-watch.js';
import { restoreJob, showEnded, startAttempt, startJob, type Opening, type Restoring } from './agent-start.js';
import { LaunchKeeper } from '../restore/launch-keeper.js';
import type { RestoreStore } from '../restore/restore-store.js';
import type { Launch } from '../../core/restore/launch.js';
import { sweep, tell } from './attempt-effects.js';
import { boardRow, type ServiceState } from './service-state.js';
import { watchHolds, type HoldCandidate } from '../host-holds/hold-watch.js';
import { idleCollection } from '../idle-collect.js';
import { holdsDirOf } from '../host-holds/host-holds.js';

/** How to build the service. */
export interface AgentServiceOptions {
  readonly board: Board;
  readonly records: RecordStore;
  /** Where agents' rows go so status survives a restart; omitted, nothing is stored. */
  readonly agents?: AgentsStore;
  /** The clock events and results are stamped with (tests pass their own). */
  readonly now?: () => number;
  /** The runner of each kind; defaults to DEFAULT_RUNNERS. */
  readonly runners?: Readonly<Record<string, Runner>>;
  /** This process's run key for the agents' rows. */
  readonly run?: string;
  /** Waits outages out with the agents; omitted, an outage fails the agent like any failure. */
  readonly outages?: AgentOutages;
  /** The machine-wide agent cap on the state database; omitted, only the board's own cap holds (a board without a database). */
  readonly slots?: AgentSlots;
  /** The state folder, where what the database refuses is kept (src/io/storage/unsaved.ts); omitted, a refused result is handed back whole. */
  readonly stateDir?: string;
  /** How long a result waits in all for a locked database (STATE_DB_WAIT_MS). */
  readonly storeWaitMs?: number;
  /** Where the agents' transcripts go for `tai logs` (src/io/storage/transcripts.ts); omitted, none is kept. */
  readonly transcripts?: TranscriptStore;
  /** Makes and follows lanes (spawn's `lane`, `in_lane`; docs/lanes.md); omitted, a lane spawn is refused. */
  readonly lanes?: LaneWatch;
  /** Where each attempt's launch is kept for a restore (docs/restore.md); omitted, none is kept. */
  readonly launches?: RestoreStore;
}

/** What a library user gives to start an in-process worker. */
export interface WorkerRequest {
  readonly label?: string;
  readonly task?: string;
  /** Wall clock in seconds (FORK_TIMEOUT_MIN..MAX). */
  readonly timeout?: number;
  readonly retries?: number;
}

/** Starts and supervises agents in this process. */
export class LocalAgentService implements AgentService {
  readonly #s: ServiceState;
  readonly #runners: Readonly<Record<string, Runner>>;
  readonly #unsubscribe: () => void;
  /** Stops the upkeep's ride on the board's tick. */
  readonly #offTick: () => void;
  /** When the upkeep last ran, and its retry while unsaved files wait for the database. */
  #upkeptAt: number;
  #retry: NodeJS.Timeout | undefined;
  readonly #indexer: RecordIndexer;
  /** Stops the watch of remote agents' lost links (src/io/host-holds/hold-watch.ts). */
  readonly #holds: (() => void) | undefined;
  /** Starts asked for together run a loop turn apart (spawn/start-turns.ts). */
  readonly #turns = new StartTurns();

  constructor(options: AgentServiceOptions) {
    const now = options.now ?? Date.now;
    const run = options.run ?? currentRun();
    const indexer = new RecordIndexer(options.records);
    this.#indexer = indexer;
    const s: ServiceState = {
      board: options.board,
      records: options.records,
      agents: options.agents,
      now,
      run,
      jobs: new Map(),
      concluded: [],
      live: new Set(),
      outages: options.outages,
      lanes: options.lanes,
      laneOf: new WeakMap(),
      slots: options.slots,
      stateDir: options.stateDir,
      transcripts: options.transcripts ? new AgentTranscripts(options.transcripts, run, options.board, now) : undefined,
      store: { records: options.records, stateDir: options.stateDir, waitMs: options.storeWaitMs ?? STATE_DB_WAIT_MS, now, written: () => indexer.poke() },
      startAttempt: (job, at) => startAttempt(s, job, at),
      launches: options.launches ? new LaunchKeeper(options.launches, run, options.board, now) : undefined,
    };
    this.#s = s;
    this.#runners = options.runners ?? DEFAULT_RUNNERS;
    // The board may finish a panel itself (an agent that survived its hard stop).
    this.#unsubscribe = s.board.subscribe(() => sweep(s));
    // A record an earlier process left half indexed is finished now.
    indexer.poke();
    // The slots' leases, and what the database refused earlier once it takes writes again.
    // Room for the final rows on a full disk (src/io/storage/unsaved.ts).
    if (s.stateDir !== undefined && s.agents) reserveRoom(s.stateDir, run);
    // The slots are held only while an agent is live, and the board ticks each second then: the upkeep rides
    // that tick, so a cockpit at rest or with silent agents has no timer of its own waking it.
    this.#upkeptAt = now();
    this.#offTick =
      s.slots || s.stateDir !== undefined
        ? s.board.getState().onTick((at) => {
            if (at - this.#upkeptAt >= SLOT_RENEW_MS) this.upkeep(at);
          })
        : () => {};
    // A remote agent whose link is lost is held as for an outage (docs/remote.md).
    if (s.stateDir !== undefined) this.#holds = watchHolds(s.board, holdsDirOf(s.stateDir), () => holdCandidates(s), now);
  }

  /**
   * Renews this supervisor's slots and writes kept results and rows into the database; a fault waits for the
   * next round (or a timer while unsaved files wait, as the board may have stopped ticking).
   */
  upkeep(now: number): void {
    const s = this.#s;
    this.#upkeptAt = now;
    try {
      s.slots?.renew(now);
    } catch {
      // Locked or full now: the lease outlasts several rounds (SLOT_LEASE_MS).
    }
    if (s.stateDir === undefined || !s.agents) return;
    try {
      importUnsaved(s.stateDir, s.records, s.agents, now);
    } catch {
      // Still not writable: the files stay for the next round or the next tai process.
      if (this.#retry !== undefined) return;
      this.#retry = setTimeout(() => {
        this.#retry = undefined;
        this.upkeep(s.now());
      }, SLOT_RENEW_MS);
      this.#retry.unref();
    }
  }

  /** Starts an agent of `request.kind`; throws AgentsFullError past the cap, RequestError on a bad request. */
  async spawn(asked: CommandOf<'spawn'>, now: number): Promise<SpawnResult> {
    try {
      return await this.#spawn(asked, now);
    } finally {
      // A new quiet spell: the idle collection gives back what the spawn allocated, as it does after output or keys;
      // a cockpit collected once at rest would keep it (docs/performance.md, "Today beside tmux").
      idleCollection.activity();
    }
  }

  async #spawn(asked: CommandOf<'spawn'>, now: number): Promise<SpawnResult> {
    // An agent on another host: the runner starts its local side (docs/remote.md).
    const request = hostRequest(asked);
    const runner = this.#runners[request.kind];
    if (!runner) {
      throw new RequestError(`unknown kind '${request.kind}': use one of ${Object.keys(this.#runners).join(', ')}`);
    }
    if (request.argv.length === 0) throw new RequestError(`kind '${request.kind}' needs a program to run (-- ARGV...)`);
    checkStartable(request.argv, request.cwd); // a lane's folder is made below; its program is checked first
    const label = request.label ?? defaultLabel(request.kind, request.argv);
    const task = request.prompt ?? asked.argv.join(' ');
    const job = { label, agent: request.agent, task, timeout: request.timeout, retries: request.retries, idleCancel: request.idle_cancel };
    // On a host: its shared connection started by this supervisor, and the folder the agent runs in there.
    const far = await hostReady(asked);
    if (request.lane === undefined && request.in_lane === undefined) {
      await this.#turns.take();
      return startJob(this.#s, request.kind, runner, { ...runSpecOf(request), ...far }, job, now);
    }
    // A lane: its worktree is made first and the agent runs there; one that then does not start leaves no lane behind.
    const lanes = this.#s.lanes;
    if (!lanes) throw new RequestError(NO_LANES);
    const prepared = await lanes.prepare(request, label, task, now).catch((err: unknown) => {
      throw laneFailure(err);
    });
    try {
      await this.#turns.take();
      const started = startJob(this.#s, request.kind, runner, runSpecOf(prepared.request), job, now, prepared.lane);
      return { ...started, lane: prepared.lane.name, cwd: prepared.lane.worktree, ...(prepared.notes.length > 0 ? { notes: prepared.notes } : {}) };
    } catch (err) {
      await prepared.undo();
      throw err;
    }
  }

  /**
   * Starts a restored agent (docs/restore.md): `spec` is its stored launch's with `resume`, in a new panel
   * opened with `restoring` and the wall clock it had left; throws as a spawn does.
   */
  restore(launch: Launch, spec: RunSpec, now: number, restoring: Restoring): number {
    const runner = this.#runners[launch.kind];
    if (!runner) throw new RequestError(`unknown kind '${launch.kind}'`);
    const request = { label: launch.label, agent: launch.agent, task: launch.task, timeout: undefined, retries: launch.retriesLeft, idleCancel: launch.idleKillMs === undefined ? undefined : launch.idleKillMs / 1000 };
    return restoreJob(this.#s, launch.kind, runner, spec, request, now, restoring);
  }

  /** A panel for an agent that ended with its cockpit: its transcript, `why(id)`, and its launch kept for `tai restart ID`. */
  showEnded(launch: Launch, why: (id: number) => string, now: number, opening: Opening & { readonly from: string }): number {
    return showEnded(this.#s, launch, why, now, opening);
  }

  /** Opens the diff of the focused lane panel `id` in a view pane (prefix + D); RequestError when it is not a lane's. */
  async openLaneDiff(id: number): Promise<number> {
    if (!this.#s.lanes) throw new RequestError(NO_LANES);
    return this.#s.lanes.openDiff(id, process.cwd());
  }

  /** Closes a lane's diff view (`q`); false when `id` is not one. */
  closeView(id: number): boolean {
    return this.#s.lanes?.closeView(id) ?? false;
  }

  /** Starts an in-process worker (for library users) under the same supervision. */
  spawnWorker(request: WorkerRequest, fn: WorkerFn, now: number): SpawnResult {
    const label = request.label ?? 'worker';
    return startJob(this.#s, 'worker', workerRunner(fn), { argv: [] }, { label, task: request.task ?? '', timeout: request.timeout, retries: request.retries }, now);
  }

  /** The result so far; with `waitMs`, resolves early when the agent finishes. */
  async poll(id: number, waitMs?: number): Promise<AgentResult | undefined> {
    const job = this.#s.jobs.get(id);
    if (job && !job.result && waitMs !== undefined && waitMs > 0) await waitForResult(job, waitMs);
    return this.peek(id);
  }

  /** The result so far, at once (poll without waiting, synchronously). */
  peek(id: number): AgentResult | undefined {
    const s = this.#s;
    const job = s.jobs.get(id);
    if (!job) {
      const row = s.agents?.get(s.run, id);
      return row ? storedResult(id, row) : undefined;
    }
    if (job.result) return job.result;
    const attempt = job.attempts.at(-1);
    return liveResult(job.attempts[0]?.id ?? 0, attempt ? boardRow(s, attempt.id, s.now()) : undefined, attempt?.agent.result() ?? '');
  }

  /** A page of a stored record. */
  async readRecord(id: string, offset?: number, limit?: number): Promise<RecordPage | undefined> {
    return this.#s.records.read(id, offset, limit);
  }

  /** The agent's process group (undefined for workers or before it started); for tests and status. */
  pgidOf(id: number): number | undefined {
    const job = this.#s.jobs.get(id);
    return job?.attempts.find((a) => a.id === id)?.agent.pgid ?? job?.attempts.at(-1)?.agent.pgid;
  }

  /** Stops the job's running attempt hard now (a second Ctrl-C); its stop must have been asked for first. */
  kill(id: number): void {
    const job = this.#s.jobs.get(id);
    const attempt = job?.attempts.at(-1);
    if (!job || !attempt || !isLive(attempt)) return;
    tell(this.#s, job, attempt, { type: 'stop', hard: true, reason: 'killed by the user' });
  }

  /**
   * Steers the agent running for `id`: the runner sends the message now or at its next turn, and the panel
   * notes it. Refused for an unknown or finished agent and for kinds that take no messages.
   */
  steer(id: number, text: string): SteerResult {
    const job = this.#s.jobs.get(id);
    const attempt = job?.attempts.at(-1);
    if (!job || !attempt) throw new RequestError(`no such agent: ${id}`);
    if (!isLive(attempt)) throw new RequestError(`agent ${id} is not running (${attempt.state ?? 'finished'})`);
    if (!attempt.agent.steer) {
      throw new RequestError(`agent ${id} takes no messages (kind ${job.kind}${job.kind === 'command' ? ': start it with --stdin' : job.kind === 'claude' ? ': start it with --input-format stream-json' : ''})`);
    }
    let delivery: SteerResult['delivery'];
    try {
      delivery = attempt.agent.steer(text);
    } catch (err) {
      throw new RequestError(`agent ${id} cannot take a message: ${messageOf(err)}`);
    }
    if (delivery === 'sent') this.#s.board.getState().emit(attempt.id, { type: 'note', text: `you: ${text}` }, this.#s.now());
    return { id: attempt.id, delivery };
  }

  /** How many jobs the service holds (live ones and the newest concluded): bounded whatever the agents ever run; for tests and the soak. */
  get jobsHeld(): number {
    return new Set(this.#s.jobs.values()).size;
  }

  /** The id of the attempt now running for the job that `id` belongs to. */
  currentAttempt(id: number): number | undefined {
    return this.#s.jobs.get(id)?.attempts.at(-1)?.id;
  }

  /** The outage watch this service waits outages out with, if any (the cockpit arms its wake-up). */
  get watch(): OutageWatch | undefined {
    return this.#s.outages?.watch;
  }

  /** Stops listening to the board and ends every outage wait (their panels finish as stopped). */
  dispose(): void {
    this.#unsubscribe();
    this.#offTick();
    clearTimeout(this.#retry);
    this.#indexer.stop();
    this.#holds?.();
    this.#s.lanes?.dispose();
    this.#s.transcripts?.dispose();
    this.#s.launches?.dispose();
    if (this.#s.stateDir !== undefined) freeRoom(this.#s.stateDir, this.#s.run);
    for (const job of new Set(this.#s.jobs.values())) for (const attempt of job.attempts) attempt.hold?.abort();
  }
}

/** True while the attempt's agent runs or its panel is held: neither settled nor finished. */
function isLive(attempt: Attempt): boolean {
  return attempt.life.phase === 'running' || attempt.life.phase === 'held';
}

/** The live attempts, by panel and process group, for the watch of lost links. */
function holdCandidates(s: ServiceState): HoldCandidate[] {
  const found: HoldCandidate[] = [];
  for (const job of s.live) {
    const attempt = job.attempts.at(-1);
    if (attempt === undefined || attempt.life.phase !== 'running') continue;
    found.push({ panel: attempt.id, label: job.label, pgid: attempt.agent.pgid, remote: hostOfWrapper(job.spec.argv) !== undefined });
  }
  return found;
}
