/**
 * The folder `src/io/agents/`: starting, supervising and finishing agents:
 * the service (this file), its jobs, holds and results, the registry file,
 * the paced reading of pipes, and `runners/`, one per kind of agent.
 *
 * The AgentService over a board, the runners and the record store (seed 001,
 * sections 5, 6 and 7): spawn opens a panel and starts a runner in it, the
 * board's clock supervises it (wall clock, heartbeat, user, staged stop), and
 * when it ends its result is handed back through the claim check.
 *
 * Its parts: a job and its attempts (src/io/agents/agent-jobs.ts); how an attempt
 * settles and is held through an outage (src/io/agents/agent-holds.ts); what a job
 * answers (src/io/agents/agent-results.ts); the service opened on the state
 * database (src/io/agents/open-agent-service.ts).
 *
 * Vocabulary:
 * - settle: an attempt has ended (its runner ended, or the board finished
 *   the panel itself after a hard stop the agent survived); its final state
 *   comes from the board, which knows whether supervision asked for the stop.
 * - finish: a settled attempt's end made final: a long raw result stored,
 *   the panel finished.
 * - conclude: a finished attempt retries (failed, with retries left) or
 *   answers its job, waking the polls that wait for it.
 * - sweep: on every publish of the board, what no runner reports: a panel
 *   the board finished itself, a hold to store, an idle spell to check.
 */
import type { AgentResult, AgentService, RecordPage, SpawnResult, SteerResult } from '../../core/agents/agent-service.js';
import type { CommandOf } from '../../core/protocol/commands.js';
import { defaultLabel } from '../../core/agents/agent-spawn.js';
import { RequestError, messageOf } from '../../core/errors.js';
import { isLive, type FinalState, type PanelState } from '../../core/panel/panel-state.js';
import type { Board } from '../../../store/board.js';
import { checkSilence, followAttempt, type HoldSteps } from './agent-holds.js';
import { newJob, startAgent, waitForResult, wakeWaiters, type Attempt, type Job, type JobRequest } from './agent-jobs.js';
import type { AgentOutages } from '../outage/agent-outages.js';
import { agentRowOf, claimedOf, finalResult, liveResult, storedResult, type AttemptEnd, type ClaimedResult } from './agent-results.js';
import { storeNow, waitOut, type StoreResultOptions } from './result-store.js';
import { needsRecord, codePoints } from '../../core/agents/claim-check.js';
import { SLOT_RENEW_MS, type AgentSlots } from '../storage/agent-slots.js';
import { newRecordId } from '../storage/records.js';
import { STATE_DB_WAIT_MS } from '../storage/state-db.js';
import { importUnsaved, keepRow } from '../storage/unsaved.js';
import { AgentsStore, currentRun } from '../storage/agents-store.js';
import type { OutageWatch } from '../outage/outage-watch.js';
import type { RecordStore } from '../storage/records.js';
import { DEFAULT_RUNNERS } from './runners/table.js';
import { checkStartable } from './startable.js';
import { runSpecOf, type Runner, type RunningAgent, type RunOutcome, type RunSpec } from './runners/runner.js';
import { workerRunner, type WorkerFn } from './runners/worker.js';
import { laneFailure, NO_LANES, type LaneWatch } from '../lanes/lane-watch.js';
import type { StoredLane } from '../lanes/lane-store.js';

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
  /** Makes and follows lanes (spawn's `lane`, `in_lane`; docs/lanes.md); omitted, a lane spawn is refused. */
  readonly lanes?: LaneWatch;
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
  readonly #board: Board;
  readonly #records: RecordStore;
  readonly #agents: AgentsStore | undefined;
  readonly #now: () => number;
  readonly #runners: Readonly<Record<string, Runner>>;
  readonly #run: string;
  readonly #jobs = new Map<number, Job>();
  readonly #outages: AgentOutages | undefined;
  readonly #lanes: LaneWatch | undefined;
  /** The lane each lane job runs in. */
  readonly #laneOf = new WeakMap<Job, StoredLane>();
  /** What settling and holding an attempt call back into. */
  readonly #steps: HoldSteps;
  readonly #unsubscribe: () => void;
  readonly #slots: AgentSlots | undefined;
  readonly #stateDir: string | undefined;
  readonly #store: StoreResultOptions;
  readonly #upkeep: NodeJS.Timeout | undefined;

  constructor(options: AgentServiceOptions) {
    this.#board = options.board;
    this.#records = options.records;
    this.#agents = options.agents;
    this.#now = options.now ?? Date.now;
    this.#runners = options.runners ?? DEFAULT_RUNNERS;
    this.#run = options.run ?? currentRun();
    this.#outages = options.outages;
    this.#lanes = options.lanes;
    this.#steps = {
      board: this.#board,
      now: this.#now,
      outages: this.#outages,
      finish: (job, attempt, outcome) => this.#finishAttempt(job, attempt, outcome),
      save: (job, attempt, state, now) => this.#save(job, attempt, state, now),
    };
    this.#slots = options.slots;
    this.#stateDir = options.stateDir;
    this.#store = { records: this.#records, stateDir: this.#stateDir, waitMs: options.storeWaitMs ?? STATE_DB_WAIT_MS, now: this.#now };
    // The board may finish a panel itself (an agent that survived its hard stop).
    this.#unsubscribe = this.#board.subscribe(() => this.#sweep());
    // The slots' leases, and what the database refused earlier once it takes writes again.
    if (this.#slots || this.#stateDir !== undefined) {
      this.#upkeep = setInterval(() => this.upkeep(this.#now()), SLOT_RENEW_MS);
      this.#upkeep.unref();
    }
  }

  /** Renews this supervisor's slots and writes kept results and rows into the database; a fault waits for the next round. */
  upkeep(now: number): void {
    try {
      this.#slots?.renew(now);
    } catch {
      // Locked or full now: the lease outlasts several rounds (SLOT_LEASE_MS).
    }
    if (this.#stateDir === undefined || !this.#agents) return;
    try {
      importUnsaved(this.#stateDir, this.#records, this.#agents, now);
    } catch {
      // Still not writable: the files stay for the next round or the next tai process.
    }
  }

  /** Starts an agent of `request.kind`; throws AgentsFullError past the cap, RequestError on a bad request. */
  async spawn(request: CommandOf<'spawn'>, now: number): Promise<SpawnResult> {
    const runner = this.#runners[request.kind];
    if (!runner) {
      throw new RequestError(`unknown kind '${request.kind}': use one of ${Object.keys(this.#runners).join(', ')}`);
    }
    if (request.argv.length === 0) throw new RequestError(`kind '${request.kind}' needs a program to run (-- ARGV...)`);
    checkStartable(request.argv, request.cwd); // a lane's folder is made below; its program is checked first
    const label = request.label ?? defaultLabel(request.kind, request.argv);
    const task = request.prompt ?? request.argv.join(' ');
    if (request.lane === undefined && request.in_lane === undefined) {
      return this.#start(request.kind, runner, runSpecOf(request), { label, task, timeout: request.timeout, retries: request.retries }, now);
    }
    // A lane: its worktree is made first and the agent runs there; one that then does not start leaves no lane behind.
    if (!this.#lanes) throw new RequestError(NO_LANES);
    const prepared = await this.#lanes.prepare(request, label, task, now).catch((err: unknown) => {
      throw laneFailure(err);
    });
    try {
      const started = this.#start(request.kind, runner, runSpecOf(prepared.request), { label, task, timeout: request.timeout, retries: request.retries }, now, prepared.lane);
      return { ...started, lane: prepared.lane.name, cwd: prepared.lane.worktree, ...(prepared.notes.length > 0 ? { notes: prepared.notes } : {}) };
    } catch (err) {
      await prepared.undo();
      throw err;
    }
  }

  /** Opens the diff of the focused lane panel `id` in a view pane (prefix + d); RequestError when it is not a lane's. */
  async openLaneDiff(id: number): Promise<number> {
    if (!this.#lanes) throw new RequestError(NO_LANES);
    return this.#lanes.openDiff(id, process.cwd());
  }

  /** Closes a lane's diff view (`q`); false when `id` is not one. */
  closeView(id: number): boolean {
    return this.#lanes?.closeView(id) ?? false;
  }

  /** Starts an in-process worker (for library users) under the same supervision. */
  spawnWorker(request: WorkerRequest, fn: WorkerFn, now: number): SpawnResult {
    const label = request.label ?? 'worker';
    return this.#start('worker', workerRunner(fn), { argv: [] }, { label, task: request.task ?? '', timeout: request.timeout, retries: request.retries }, now);
  }

  /** The result so far; with `waitMs`, resolves early when the agent finishes. */
  async poll(id: number, waitMs?: number): Promise<AgentResult | undefined> {
    const job = this.#jobs.get(id);
    if (job && !job.result && waitMs !== undefined && waitMs > 0) await waitForResult(job, waitMs);
    return this.peek(id);
  }

  /** The result so far, at once (poll without waiting, synchronously). */
  peek(id: number): AgentResult | undefined {
    const job = this.#jobs.get(id);
    if (!job) return this.#stored(id);
    return job.result ?? this.#liveView(job);
  }

  /** A page of a stored record. */
  async readRecord(id: string, offset?: number, limit?: number): Promise<RecordPage | undefined> {
    return this.#records.read(id, offset, limit);
  }

  /** The agent's process group (undefined for workers or before it started); for tests and status. */
  pgidOf(id: number): number | undefined {
    const job = this.#jobs.get(id);
    return job?.attempts.find((a) => a.id === id)?.agent.pgid ?? job?.attempts.at(-1)?.agent.pgid;
  }

  /** Stops the job's running attempt hard now (a second Ctrl-C); its stop must have been asked for first. */
  kill(id: number): void {
    const attempt = this.#jobs.get(id)?.attempts.at(-1);
    if (!attempt || attempt.settled) return;
    attempt.hardStopped = true;
    attempt.agent.hard('killed by the user');
  }

  /**
   * A follow-up message to the agent running for `id` (steering): the
   * runner sends it now or queues it for the agent's next turn; the panel
   * notes it. Refused for an unknown or finished agent and for kinds that
   * take no messages.
   */
  steer(id: number, text: string): SteerResult {
    const job = this.#jobs.get(id);
    const attempt = job?.attempts.at(-1);
    if (!job || !attempt) throw new RequestError(`no such agent: ${id}`);
    if (attempt.settled) throw new RequestError(`agent ${id} is not running (${attempt.state ?? 'finished'})`);
    if (!attempt.agent.steer) {
      throw new RequestError(`agent ${id} takes no messages (kind ${job.kind}${job.kind === 'command' ? ': start it with --stdin' : job.kind === 'claude' ? ': start it with --input-format stream-json' : ''})`);
    }
    let delivery: SteerResult['delivery'];
    try {
      delivery = attempt.agent.steer(text);
    } catch (err) {
      throw new RequestError(`agent ${id} cannot take a message: ${messageOf(err)}`);
    }
    if (delivery === 'sent') this.#board.getState().emit(attempt.id, { type: 'note', text: `you: ${text}` }, this.#now());
    return { id: attempt.id, delivery };
  }

  /** The id of the attempt now running for the job that `id` belongs to. */
  currentAttempt(id: number): number | undefined {
    return this.#jobs.get(id)?.attempts.at(-1)?.id;
  }

  /** The outage watch this service waits outages out with, if any (the cockpit arms its wake-up). */
  get watch(): OutageWatch | undefined {
    return this.#outages?.watch;
  }

  /** Stops listening to the board and ends every outage wait (their panels finish as stopped). */
  dispose(): void {
    this.#unsubscribe();
    clearInterval(this.#upkeep);
    this.#lanes?.dispose();
    for (const job of new Set(this.#jobs.values())) for (const attempt of job.attempts) attempt.hold?.abort();
  }

  #start(kind: string, runner: Runner, spec: RunSpec, request: JobRequest, now: number, lane?: StoredLane): SpawnResult {
    const job = newJob(kind, runner, spec, request, now);
    if (lane) this.#laneOf.set(job, lane);
    const id = this.#attempt(job, now);
    const view = this.#board.getState().panels.find((p) => p.id === id);
    return {
      id,
      label: view?.label ?? job.label,
      shown: view?.shown ?? false,
      ...(view?.reason === undefined ? {} : { reason: view.reason }),
    };
  }

  /** Opens a panel and starts one attempt in it; throws AgentsFullError from the board. */
  #attempt(job: Job, now: number): number {
    const n = job.attempts.length + 1;
    const label = n === 1 ? job.label : `${job.label} (attempt ${n})`;
    const board = this.#board.getState();
    // The machine's cap first (every tai process of this user counts the same slots), then the board's own.
    const slot = this.#slots?.claim(label, now);
    let id: number;
    try {
      id = board.open({ label, task: job.task, timeoutMs: job.timeoutMs }, now);
    } catch (err) {
      this.#release(slot);
      throw err;
    }
    let agent: RunningAgent;
    try {
      agent = startAgent(job, this.#board, id, this.#now);
    } catch (err) {
      // A request the runner refused leaves no panel behind (a failed one would hold a place for ORCH_LINGER).
      this.#release(slot);
      board.finish(id, 'failed', messageOf(err), now);
      board.close(id, now);
      throw err instanceof RequestError ? err : new RequestError(`cannot start ${job.label}: ${messageOf(err)}`);
    }
    const attempt: Attempt = { id, agent, settled: false, hardStopped: false, stopAsked: false, silenceChecked: false, restarts: 0, stored: 'running', ...(slot === undefined ? {} : { slot }) };
    job.attempts.push(attempt);
    this.#jobs.set(id, job);
    // The hooks reach whichever agent runs in the panel now, and end an outage wait.
    board.setCancel(
      id,
      (reason) => {
        attempt.stopAsked = true;
        attempt.hold?.abort();
        attempt.agent.soft(reason);
      },
      (reason) => {
        attempt.hardStopped = true;
        attempt.hold?.abort();
        attempt.agent.hard(reason);
      },
    );
    this.#save(job, attempt, 'running', now);
    const lane = this.#laneOf.get(job);
    if (lane) this.#lanes?.follow(id, lane, () => attempt.agent.pgid);
    followAttempt(this.#steps, job, attempt);
    return id;
  }

  /**
   * An attempt ended: store a long result, finish its panel, retry or answer.
   * Without an outcome the board has already finished the panel itself.
   */
  #finishAttempt(job: Job, attempt: Attempt, outcome?: RunOutcome): void {
    if (attempt.settled) return;
    attempt.settled = true;
    const raw = attempt.agent.result();
    if (!needsRecord(raw)) return this.#finishClaimed(job, attempt, outcome, claimedOf(raw, undefined));
    // Write before the reference can be handed out (the footer shows it only after the next flush).
    const id = newRecordId(this.#now());
    const first = storeNow(this.#store, raw, job.label, id);
    if (first !== 'locked') return this.#finishClaimed(job, attempt, outcome, claimedOf(raw, first));
    // Locked by another process: wait it out without blocking the loop; the panel stays live and says why.
    const since = this.#now();
    this.#board.getState().emit(attempt.id, { type: 'note', text: `the state database is locked; the result (${codePoints(raw)} characters) is stored as soon as it is free (waiting up to ${Math.round(this.#store.waitMs / 1000)} s)` }, since);
    void waitOut(this.#store, raw, job.label, id, since).then((place) => this.#finishClaimed(job, attempt, outcome, claimedOf(raw, place)));
  }

  /** A settled attempt's result is in its place: finish the panel, give back the slot, retry or answer. */
  #finishClaimed(job: Job, attempt: Attempt, outcome: RunOutcome | undefined, claimed: ClaimedResult): void {
    const now = this.#now();
    // The footer and the reason are one line, whatever the agent's message held (Gemini's 429 has two).
    const summary = `${(outcome?.summary ?? 'stopped').replace(/\s*[\r\n]+\s*/g, ' ')}${claimed.suffix}`;
    if (this.#laneOf.has(job)) this.#lanes?.ending(attempt.id);
    const final = outcome
      ? (this.#board.getState().finish(attempt.id, outcome.state, summary, now) ?? this.#rowState(attempt.id, now) ?? outcome.state)
      : (this.#rowState(attempt.id, now) ?? 'cancelled');
    attempt.agent.finished?.(final);
    this.#release(attempt.slot);
    attempt.slot = undefined;
    this.#conclude(job, attempt, final, claimed, now);
  }

  /** Gives a slot back; a failed delete is retried by the upkeep, or reclaimed once this process is gone. */
  #release(slot: number | undefined): void {
    if (slot === undefined) return;
    try {
      this.#slots?.release(slot);
    } catch {
      // See above: the slot is no longer held here, and renew deletes it.
    }
  }

  #conclude(job: Job, attempt: Attempt, final: FinalState, claimed: ClaimedResult, now: number): void {
    const reason = this.#reasonOf(attempt.id, now);
    const { chars, recordId } = claimed;
    attempt.state = final;
    attempt.summary = reason;
    if (final === 'failed' && job.retriesLeft > 0) {
      job.retriesLeft--;
      job.notes.push(`attempt ${job.attempts.length} (#${attempt.id}): failed: ${reason}`);
      try {
        this.#attempt(job, now);
        this.#save(job, attempt, final, now, { reason, chars, recordId, text: '' });
        return;
      } catch (err) {
        job.notes.push(`attempt ${job.attempts.length + 1}: refused: ${messageOf(err)}`);
      }
    } else if (job.attempts.length > 1) {
      job.notes.push(`attempt ${job.attempts.length} (#${attempt.id}): ${final}${reason ? `: ${reason}` : ''}`);
    }
    const result = finalResult(job.attempts[0]?.id ?? attempt.id, final, claimed, reason, job.notes);
    job.result = result;
    for (const attemptOf of job.attempts) this.#save(job, attemptOf, attemptOf.state ?? final, now, { reason: attemptOf.summary ?? reason, chars, recordId, text: attemptOf === attempt ? result.text : '' });
    wakeWaiters(job);
  }

  /** After a hard stop, the board may finish a panel whose agent never ended. */
  #sweep(): void {
    const panels = this.#outages ? this.#board.getState().panels : [];
    for (const job of new Set(this.#jobs.values())) {
      const attempt = job.attempts.at(-1);
      if (!attempt || attempt.settled) continue;
      if (attempt.hardStopped) {
        if (this.#rowState(attempt.id, this.#now()) !== undefined) {
          attempt.hold?.abort();
          attempt.hold = undefined;
          this.#finishAttempt(job, attempt);
        }
        continue;
      }
      const state = panels.find((p) => p.id === attempt.id)?.state;
      if ((state === 'waiting' || state === 'running') && attempt.stored !== state) {
        attempt.stored = state;
        this.#save(job, attempt, state, this.#now());
      }
      if (state === 'running') attempt.silenceChecked = false;
      else if (state === 'idle' && !attempt.silenceChecked && !attempt.hold) {
        attempt.silenceChecked = true;
        // Not inside the board's publish: the check may hold the panel, which publishes.
        queueMicrotask(() => checkSilence(this.#steps, job, attempt));
      }
    }
  }

  #rowState(id: number, now: number): FinalState | undefined {
    const row = this.#board.getState().status(now).agents.find((r) => r.id === id);
    return row && !isLive(row.state) ? (row.state as FinalState) : undefined;
  }

  #reasonOf(id: number, now: number): string {
    return this.#board.getState().status(now).agents.find((r) => r.id === id)?.reason ?? '';
  }

  #liveView(job: Job): AgentResult {
    const attempt = job.attempts.at(-1);
    const row = attempt ? this.#board.getState().status(this.#now()).agents.find((r) => r.id === attempt.id) : undefined;
    return liveResult(job.attempts[0]?.id ?? 0, row, attempt?.agent.result() ?? '');
  }

  #stored(id: number): AgentResult | undefined {
    const row = this.#agents?.get(this.#run, id);
    return row ? storedResult(id, row) : undefined;
  }

  #save(job: Job, attempt: Attempt, state: PanelState, now: number, end?: AttemptEnd): void {
    if (!this.#agents) return;
    const row = this.#board.getState().status(now).agents.find((r) => r.id === attempt.id);
    const stored = agentRowOf(this.#run, job, attempt.id, state, now, row, end);
    try {
      this.#agents.save(stored);
    } catch {
      // A live row is for status after a restart; supervision goes on without it. A final
      // row is kept in a file and written by the upkeep or the next tai process (src/io/storage/unsaved.ts).
      if (end === undefined || isLive(state) || this.#stateDir === undefined) return;
      try {
        keepRow(this.#stateDir, stored);
      } catch {
        // Nowhere to keep it: the row reads as its supervisor's end (cancelled) later.
      }
    }
  }
}
