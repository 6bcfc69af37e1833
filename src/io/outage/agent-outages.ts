/**
 * The outage side of an agent's attempt (docs/agents.md, "Outages: held, restarted, given up"): the one judgement
 * on an attempt that ended on its own (yielded with `NETWORK: <cmd>`, an outage, or final), and a held panel's wait,
 * which only reports what it saw. Only a lane (a linked worktree) is reset before a restart, never a main checkout.
 */
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { classifyEvidence, outageServiceOf, sayFailure, type Classification, type FailureInput, type OutageService } from '../../core/outage/classify.js';
import { messageOf } from '../../core/errors.js';
import type { LaneReset, SeenOutage, WaitSeen } from '../../core/agents/attempt.js';
import { restartLane, yieldedNetworkStep } from './lane-restart.js';
import type { AgentFailureVerdict, OutageWatch } from './outage-watch.js';
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
 * Resets the lane of an agent that died to `outage` before its fresh agent starts, when its folder is a lane: edits
 * saved aside, back to its last commit (src/io/outage/lane-restart.ts); undefined when it is no lane.
 */
export function resetDiedLane(outages: AgentOutages, panel: WaitingPanel, outage: SeenOutage, now: number): LaneReset | undefined {
  const worktree = laneWorktree(panel.cwd);
  if (worktree === undefined) return undefined;
  const restart = restartLane(outages.db, {
    lane: panel.label,
    worktree,
    task: panel.task,
    reason: { kind: 'died' },
    stateDir: outages.stateDir,
    now,
    outageId: outage.id,
    service: outage.service,
  });
  return { head: restart.head, savedTo: restart.savedTo };
}

/** The panel an outage wait is for. */
export interface WaitingPanel {
  readonly panelId: number;
  readonly label: string;
  readonly task: string;
  readonly cwd: string | undefined;
  /** Fresh agents already started in this panel after outages (a repeat's hold widens). */
  readonly restarts: number;
}

/** What a failure's hold waited for, as its texts name it. */
export function waitedForOf(judgement: Exclude<Judgement, { kind: 'final' }>): string {
  return judgement.kind === 'yielded' ? `NETWORK: ${judgement.step}` : judgement.classification.detail;
}

/**
 * Holds a panel whose agent died to an outage (or yielded with `NETWORK: <cmd>`) until the watch's verdict, and
 * reports what it saw; the attempt's machine decides what follows (src/core/agents/attempt.ts).
 */
export async function waitOutFailure(outages: AgentOutages, panel: WaitingPanel, judgement: Exclude<Judgement, { kind: 'final' }>, signal: AbortSignal): Promise<WaitSeen> {
  const onHold = (c: Classification): void => outages.tell?.(panel.panelId, `held: waiting for the ${c.kind === 'model' ? 'model service' : 'network'} (${c.detail})`);
  try {
    // Only a yield in a lane has the watch reset the lane as it restarts.
    const worktree = judgement.kind === 'yielded' ? laneWorktree(panel.cwd) : undefined;
    if (judgement.kind === 'yielded' && worktree !== undefined) {
      onHold({ kind: 'network', detail: waitedForOf(judgement) });
      const request = { lane: panel.label, worktree, task: panel.task, reason: { kind: 'yielded', step: judgement.step } as const, stateDir: outages.stateDir };
      const verdict = await outages.watch.onLaneYield(request, panel.panelId, panel.label, signal);
      if (verdict.kind !== 'restarted') return { verdict: verdict.kind, outage: seenOf(verdict.outage) };
      return { verdict: 'back', outage: seenOf(verdict.outage), reset: { head: verdict.restart.head, savedTo: verdict.restart.savedTo } };
    }
    const classification: Classification =
      judgement.kind === 'yielded' ? { kind: 'network', detail: `handed back with NETWORK: ${judgement.step}` } : judgement.classification;
    // A yield names the network itself; a lost connection is confirmed by the network probe (the watch).
    const hold = { onHold, restarts: panel.restarts, ...(judgement.kind === 'yielded' ? { confirmed: true } : {}) };
    return seenOfVerdict(await outages.watch.onAgentFailure(classification, panel.panelId, panel.label, signal, hold));
  } catch (err) {
    return { verdict: 'failed', error: messageOf(err) };
  }
}

/** An agent silent past the idle limit: the watch confirms a silent cut by the probe and holds the panel; reports what it saw. */
export async function waitOutSilence(outages: AgentOutages, panel: WaitingPanel, signal: AbortSignal): Promise<WaitSeen> {
  try {
    // Named where a panel-less supervisor tells it (tai spawn outside a cockpit), as a failure's hold is.
    const onHold = (c: Classification): void => outages.tell?.(panel.panelId, `held: waiting for the ${c.kind === 'model' ? 'model service' : 'network'} (${c.detail})`);
    return seenOfVerdict(await outages.watch.onAgentSilent(panel.panelId, panel.label, signal, onHold));
  } catch (err) {
    return { verdict: 'failed', error: messageOf(err) };
  }
}

function seenOfVerdict(verdict: AgentFailureVerdict): WaitSeen {
  return verdict.kind === 'not-outage' ? { verdict: 'not-outage', detail: verdict.classification.detail } : { verdict: verdict.kind, outage: seenOf(verdict.outage) };
}

function seenOf(outage: Outage): SeenOutage {
  return { id: outage.id, service: outage.service, attempts: outage.attempts };
}
