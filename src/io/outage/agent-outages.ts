/**
 * The outage side of an agent's attempt (docs/agents.md, "Outages: held, restarted, given up"): the one judgement
 * on an attempt that ended on its own, yielded (`NETWORK: <cmd>`), an outage, or final (a rate limit too). Only a
 * lane (a linked worktree) is reset to its last commit before a restart, never a main checkout, where the user
 * or other agents may be working.
 */
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { classifyEvidence, outageServiceOf, sayFailure, type Classification, type FailureInput, type OutageService } from '../../core/outage/classify.js';
import { messageOf } from '../../core/errors.js';
import { restartLane, yieldedNetworkStep } from './lane-restart.js';
import type { OutageWatch } from './outage-watch.js';
import type { Outage } from './outage-store.js';
import type { RunOutcome } from '../agents/runners/runner.js';
import type { StateDb } from '../storage/state-db.js';

/** An agent is restarted after an outage at most this many times per panel; then its failure stands. */
export const OUTAGE_RESTARTS_MAX = 10;

/** A git query about a cwd may take this long. */
const GIT_QUERY_TIMEOUT_MS = 10_000;

/** What the agent service needs to wait outages out with its agents. */
export interface AgentOutages {
  /** The one watch of this process (holds, waits, the give-up notification). */
  readonly watch: OutageWatch;
  /** The state database a lane restart is logged in. */
  readonly db: StateDb;
  /** The state folder; a lane's edits are saved under its `saved-edits/`. */
  readonly stateDir: string;
  /**
   * Where a held agent's wait is told besides its panel, for a supervisor with none (an in-process `tai spawn`
   * writes it on stderr): the hold and why, the resume or restart, the stop at give-up.
   */
  readonly tell?: (panelId: number, line: string) => void;
}

/** The one verdict on an attempt that ended on its own (no stop was asked for). */
export type Judgement =
  /** Not an outage: finish the panel with this summary (a rate limit says so, with its reset time). */
  | { readonly kind: 'final'; readonly summary: string; readonly classification?: Classification }
  /** A lost network or model service: hold the panel and wait it out. */
  | { readonly kind: 'outage'; readonly classification: Classification; readonly service: OutageService }
  /** The agent handed back with `NETWORK: <cmd>`: wait for the network, then restart it. */
  | { readonly kind: 'yielded'; readonly step: string };

/** Judges an attempt that ended on its own from its outcome and its hand-back. */
export function judgeAttempt(outcome: RunOutcome, result: string, now: number): Judgement {
  const step = yieldedNetworkStep(result);
  if (step !== undefined) return { kind: 'yielded', step };
  if (outcome.state === 'done') return { kind: 'final', summary: outcome.summary };
  const classification = classifyAttempt(outcome, now);
  const service = outageServiceOf(classification);
  if (service !== undefined) return { kind: 'outage', classification, service };
  if (classification.kind === 'rate_limit') return { kind: 'final', summary: rateLimitSummary(outcome.summary, classification), classification };
  return { kind: 'final', summary: outcome.summary, classification };
}

/**
 * Sorts a failed attempt once: the first piece of the runner's evidence the classifier can name decides (the
 * turn's ending error first, protocol errors before stderr); without evidence, the summary.
 */
export function classifyAttempt(outcome: RunOutcome, now: number): Classification {
  const summary: FailureInput = { text: outcome.summary };
  const evidence = outcome.failure !== undefined && outcome.failure.length > 0 ? outcome.failure : [summary];
  return classifyEvidence(evidence, now) ?? { kind: 'other', detail: outcome.summary };
}

/** A rate limit's summary: said as it is, with its reset time when known (docs/spec.md, "Rate limits are not outages"). */
export function rateLimitSummary(summary: string, classification: Classification): string {
  const said = sayFailure(classification, summary === '' ? classification.detail : summary);
  return classification.resetAt === undefined ? said : `${said} (resets at ${new Date(classification.resetAt).toISOString()})`;
}

/** The worktree of a lane when `cwd` is the top of a linked git worktree, else undefined (see the vocabulary). */
export function laneWorktree(cwd: string | undefined): string | undefined {
  if (cwd === undefined) return undefined;
  let lines: string[];
  try {
    lines = execFileSync('git', ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'], {
      cwd,
      encoding: 'utf8',
      timeout: GIT_QUERY_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n');
  } catch {
    return undefined;
  }
  const [top, gitDir, commonDir] = lines;
  if (top === undefined || gitDir === undefined || commonDir === undefined) return undefined;
  const real = (path: string): string => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  const linked = real(gitDir) !== real(resolve(cwd, commonDir));
  return linked && real(top) === real(cwd) ? top : undefined;
}

/**
 * Resets a lane whose agent died to `outage` before its fresh agent starts: edits saved aside, back to its last
 * commit (src/io/outage/lane-restart.ts); returns the line the panel and the result show.
 */
export function resetDiedLane(outages: AgentOutages, lane: { label: string; worktree: string; task: string }, outage: Outage, now: number): string {
  const restart = restartLane(outages.db, {
    lane: lane.label,
    worktree: lane.worktree,
    task: lane.task,
    reason: { kind: 'died' },
    stateDir: outages.stateDir,
    now,
    outageId: outage.id,
    service: outage.service,
  });
  return laneNote(restart.head, restart.savedTo);
}

/** How a lane restart is told in its panel and result. */
export function laneNote(head: string, savedTo: string | null): string {
  return `the lane restarts from its last commit ${head.slice(0, 7)}; ${savedTo === null ? 'it had no uncommitted edits' : `its uncommitted edits were saved aside to ${savedTo}`}`;
}

/** What the outage flows need of the agent service for one panel's attempt. */
export interface HeldAttempt {
  readonly panelId: number;
  readonly label: string;
  readonly task: string;
  readonly cwd: string | undefined;
  /** Fresh agents already started in this panel after outages (a repeat's hold widens). */
  readonly restarts: number;
  /** The agent's hand-back so far. */
  result(): string;
  /** How the agent ended while its panel was held, if it did (taken once). */
  takeEnded(): RunOutcome | undefined;
  /** Judges an ended attempt again, as the service does when an agent ends. */
  settle(outcome: RunOutcome): void;
  /** Finishes the panel now with this outcome (a stop asked for decides its final state). */
  finish(outcome: RunOutcome): void;
  /** Starts a fresh agent with the same task in the same panel; `note` says why. */
  restart(note: string): void;
  /** Asks the panel's agent to stop (cancelled). */
  cancel(reason: string): void;
  /** Writes a note into the panel. */
  note(text: string): void;
}

/**
 * Holds a panel whose agent died to an outage (or yielded with `NETWORK: <cmd>`) until the service is back, then
 * restarts it (a lane reset first); at give-up the panel is cancelled; a stop finishes it.
 */
export async function waitOutFailure(outages: AgentOutages, panel: HeldAttempt, judgement: Exclude<Judgement, { kind: 'final' }>, signal: AbortSignal, now: () => number): Promise<void> {
  const waitedFor = judgement.kind === 'yielded' ? `NETWORK: ${judgement.step}` : judgement.classification.detail;
  const held = told(outages, panel);
  const onHold = (c: Classification): void => outages.tell?.(held.panelId, `held: waiting for the ${c.kind === 'model' ? 'model service' : 'network'} (${c.detail})`);
  try {
    const worktree = laneWorktree(held.cwd);
    if (judgement.kind === 'yielded' && worktree !== undefined) {
      onHold({ kind: 'network', detail: waitedFor });
      const request = { lane: held.label, worktree, task: held.task, reason: { kind: 'yielded', step: judgement.step } as const, stateDir: outages.stateDir };
      const verdict = await outages.watch.onLaneYield(request, held.panelId, held.label, signal);
      if (verdict.kind === 'restarted') {
        held.restart(`the network is back (outage ${verdict.outage.id}) after NETWORK: ${judgement.step}; ${laneNote(verdict.restart.head, verdict.restart.savedTo)}`);
      } else stopped(held, verdict, waitedFor);
      return;
    }
    const classification: Classification =
      judgement.kind === 'yielded' ? { kind: 'network', detail: `handed back with NETWORK: ${judgement.step}` } : judgement.classification;
    // A yield names the network itself; a lost connection is confirmed by the network probe (the watch).
    const hold = { onHold, restarts: held.restarts, ...(judgement.kind === 'yielded' ? { confirmed: true } : {}) };
    const verdict = await outages.watch.onAgentFailure(classification, held.panelId, held.label, signal, hold);
    if (verdict.kind === 'not-outage') return held.finish({ state: 'failed', summary: verdict.classification.detail });
    if (verdict.kind !== 'back') return stopped(held, verdict, waitedFor);
    const lane = worktree === undefined ? '' : `; ${resetDiedLane(outages, { label: held.label, worktree, task: held.task }, verdict.outage, now())}`;
    held.restart(`the ${verdict.outage.service === 'network' ? 'network' : 'model service'} is back (outage ${verdict.outage.id}); a fresh agent starts with the same task${lane}`);
  } catch (err) {
    held.finish({ state: 'failed', summary: `${waitedFor}; waiting the outage out failed: ${messageOf(err)}` });
  }
}

/**
 * An agent silent past the idle limit: the watch confirms a silent cut by the probe and holds the panel. Once
 * back, a live agent carries on; one that ended meanwhile is judged again (restarted if the outage killed it).
 */
export async function waitOutSilence(outages: AgentOutages, panel: HeldAttempt, signal: AbortSignal, now: () => number): Promise<void> {
  const held = told(outages, panel);
  let verdict;
  try {
    // Named where a panel-less supervisor tells it (tai spawn outside a cockpit), as a failure's hold is.
    const onHold = (c: Classification): void => outages.tell?.(held.panelId, `held: waiting for the ${c.kind === 'model' ? 'model service' : 'network'} (${c.detail})`);
    verdict = await outages.watch.onAgentSilent(held.panelId, held.label, signal, onHold);
  } catch (err) {
    held.note(`the silence could not be checked against the network: ${messageOf(err)}`);
    const ended = held.takeEnded();
    if (ended !== undefined) held.settle(ended);
    return;
  }
  const ended = held.takeEnded();
  switch (verdict.kind) {
    case 'not-outage':
    case 'aborted':
      if (ended !== undefined) held.settle(ended);
      return;
    case 'back': {
      const back = verdict.outage.service === 'network' ? 'network' : 'model service';
      if (ended === undefined) return held.note(`the ${back} is back (outage ${verdict.outage.id}); the agent carries on`);
      const judged = judgeAttempt(ended, held.result(), now());
      if (judged.kind === 'final') return held.settle(ended);
      try {
        const worktree = laneWorktree(held.cwd);
        const lane = worktree === undefined ? '' : `; ${resetDiedLane(outages, { label: held.label, worktree, task: held.task }, verdict.outage, now())}`;
        return held.restart(`the ${back} is back (outage ${verdict.outage.id}); a fresh agent starts with the same task${lane}`);
      } catch (err) {
        return held.finish({ ...ended, summary: `${ended.summary}; the lane could not be reset: ${messageOf(err)}` });
      }
    }
    case 'gave-up': {
      const reason = giveUpReason(verdict.outage, 'silent past the idle limit');
      held.cancel(reason);
      if (ended !== undefined) held.finish({ state: 'failed', summary: reason });
      return;
    }
  }
}

/** A held panel whose wait ended without the service back: cancelled at give-up, finished after a stop. */
function stopped(held: HeldAttempt, verdict: { readonly kind: 'gave-up' | 'aborted'; readonly outage: Outage }, waitedFor: string): void {
  if (verdict.kind === 'gave-up') {
    const reason = giveUpReason(verdict.outage, waitedFor);
    held.cancel(reason);
    return held.finish({ state: 'failed', summary: reason });
  }
  held.finish({ state: 'failed', summary: `stopped while waiting for the ${verdict.outage.service === 'network' ? 'network' : 'model service'} (${waitedFor})` });
}

/** Why a held agent was cancelled at give-up. */
function giveUpReason(outage: Outage, waitedFor: string): string {
  return `gave up waiting for the ${outage.service === 'network' ? 'network' : 'model service'} (outage ${outage.id}, ${outage.attempts} probes): ${waitedFor}`;
}

/** The held attempt with its restart, notes and give-up also told where `outages.tell` says (a panel-less supervisor). */
function told(outages: AgentOutages, held: HeldAttempt): HeldAttempt {
  const tell = outages.tell;
  if (tell === undefined) return held;
  return {
    ...held,
    result: () => held.result(),
    takeEnded: () => held.takeEnded(),
    settle: (outcome) => held.settle(outcome),
    finish: (outcome) => held.finish(outcome),
    restart: (note) => {
      tell(held.panelId, `restarted: ${note}`);
      held.restart(note);
    },
    cancel: (reason) => {
      tell(held.panelId, `cancelled: ${reason}`);
      held.cancel(reason);
    },
    note: (text) => {
      tell(held.panelId, text);
      held.note(text);
    },
  };
}
