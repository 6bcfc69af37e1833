/**
 * The AgentService over a board, the runners and the record store (seed 001,
 * sections 5, 6 and 7): spawn opens a panel and starts a runner in it, the
 * board's clock supervises it (wall clock, heartbeat, user, staged stop), and
 * when it ends its result is handed back through the claim check.
 *
 * Vocabulary:
 * - job: what one spawn asked for; it has one attempt, or more with
 *   `retries` (opt-in, seed 000: agents are not idempotent, so the caller
 *   decides). Every attempt is a new panel; the job answers to the id of any.
 * - settle: an attempt has ended (its runner ended, or the board finished
 *   the panel itself after a hard stop the agent survived); its final state
 *   comes from the board, which knows whether supervision asked for the stop.
 * - raw result: what the agent produced; stored whole as a record when it is
 *   longer than SPILL_LIMIT, before the record id is handed out.
 * - hold: with an outage watch (issue 6), an attempt that ends on its own is
 *   judged before its panel is finished: a lost network or model service
 *   holds the panel ("waiting for network") until the shared probe says it
 *   is back, and a fresh agent then starts with the same task in the same
 *   panel (src/io/agent-outages.ts); a panel gone idle is checked against the
 *   probe the same way.
 */
import { join } from 'node:path';
import type { AgentResult, AgentService, RecordPage, SpawnResult } from '../core/agent-service.js';
import { CLAIM_HEAD, CLAIM_TAIL, claimCheckView, codePoints, headOf, needsRecord, tailOf } from '../core/claim-check.js';
import type { CommandOf } from '../core/commands.js';
import { RequestError } from '../core/errors.js';
import type { AgentEvent } from '../core/events.js';
import { isLive, type FinalState, type PanelState } from '../core/panel-state.js';
import { FORK_TIMEOUT_DEFAULT, FORK_TIMEOUT_MAX, FORK_TIMEOUT_MIN, SPILL_LIMIT } from '../core/policy.js';
import { maskSecrets } from '../core/secrets.js';
import type { Board } from '../../store/board.js';
import { judgeAttempt, OUTAGE_RESTARTS_MAX, waitOutFailure, waitOutSilence, type AgentOutages, type HeldAttempt } from './agent-outages.js';
import { AgentsStore, currentRun } from './agents-store.js';
import { outageTimeScale, type Outage } from './outage-store.js';
import { createOutageWatch, type OutageWatch } from './outage-watch.js';
import { defaultProbes, type ProbeSource } from './probes.js';
import type { Sleep } from './outage-wait.js';
import { newRecordId, RecordStore } from './records.js';
import { openStateDb, stateDir, STATE_DB_FILE } from './state-db.js';
import { AcpSessionPool } from './runners/acp-pool.js';
import { DEFAULT_RUNNERS, runnersWithSessions } from './runners/table.js';
import { runSpecOf, type Runner, type RunningAgent, type RunOutcome, type RunSpec } from './runners/runner.js';
import { workerRunner, type WorkerFn } from './runners/worker.js';

/** The shell exit code of each final state; 75 (EX_TEMPFAIL) is a refusal at the cap. */
export const EXIT_CODES: Readonly<Record<FinalState, number>> = { done: 0, failed: 1, timeout: 124, cancelled: 130 };
/** `tai spawn` exits with this when the agent cap refused the spawn. */
export const EXIT_REFUSED = 75;
/** At most this many retries may be asked for. */
export const RETRIES_MAX = 5;

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
}

interface Attempt {
  readonly id: number;
  /** The agent now running in the panel (a fresh one after an outage). */
  agent: RunningAgent;
  settled: boolean;
  hardStopped: boolean;
  /** Supervision asked for a stop: the attempt's end is final, never an outage. */
  stopAsked: boolean;
  /** While the panel is held for an outage: aborting it ends the wait. */
  hold?: AbortController;
  /** How the agent ended while its panel was held. */
  endedDuringHold?: RunOutcome;
  /** The current idle spell was already checked against the probe. */
  silenceChecked: boolean;
  /** Fresh agents started in this panel after outages. */
  restarts: number;
  /** The live state last written to the agent's row (so status shows a hold after a restart of the cockpit). */
  stored?: PanelState;
  state?: FinalState;
  summary?: string;
}

interface Job {
  readonly kind: string;
  readonly label: string;
  readonly task: string;
  readonly spec: RunSpec;
  readonly runner: Runner;
  readonly timeoutMs: number;
  readonly startedAt: number;
  retriesLeft: number;
  readonly attempts: Attempt[];
  /** Lines about earlier attempts and refusals, for the result. */
  readonly notes: string[];
  result?: AgentResult;
  readonly waiters: Set<() => void>;
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
  readonly #unsubscribe: () => void;

  constructor(options: AgentServiceOptions) {
    this.#board = options.board;
    this.#records = options.records;
    this.#agents = options.agents;
    this.#now = options.now ?? Date.now;
    this.#runners = options.runners ?? DEFAULT_RUNNERS;
    this.#run = options.run ?? currentRun();
    this.#outages = options.outages;
    // The board may finish a panel itself (an agent that survived its hard stop).
    this.#unsubscribe = this.#board.subscribe(() => this.#sweep());
  }

  /** Starts an agent of `request.kind`; throws AgentsFullError past the cap, RequestError on a bad request. */
  async spawn(request: CommandOf<'spawn'>, now: number): Promise<SpawnResult> {
    const runner = this.#runners[request.kind];
    if (!runner) {
      throw new RequestError(`unknown kind '${request.kind}': use one of ${Object.keys(this.#runners).join(', ')}`);
    }
    if (request.argv.length === 0) throw new RequestError(`kind '${request.kind}' needs a program to run (-- ARGV...)`);
    const spec = runSpecOf(request);
    const label = request.label ?? `${request.kind} ${request.argv[0] ?? ''}`.trim();
    const task = request.prompt ?? request.argv.join(' ');
    return this.#start(request.kind, runner, spec, { label, task, timeout: request.timeout, retries: request.retries }, now);
  }

  /** Starts an in-process worker (for library users) under the same supervision. */
  spawnWorker(request: WorkerRequest, fn: WorkerFn, now: number): SpawnResult {
    const label = request.label ?? 'worker';
    return this.#start('worker', workerRunner(fn), { argv: [] }, { label, task: request.task ?? '', timeout: request.timeout, retries: request.retries }, now);
  }

  /** The result so far; with `waitMs`, resolves early when the agent finishes. */
  async poll(id: number, waitMs?: number): Promise<AgentResult | undefined> {
    const job = this.#jobs.get(id);
    if (job && !job.result && waitMs !== undefined && waitMs > 0) await this.#wait(job, waitMs);
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
    for (const job of new Set(this.#jobs.values())) for (const attempt of job.attempts) attempt.hold?.abort();
  }

  #start(
    kind: string,
    runner: Runner,
    spec: RunSpec,
    request: { label: string; task: string; timeout: number | undefined; retries: number | undefined },
    now: number,
  ): SpawnResult {
    const timeoutMs = wallClock(request.timeout);
    const retries = request.retries ?? 0;
    if (!Number.isInteger(retries) || retries < 0 || retries > RETRIES_MAX) {
      throw new RequestError(`retries must be a whole number from 0 to ${RETRIES_MAX}`);
    }
    const job: Job = {
      kind,
      label: request.label,
      task: request.task,
      spec,
      runner,
      timeoutMs,
      startedAt: now,
      retriesLeft: retries,
      attempts: [],
      notes: [],
      waiters: new Set(),
    };
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
    const id = board.open({ label, task: job.task, timeoutMs: job.timeoutMs }, now);
    let agent: RunningAgent;
    try {
      agent = job.runner(job.spec, (event) => this.#board.getState().emit(id, masked(event), this.#now()));
    } catch (err) {
      board.finish(id, 'failed', err instanceof Error ? err.message : String(err), now);
      throw err;
    }
    const attempt: Attempt = { id, agent, settled: false, hardStopped: false, stopAsked: false, silenceChecked: false, restarts: 0, stored: 'running' };
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
    this.#follow(job, attempt);
    return id;
  }

  /** Settles the attempt when its current agent ends. */
  #follow(job: Job, attempt: Attempt): void {
    const agent = attempt.agent;
    void agent.ended.then((outcome) => {
      if (attempt.agent === agent) this.#settle(job, attempt, outcome);
    });
  }

  /**
   * An attempt's agent ended. Held: kept for the wait to decide. Ended on its
   * own with an outage watch: judged first, and held while the panel is still
   * live if it died to an outage (or yielded with `NETWORK: <cmd>`).
   */
  #settle(job: Job, attempt: Attempt, outcome?: RunOutcome): void {
    if (attempt.settled) return;
    if (attempt.hold && outcome) {
      attempt.endedDuringHold = outcome;
      attempt.hold.abort();
      return;
    }
    if (!outcome || attempt.stopAsked || attempt.hardStopped) return this.#finishAttempt(job, attempt, outcome);
    const judged = judgeAttempt(outcome, attempt.agent.result(), this.#now());
    if (judged.kind === 'final') return this.#finishAttempt(job, attempt, { ...outcome, summary: judged.summary });
    if (!this.#outages || attempt.restarts >= OUTAGE_RESTARTS_MAX) {
      const why = judged.kind === 'yielded' ? `handed back with NETWORK: ${judged.step}` : judged.classification.detail;
      const more = this.#outages ? ` (restarted ${attempt.restarts} times after outages; not again)` : '';
      return this.#finishAttempt(job, attempt, { ...outcome, summary: outcome.summary.includes(why) ? `${outcome.summary}${more}` : `${outcome.summary}: ${why}${more}` });
    }
    const hold = new AbortController();
    attempt.hold = hold;
    const held = this.#held(job, attempt, hold);
    void waitOutFailure(this.#outages, held, judged, hold.signal, this.#now).catch((err: unknown) => held.finish({ ...outcome, summary: `${outcome.summary}; ${String(err)}` }));
  }

  /** What the outage flows may do with an attempt whose panel is held. */
  #held(job: Job, attempt: Attempt, hold: AbortController): HeldAttempt {
    const release = (): void => {
      if (attempt.hold === hold) attempt.hold = undefined;
    };
    return {
      panelId: attempt.id,
      label: job.label,
      task: job.task,
      cwd: job.spec.cwd,
      result: () => attempt.agent.result(),
      takeEnded: () => {
        // Once the wait's verdict is in, a later end settles as usual.
        release();
        const ended = attempt.endedDuringHold;
        attempt.endedDuringHold = undefined;
        return ended;
      },
      settle: (outcome) => {
        release();
        this.#settle(job, attempt, outcome);
      },
      finish: (outcome) => {
        release();
        this.#finishAttempt(job, attempt, outcome);
      },
      restart: (note) => {
        release();
        this.#restart(job, attempt, note);
      },
      cancel: (reason) => {
        this.#board.getState().cancel(attempt.id, reason, this.#now(), 'owner');
        release();
      },
      note: (text) => {
        release();
        this.#board.getState().emit(attempt.id, { type: 'note', text }, this.#now());
      },
    };
  }

  /** Starts a fresh agent with the job's task in the attempt's own panel (after an outage). */
  #restart(job: Job, attempt: Attempt, note: string): void {
    const now = this.#now();
    attempt.restarts++;
    job.notes.push(`#${attempt.id}: ${note}`);
    this.#board.getState().emit(attempt.id, { type: 'note', text: note }, now);
    try {
      attempt.agent = job.runner(job.spec, (event) => this.#board.getState().emit(attempt.id, masked(event), this.#now()));
    } catch (err) {
      this.#finishAttempt(job, attempt, { state: 'failed', summary: `the fresh agent could not start: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    attempt.silenceChecked = false;
    this.#save(job, attempt, 'running', now);
    this.#follow(job, attempt);
  }

  /** A panel gone idle (60 s of silence) is checked against the network probe: a silent cut raises nothing. */
  #checkSilence(job: Job, attempt: Attempt): void {
    if (!this.#outages || attempt.settled || attempt.hold || attempt.stopAsked) return;
    const hold = new AbortController();
    attempt.hold = hold;
    const held = this.#held(job, attempt, hold);
    void waitOutSilence(this.#outages, held, hold.signal, this.#now).catch((err: unknown) => {
      held.note(`the silence could not be checked: ${String(err)}`);
      const ended = held.takeEnded();
      if (ended !== undefined) held.settle(ended);
    });
  }

  /**
   * An attempt ended: store a long result, finish its panel, retry or answer.
   * Without an outcome the board has already finished the panel itself.
   */
  #finishAttempt(job: Job, attempt: Attempt, outcome?: RunOutcome): void {
    if (attempt.settled) return;
    attempt.settled = true;
    const now = this.#now();
    const raw = attempt.agent.result();
    const chars = codePoints(raw);
    const recordId = needsRecord(raw) ? newRecordId(now) : undefined;
    const summary = `${outcome?.summary ?? 'stopped'} · ${chars} chars${recordId ? ` · record ${recordId}` : ''}`;
    // Write before the reference can be handed out (the footer shows it only after the next flush).
    let stored = recordId;
    if (recordId) {
      try {
        this.#records.put(raw, { label: job.label, id: recordId }, now);
      } catch (err) {
        stored = undefined;
        job.notes.push(`the result could not be stored: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const final = outcome
      ? (this.#board.getState().finish(attempt.id, outcome.state, summary, now) ?? this.#rowState(attempt.id, now) ?? outcome.state)
      : (this.#rowState(attempt.id, now) ?? 'cancelled');
    attempt.agent.finished?.(final);
    this.#conclude(job, attempt, final, raw, chars, stored, now);
  }

  #conclude(job: Job, attempt: Attempt, final: FinalState, raw: string, chars: number, recordId: string | undefined, now: number): void {
    const reason = this.#reasonOf(attempt.id, now);
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
        job.notes.push(`attempt ${job.attempts.length + 1}: refused: ${err instanceof Error ? err.message : String(err)}`);
      }
    } else if (job.attempts.length > 1) {
      job.notes.push(`attempt ${job.attempts.length} (#${attempt.id}): ${final}${reason ? `: ${reason}` : ''}`);
    }
    let text = recordId ? claimCheckView(raw, recordId) : needsRecord(raw) ? truncatedView(raw) : raw;
    if (final === 'timeout' || final === 'cancelled') text = `[${final} (${reason}); partial result]\n${text}`;
    if (job.notes.length > 0) text = `${job.notes.join('\n')}\n${text}`;
    job.result = {
      id: job.attempts[0]?.id ?? attempt.id,
      state: final,
      finished: true,
      text,
      chars,
      ...(recordId === undefined ? {} : { recordId }),
      reason,
      exitCode: EXIT_CODES[final],
    };
    for (const attemptOf of job.attempts) this.#save(job, attemptOf, attemptOf.state ?? final, now, { reason: attemptOf.summary ?? reason, chars, recordId, text: attemptOf === attempt ? text : '' });
    for (const wake of job.waiters) wake();
    job.waiters.clear();
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
        queueMicrotask(() => this.#checkSilence(job, attempt));
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
    const now = this.#now();
    const row = attempt ? this.#board.getState().status(now).agents.find((r) => r.id === attempt.id) : undefined;
    const raw = attempt?.agent.result() ?? '';
    const chars = codePoints(raw);
    const text = chars > SPILL_LIMIT ? `[... ${chars - CLAIM_TAIL} earlier characters not shown; poll again when it finishes ...]\n${tailOf(raw, CLAIM_TAIL)}` : raw;
    const state: PanelState = row?.state ?? 'running';
    return { id: job.attempts[0]?.id ?? 0, state, finished: false, text, chars, reason: row?.reason ?? '' };
  }

  #wait(job: Job, waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        job.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      job.waiters.add(done);
    });
  }

  #stored(id: number): AgentResult | undefined {
    const row = this.#agents?.get(this.#run, id);
    if (!row) return undefined;
    return {
      id,
      state: row.state,
      finished: !isLive(row.state),
      text: row.text,
      chars: row.chars,
      ...(row.recordId === null ? {} : { recordId: row.recordId }),
      reason: row.reason,
      ...(row.exitCode === null ? {} : { exitCode: row.exitCode }),
    };
  }

  #save(
    job: Job,
    attempt: Attempt,
    state: PanelState,
    now: number,
    end?: { reason: string; chars: number; recordId: string | undefined; text: string },
  ): void {
    if (!this.#agents) return;
    const row = this.#board.getState().status(now).agents.find((r) => r.id === attempt.id);
    try {
      this.#agents.save({
        run: this.#run,
        id: attempt.id,
        kind: job.kind,
        label: job.label,
        task: job.task,
        state,
        startedAt: job.startedAt,
        finishedAt: end ? now : null,
        reason: end?.reason ?? '',
        recordId: end?.recordId ?? null,
        chars: end?.chars ?? 0,
        exitCode: end && !isLive(state) ? EXIT_CODES[state as FinalState] : null,
        text: end?.text ?? '',
        tools: row?.tools ?? 0,
        tokens: row?.tokens ?? 0,
      });
    } catch {
      // The row is for status after a restart; supervision goes on without it.
    }
  }
}

/** What `openAgentService` may be given instead of its defaults (tests inject the watch, the probes and the clock). */
export interface OpenAgentServiceOptions {
  /** The outage watch; omitted, one is created on the state database with the options below. */
  readonly watch?: OutageWatch;
  /** The probes; defaults to `defaultProbes` (the git remote of the cwd, `TAI_NETWORK_PROBE`, `TAI_MODEL_PROBE`). */
  readonly probes?: ProbeSource;
  /** The outage waits' sleep; defaults to a real timer. */
  readonly sleep?: Sleep;
  /** The lab time scale of an outage this process opens; defaults to `TAI_OUTAGE_TIME_SCALE`. */
  readonly scale?: number;
  /** Writes the give-up bell and OSC 9 to the user's terminal (the cockpit's). */
  readonly terminal?: (bytes: string) => void;
  /** Told whenever a held agent's outage moves on its schedule (an in-process `tai spawn` prints the stage and next probe). */
  readonly onProgress?: (outage: Outage) => void;
  /** Told a held agent's hold, restart and give-up, for a supervisor without panels (AgentOutages.tell). */
  readonly tell?: (panelId: number, line: string) => void;
}

/** An agent service on the user's state database, and how to close it. */
export interface OpenedAgentService {
  readonly service: LocalAgentService;
  readonly records: RecordStore;
  readonly agents: AgentsStore;
  /** The one outage watch of this process: the cockpit arms its standing wake-up (`watch.armWakeUp()`). */
  readonly watch: OutageWatch;
  /** Stops listening to the board, closes the kept ACP sessions and the database (live agents' reapers stop them when this process exits). */
  close(): void;
}

/**
 * Opens the state database (`$XDG_STATE_HOME/tai/tai.db`), marks the rows of
 * agents whose supervisor died, and starts a service on `board`: what the
 * cockpit and an in-process `tai spawn` both need.
 */
export function openAgentService(
  board: Board,
  env: NodeJS.ProcessEnv = process.env,
  now: () => number = Date.now,
  options: OpenAgentServiceOptions = {},
): OpenedAgentService {
  const dir = stateDir(env);
  const db = openStateDb(join(dir, STATE_DB_FILE));
  try {
    const records = new RecordStore(db);
    const agents = new AgentsStore(db);
    agents.settleDead(now());
    const watch =
      options.watch ??
      createOutageWatch({
        db,
        board,
        probes: options.probes ?? defaultProbes({ env }),
        now,
        ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
        scale: options.scale ?? outageTimeScale(env),
        notify: { env, ...(options.terminal === undefined ? {} : { terminal: options.terminal }) },
      });
    const sessions = new AcpSessionPool({ now });
    const service = new LocalAgentService({ board, records, agents, now, runners: runnersWithSessions(sessions), outages: { watch, db, stateDir: dir, ...(options.tell === undefined ? {} : { tell: options.tell }) } });
    return {
      service,
      records,
      agents,
      watch,
      close() {
        service.dispose();
        void sessions.close();
        db.close();
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** The wall clock in ms for a requested timeout in seconds; throws RequestError outside the allowed range. */
export function wallClock(seconds: number | undefined): number {
  if (seconds === undefined) return FORK_TIMEOUT_DEFAULT;
  const ms = seconds * 1000;
  if (!Number.isFinite(ms) || ms < FORK_TIMEOUT_MIN || ms > FORK_TIMEOUT_MAX) {
    throw new RequestError(`timeout must be from ${FORK_TIMEOUT_MIN / 1000} to ${FORK_TIMEOUT_MAX / 1000} seconds (default ${FORK_TIMEOUT_DEFAULT / 1000})`);
  }
  return ms;
}

/** Tool arguments masked before they reach a panel. */
function masked(event: AgentEvent): AgentEvent {
  return event.type === 'tool_start' ? { ...event, args: maskSecrets(event.args) } : event;
}

/** A long result that could not be stored: head and tail with a note (never the whole text). */
function truncatedView(raw: string): string {
  const total = codePoints(raw);
  return `${headOf(raw, CLAIM_HEAD)}\n[... the result (${total} characters) could not be stored; only its head and tail are shown ...]\n${tailOf(raw, CLAIM_TAIL)}`;
}
