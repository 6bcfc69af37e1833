/**
 * What the runners and the agent service call when an agent fails (issue 6,
 * "Agents that fail with a lost connection are held in their panels as
 * 'waiting for network' instead of failed; other agents keep working").
 *
 * `onAgentFailure(classification, panelId)` sorts the failure through the one
 * classifier's verdict: a rate limit or any other failure is handed back as it
 * is (`not-outage`); a lost network or model service is reported into the
 * machine-wide outage, the panel is *held* (its header says "waiting for
 * network", its idle and wall clocks pause), and the call waits the outage out
 * on the shared probe. When the service is back the panel is *resumed* and the
 * caller restarts the agent if it died (see `lane-restart` for an agent in a
 * git worktree); at give-up the caller stops the agent, and this process sends
 * the one notification if it wins the claim. Every hold, resume and stop is a
 * run log row, which `tai report` reads.
 *
 * `onLaneYield(request, panelId)` is for a lane whose agent handed back with a
 * final `NETWORK: <cmd>` line (docs/spec.md, "A lane cut off mid-task"): the
 * panel is held while `restartLaneWhenBack` waits, and resumed for the fresh
 * agent once the lane is reset to its last commit with its edits saved aside.
 *
 * `onAgentSilent(panelId)` is for the idle clock: a stream cut silently
 * mid-answer raises nothing, so an agent silent past its idle limit is
 * confirmed by the probe (issue 6, "caught by the idle clock and confirmed by
 * the probe") before it is held: the network probe, then, with the network
 * fine, the model probe (an agent may retry a failing model silently).
 */
import { outageServiceOf, type Classification, type OutageService } from '../../core/outage/classify.js';
import { restartLaneWhenBack, type LaneRestart, type LaneRestartRequest } from './lane-restart.js';
import { notifyGiveUp, type NotifyOptions } from './notify.js';
import { log, openOutage, outageTimeScale, reportFailure, type Outage } from './outage-store.js';
import { startStandingWakeUp, waitOutOutage, type OutageWaitOptions, type StandingWakeUp } from './outage-wait.js';
import type { ProbeOutcome } from './probes.js';

/** The two board actions a hold needs (store/board.ts implements them). */
export interface HoldingBoard {
  hold(id: number, service: string, now: number): void;
  resume(id: number, now: number): void;
}

/** A store whose state holds those actions: the board itself (`createBoard()`) fits. */
export interface HoldingStore {
  getState(): HoldingBoard;
}

/** How to build the watch. */
export interface OutageWatchOptions extends OutageWaitOptions {
  readonly board: HoldingStore;
  /** The lab time scale for an outage this process opens; defaults to `TAI_OUTAGE_TIME_SCALE`. */
  readonly scale?: number;
  /** Where the give-up notification goes (the terminal writer, the env of the hook). */
  readonly notify?: Omit<NotifyOptions, 'now' | 'pid'>;
}

/** What became of a failed agent. */
export type AgentFailureVerdict =
  /** Not an outage (a rate limit, with its reset time, or anything else): report it as it is. */
  | { readonly kind: 'not-outage'; readonly classification: Classification }
  /** The service is back and the panel resumed: restart the agent if it died. */
  | { readonly kind: 'back'; readonly outage: Outage }
  /** The schedule gave up: stop the agent; `notified` says whether this process sent the one notification. */
  | { readonly kind: 'gave-up'; readonly outage: Outage; readonly notified: boolean }
  /** The wait was aborted (the panel was closed or the cockpit is quitting). */
  | { readonly kind: 'aborted'; readonly outage: Outage };

/** A lane whose agent handed back with a final `NETWORK: <cmd>` line (the restart's time and outage come from the wait). */
export type LaneYield = Omit<LaneRestartRequest, 'now' | 'outageId' | 'pid'>;

/** What became of a yielded lane: restarted from its last commit, or a verdict as for a failure. */
export type LaneYieldVerdict =
  | { readonly kind: 'restarted'; readonly restart: LaneRestart; readonly outage: Outage }
  | Extract<AgentFailureVerdict, { kind: 'gave-up' | 'aborted' }>;

/** The watch the agent service holds: every held panel's wait goes through it. */
export interface OutageWatch {
  /**
   * Holds panel `panelId` through the outage its failure belongs to, or says
   * it is none; `signal` ends the wait early (the panel was closed).
   */
  onAgentFailure(classification: Classification, panelId: number, label?: string, signal?: AbortSignal): Promise<AgentFailureVerdict>;
  /**
   * An agent silent past its idle limit (a silent cut raises nothing): joins
   * the open network outage, or runs the network probe once to confirm one and
   * holds the panel if it fails; with the network fine, the same with the
   * model outage and the model probe; both fine hands the silence back.
   * `onHold` is told the verdict just before the panel is held.
   */
  onAgentSilent(panelId: number, label?: string, signal?: AbortSignal, onHold?: (classification: Classification) => void): Promise<AgentFailureVerdict>;
  /**
   * A lane that handed back with `NETWORK: <cmd>` (docs/spec.md, "A lane cut
   * off mid-task"): holds panel `panelId`, waits through `restartLaneWhenBack`
   * (which saves the lane's edits aside and resets it to its last commit when
   * the service is back), then resumes the panel for the fresh agent; at
   * give-up, as for a failure.
   */
  onLaneYield(request: LaneYield, panelId: number, label?: string, signal?: AbortSignal): Promise<LaneYieldVerdict>;
  /**
   * Arms the standing wake-up for the cockpit's whole life (docs/spec.md, "The
   * standing wake-up"): every 20 minutes (or `everyMs`) the open outages are
   * re-evaluated, due probes run, and an outage that gave up without a
   * notification gets its one notification from here. Stop it when the cockpit
   * exits.
   */
  armWakeUp(everyMs?: number, onError?: (error: unknown) => void): StandingWakeUp;
}

/** Builds the watch over the shared state and a board. */
export function createOutageWatch(options: OutageWatchOptions): OutageWatch {
  const now = options.now ?? Date.now;
  const pid = options.pid ?? process.pid;
  const entry = (kind: string, service: OutageService, outageId: number, detail: string): void => {
    log(options.db, { at: now(), pid, kind, service, outageId, detail });
  };
  // Several agents falling silent together share one confirming probe.
  let confirming: Promise<ProbeOutcome> | undefined;
  let confirmingModel: Promise<ProbeOutcome> | undefined;
  const watch: OutageWatch = {
    async onAgentSilent(panelId, label, signal, onHold) {
      const silent = 'silent past the idle limit';
      const held = (classification: Classification): Promise<AgentFailureVerdict> => {
        onHold?.(classification);
        return watch.onAgentFailure(classification, panelId, label, signal);
      };
      if (openOutage(options.db, 'network') !== undefined) return held({ kind: 'network', detail: `${silent} during the outage` });
      const probe = options.probes('network');
      let network = 'no network probe to confirm an outage';
      if (probe !== undefined) {
        confirming ??= probe().finally(() => {
          confirming = undefined;
        });
        const outcome = await confirming;
        if (!outcome.ok) return held({ kind: 'network', detail: `${silent}; the network probe failed: ${outcome.detail}` });
        network = 'the network probe succeeded';
      }
      // The network is fine: an agent that retries a failing model silently (Gemini CLI over ACP
      // retries a 429 or a 500 for minutes) is checked against the model probe too.
      if (openOutage(options.db, 'model') !== undefined) return held({ kind: 'model', detail: `${silent} during the model outage; ${network}` });
      const model = options.probes('model');
      if (model === undefined) return { kind: 'not-outage', classification: { kind: 'other', detail: `${silent}; ${network}` } };
      confirmingModel ??= model().finally(() => {
        confirmingModel = undefined;
      });
      const outcome = await confirmingModel;
      if (outcome.ok) return { kind: 'not-outage', classification: { kind: 'other', detail: `${silent}; ${network}; the model probe succeeded` } };
      return held({ kind: 'model', detail: `${silent}; ${network}; the model probe failed: ${outcome.detail}` });
    },

    armWakeUp(everyMs, onError) {
      return startStandingWakeUp({
        ...options,
        ...(everyMs === undefined ? {} : { everyMs }),
        ...(onError === undefined ? {} : { onError }),
        onEvaluated: async ({ gaveUp }) => {
          for (const outage of gaveUp) await notifyGiveUp(options.db, outage, { ...options.notify, now: now(), pid });
        },
      });
    },

    async onLaneYield(request, panelId, label, signal) {
      const service = request.service ?? 'network';
      const who = `panel #${panelId}${label === undefined ? '' : ` ${label}`}`;
      options.board.getState().hold(panelId, service, now());
      const end = await restartLaneWhenBack(signal === undefined ? options : { ...options, signal }, { ...request, service, pid });
      switch (end.kind) {
        case 'restarted':
          options.board.getState().resume(panelId, now());
          entry('agent-resume', service, end.outage.id, who);
          return end;
        case 'gave-up': {
          entry('agent-stop', service, end.outage.id, `${who}: stopped at give-up`);
          const { sent } = await notifyGiveUp(options.db, end.outage, { ...options.notify, now: now(), pid });
          return { kind: 'gave-up', outage: end.outage, notified: sent };
        }
        case 'aborted':
          return end;
      }
    },

    async onAgentFailure(classification, panelId, label, signal) {
      const service = outageServiceOf(classification);
      if (service === undefined) return { kind: 'not-outage', classification };
      const { outage } = reportFailure(options.db, service, classification.detail, now(), options.scale ?? outageTimeScale(), pid);
      const who = `panel #${panelId}${label === undefined ? '' : ` ${label}`}`;
      options.board.getState().hold(panelId, service, now());
      entry('agent-hold', service, outage.id, `${who}: ${classification.detail}`);
      const end = await waitOutOutage(signal === undefined ? options : { ...options, signal }, outage.id);
      switch (end.kind) {
        case 'back':
          options.board.getState().resume(panelId, now());
          entry('agent-resume', service, outage.id, who);
          return end;
        case 'gave-up': {
          entry('agent-stop', service, outage.id, `${who}: stopped at give-up`);
          const { sent } = await notifyGiveUp(options.db, end.outage, { ...options.notify, now: now(), pid });
          return { kind: 'gave-up', outage: end.outage, notified: sent };
        }
        case 'aborted':
          return end;
      }
    },
  };
  return watch;
}
