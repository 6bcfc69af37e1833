/**
 * How an attempt settles when its agent ends, and how its panel is held
 * through an outage (issue 6): the glue between the agent service's attempts
 * and the outage flows of src/io/outage/agent-outages.ts.
 *
 * Vocabulary:
 * - settle: the attempt's current agent ended; unless a hold or an outage
 *   takes it, the attempt is finished (src/io/agents/agent-service.ts).
 * - hold: with an outage watch, an attempt that ends on its own is judged
 *   before its panel is finished: a lost network or model service holds the
 *   panel ("waiting for network") until the shared probe says it is back,
 *   and a fresh agent then starts with the same task in the same panel; a
 *   panel gone idle is checked against the probe the same way.
 * - restart: that fresh agent, at most OUTAGE_RESTARTS_MAX times per panel.
 */
import { messageOf } from '../../core/errors.js';
import type { PanelState } from '../../core/panel/panel-state.js';
import type { Board } from '../../../store/board.js';
import { startAgent, type Attempt, type Job } from './agent-jobs.js';
import { judgeAttempt, OUTAGE_RESTARTS_MAX, waitOutFailure, waitOutSilence, type AgentOutages, type HeldAttempt } from '../outage/agent-outages.js';
import type { RunOutcome } from './runners/runner.js';

/** What settling and holding need of the agent service. */
export interface HoldSteps {
  readonly board: Board;
  /** The clock events and notes are stamped with. */
  readonly now: () => number;
  /** Waits outages out with the agents; undefined, an outage fails the agent like any failure. */
  readonly outages: AgentOutages | undefined;
  /** Stores a long result, finishes the panel, retries or answers; without an outcome the board already finished the panel. */
  finish(job: Job, attempt: Attempt, outcome?: RunOutcome): void;
  /** Writes the attempt's row in a live state. */
  save(job: Job, attempt: Attempt, state: PanelState, now: number): void;
}

/** Settles the attempt when its current agent ends (a later agent in the panel has its own follower). */
export function followAttempt(steps: HoldSteps, job: Job, attempt: Attempt): void {
  const agent = attempt.agent;
  void agent.ended.then((outcome) => {
    if (attempt.agent === agent) settleAttempt(steps, job, attempt, outcome);
  });
}

/**
 * An attempt's agent ended. Held: kept for the wait to decide. Ended on its
 * own with an outage watch: judged first, and held while the panel is still
 * live if it died to an outage (or yielded with `NETWORK: <cmd>`).
 */
function settleAttempt(steps: HoldSteps, job: Job, attempt: Attempt, outcome?: RunOutcome): void {
  if (attempt.settled) return;
  if (attempt.hold && outcome) {
    attempt.endedDuringHold = outcome;
    attempt.hold.abort();
    return;
  }
  if (!outcome || attempt.stopAsked || attempt.hardStopped) return steps.finish(job, attempt, outcome);
  const judged = judgeAttempt(outcome, attempt.agent.result(), steps.now());
  if (judged.kind === 'final') return steps.finish(job, attempt, { ...outcome, summary: judged.summary });
  if (!steps.outages || attempt.restarts >= OUTAGE_RESTARTS_MAX) {
    const why = judged.kind === 'yielded' ? `handed back with NETWORK: ${judged.step}` : judged.classification.detail;
    const more = steps.outages ? ` (restarted ${attempt.restarts} times after outages; not again)` : '';
    return steps.finish(job, attempt, { ...outcome, summary: outcome.summary.includes(why) ? `${outcome.summary}${more}` : `${outcome.summary}: ${why}${more}` });
  }
  const hold = new AbortController();
  attempt.hold = hold;
  const held = heldAttempt(steps, job, attempt, hold);
  void waitOutFailure(steps.outages, held, judged, hold.signal, steps.now).catch((err: unknown) => held.finish({ ...outcome, summary: `${outcome.summary}; ${String(err)}` }));
}

/** A panel gone idle (60 s of silence) is checked against the network probe: a silent cut raises nothing. */
export function checkSilence(steps: HoldSteps, job: Job, attempt: Attempt): void {
  if (!steps.outages || attempt.settled || attempt.hold || attempt.stopAsked) return;
  const hold = new AbortController();
  attempt.hold = hold;
  const held = heldAttempt(steps, job, attempt, hold);
  void waitOutSilence(steps.outages, held, hold.signal, steps.now).catch((err: unknown) => {
    held.note(`the silence could not be checked: ${String(err)}`);
    const ended = held.takeEnded();
    if (ended !== undefined) held.settle(ended);
  });
}

/** What the outage flows may do with an attempt whose panel is held. */
function heldAttempt(steps: HoldSteps, job: Job, attempt: Attempt, hold: AbortController): HeldAttempt {
  const release = (): void => {
    if (attempt.hold === hold) attempt.hold = undefined;
  };
  return {
    panelId: attempt.id,
    label: job.label,
    task: job.task,
    cwd: job.spec.cwd,
    restarts: attempt.restarts,
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
      settleAttempt(steps, job, attempt, outcome);
    },
    finish: (outcome) => {
      release();
      steps.finish(job, attempt, outcome);
    },
    restart: (note) => {
      release();
      restartAttempt(steps, job, attempt, note);
    },
    cancel: (reason) => {
      steps.board.getState().cancel(attempt.id, reason, steps.now(), 'owner');
      release();
    },
    note: (text) => {
      release();
      steps.board.getState().emit(attempt.id, { type: 'note', text }, steps.now());
    },
  };
}

/** Starts a fresh agent with the job's task in the attempt's own panel (after an outage). */
function restartAttempt(steps: HoldSteps, job: Job, attempt: Attempt, note: string): void {
  const now = steps.now();
  attempt.restarts++;
  job.notes.push(`#${attempt.id}: ${note}`);
  steps.board.getState().emit(attempt.id, { type: 'note', text: note }, now);
  try {
    attempt.agent = startAgent(job, steps.board, attempt.id, steps.now);
  } catch (err) {
    steps.finish(job, attempt, { state: 'failed', summary: `the fresh agent could not start: ${messageOf(err)}` });
    return;
  }
  attempt.silenceChecked = false;
  steps.save(job, attempt, 'running', now);
  followAttempt(steps, job, attempt);
}
