/**
 * What the runners and the agent service call when an agent fails, falls silent or a lane yields with
 * `NETWORK: <cmd>` (docs/agents.md, "Outages: held, restarted, given up"): a lost service holds the panel on the
 * machine-wide outage while other agents keep working; anything else is handed back. A silent agent is confirmed
 * by the network probe, then the model probe, before it is held: a stream cut mid-answer raises nothing.
 */
import { outageServiceOf, type Classification, type OutageService } from '../../core/outage/classify.js';
import { restartNotBefore } from '../../core/outage/outage-schedule.js';
import { restartLaneWhenBack, type LaneRestart, type LaneRestartRequest } from './lane-restart.js';
import { notifyGiveUp, type NotifyOptions } from './notify.js';
import { log, openOutage, outageTimeScale, reportFailure, type Outage } from './outage-store.js';
import { realSleep, startStandingWakeUp, waitOutOutage, type OutageWaitOptions, type StandingWakeUp } from './outage-wait.js';
import type { Probe, ProbeOutcome } from './probes.js';

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

/** How one failure's hold is told and how long it lasts at least. */
export interface HoldOptions {
  /** Told the service's verdict just before the panel is held. */
  readonly onHold?: (classification: Classification) => void;
  /**
   * How often the panel's agent was already restarted after an outage: a repeat stays held past the service's
   * return until the widening schedule allows (restartNotBefore, src/core/outage/outage-schedule.ts).
   */
  readonly restarts?: number;
  /** The agent named the service itself (a `NETWORK: <cmd>` yield): no probe confirms it first. */
  readonly confirmed?: boolean;
}

/** A lane whose agent handed back with a final `NETWORK: <cmd>` line (the restart's time and outage come from the wait). */
export type LaneYield = Omit<LaneRestartRequest, 'now' | 'outageId' | 'pid'>;

/** What became of a yielded lane: restarted from its last commit, or a verdict as for a failure. */
export type LaneYieldVerdict =
  | { readonly kind: 'restarted'; readonly restart: LaneRestart; readonly outage: Outage }
  | Extract<AgentFailureVerdict, { kind: 'gave-up' | 'aborted' }>;

/** The watch the agent service holds: every held panel's wait goes through it. */
export interface OutageWatch {
  /**
   * Holds panel `panelId` through its failure's outage, or says it is none; `signal` ends the wait (the panel
   * closed). A lost connection is first confirmed by the network probe (confirmNetwork).
   */
  onAgentFailure(classification: Classification, panelId: number, label?: string, signal?: AbortSignal, hold?: HoldOptions): Promise<AgentFailureVerdict>;
  /**
   * An agent silent past its idle limit (a silent cut raises nothing): the network, then the model service, is
   * joined or probed once and the panel held if it failed; both fine hands the silence back. `onHold` is told first.
   */
  onAgentSilent(panelId: number, label?: string, signal?: AbortSignal, onHold?: (classification: Classification) => void): Promise<AgentFailureVerdict>;
  /**
   * A lane that handed back with `NETWORK: <cmd>` (docs/spec.md, "A lane cut off mid-task"): holds the panel
   * through `restartLaneWhenBack`, then resumes it for the fresh agent; at give-up, as for a failure.
   */
  onLaneYield(request: LaneYield, panelId: number, label?: string, signal?: AbortSignal): Promise<LaneYieldVerdict>;
  /**
   * Arms the standing wake-up for the cockpit's life (docs/spec.md, "The standing wake-up"): open outages
   * evaluated, due probes run, a give-up without a notification notified. Stop it when the cockpit exits.
   */
  armWakeUp(everyMs?: number, onError?: (error: unknown) => void): StandingWakeUp;
}

/** What the watch's flows share: the options, the clock, the run log and the probes shared while they run. */
interface WatchContext {
  readonly options: OutageWatchOptions;
  readonly now: () => number;
  readonly pid: number;
  entry(kind: string, service: OutageService, outageId: number, detail: string): void;
  /** Each service's probe once, shared by every caller that asks while it runs. */
  probeOnce(service: OutageService, probe: Probe): Promise<ProbeOutcome>;
}

/** Builds the watch over the shared state and a board. */
export function createOutageWatch(options: OutageWatchOptions): OutageWatch {
  const now = options.now ?? Date.now;
  const pid = options.pid ?? process.pid;
  // Several agents falling silent (or losing their connection) together share one confirming probe.
  const running = new Map<OutageService, Promise<ProbeOutcome>>();
  const ctx: WatchContext = {
    options,
    now,
    pid,
    entry: (kind, service, outageId, detail) => log(options.db, { at: now(), pid, kind, service, outageId, detail }),
    probeOnce: (service, probe) => {
      const shared = running.get(service) ?? probe().finally(() => running.delete(service));
      running.set(service, shared);
      return shared;
    },
  };
  const watch: OutageWatch = {
    onAgentSilent: (panelId, label, signal, onHold) =>
      agentSilent(ctx, (classification) => {
        onHold?.(classification);
        return watch.onAgentFailure(classification, panelId, label, signal, { confirmed: true });
      }),
    armWakeUp: (everyMs, onError) =>
      startStandingWakeUp({
        ...options,
        ...(everyMs === undefined ? {} : { everyMs }),
        ...(onError === undefined ? {} : { onError }),
        onEvaluated: async ({ gaveUp }) => {
          for (const outage of gaveUp) await notifyGiveUp(options.db, outage, { ...options.notify, now: now(), pid });
        },
      }),
    onLaneYield: (request, panelId, label, signal) => laneYield(ctx, request, panelId, label, signal),
    onAgentFailure: (failure, panelId, label, signal, hold = {}) => agentFailure(ctx, failure, panelId, label, signal, hold),
  };
  return watch;
}

/** An agent silent past its idle limit: the network probe, then the model probe; `held` holds the panel for what failed. */
async function agentSilent(ctx: WatchContext, held: (classification: Classification) => Promise<AgentFailureVerdict>): Promise<AgentFailureVerdict> {
  const { options } = ctx;
  const silent = 'silent past the idle limit';
  if (openOutage(options.db, 'network') !== undefined) return held({ kind: 'network', detail: `${silent} during the outage` });
  const probe = options.probes('network');
  let network = 'no network probe to confirm an outage';
  if (probe !== undefined) {
    const outcome = await ctx.probeOnce('network', probe);
    if (!outcome.ok) return held({ kind: 'network', detail: `${silent}; the network probe failed: ${outcome.detail}` });
    network = 'the network probe succeeded';
  }
  // The network is fine: an agent that retries a failing model silently (Gemini CLI over ACP
  // retries a 429 or a 500 for minutes) is checked against the model probe too.
  if (openOutage(options.db, 'model') !== undefined) return held({ kind: 'model', detail: `${silent} during the model outage; ${network}` });
  const model = options.probes('model');
  if (model === undefined) return { kind: 'not-outage', classification: { kind: 'other', detail: `${silent}; ${network}` } };
  const outcome = await ctx.probeOnce('model', model);
  if (outcome.ok) return { kind: 'not-outage', classification: { kind: 'other', detail: `${silent}; ${network}; the model probe succeeded` } };
  return held({ kind: 'model', detail: `${silent}; ${network}; the model probe failed: ${outcome.detail}` });
}

/** A lane that handed back with `NETWORK: <cmd>`: held while the lane waits to restart from its last commit. */
async function laneYield(ctx: WatchContext, request: LaneYield, panelId: number, label: string | undefined, signal: AbortSignal | undefined): Promise<LaneYieldVerdict> {
  const { options, now, pid } = ctx;
  const service = request.service ?? 'network';
  const who = `panel #${panelId}${label === undefined ? '' : ` ${label}`}`;
  options.board.getState().hold(panelId, service, now());
  const end = await restartLaneWhenBack(signal === undefined ? options : { ...options, signal }, { ...request, service, pid });
  switch (end.kind) {
    case 'restarted':
      options.board.getState().resume(panelId, now());
      ctx.entry('agent-resume', service, end.outage.id, who);
      return end;
    case 'gave-up':
      return gaveUp(ctx, service, end.outage, who);
    case 'aborted':
      return end;
  }
}

/** A failed agent: held through its outage (a lost connection confirmed by the network probe first), resumed when the service is back. */
async function agentFailure(ctx: WatchContext, failure: Classification, panelId: number, label: string | undefined, signal: AbortSignal | undefined, hold: HoldOptions): Promise<AgentFailureVerdict> {
  const { options, now } = ctx;
  if (outageServiceOf(failure) === undefined) return { kind: 'not-outage', classification: failure };
  const classification = hold.confirmed === true ? failure : await confirmNetwork(ctx, failure);
  const service = outageServiceOf(classification) ?? 'network';
  const heldAt = now();
  const { outage } = reportFailure(options.db, service, classification.detail, heldAt, options.scale ?? outageTimeScale(), ctx.pid);
  const notBefore = restartNotBefore(heldAt, hold.restarts ?? 0, outage.timeScale);
  const who = `panel #${panelId}${label === undefined ? '' : ` ${label}`}`;
  hold.onHold?.(classification);
  options.board.getState().hold(panelId, service, now());
  ctx.entry('agent-hold', service, outage.id, `${who}: ${classification.detail}`);
  const end = await waitOutOutage(signal === undefined ? options : { ...options, signal }, outage.id);
  switch (end.kind) {
    case 'back':
      // A repeat of this panel's outages stays held until the widening schedule allows.
      while (now() < notBefore) {
        if (signal?.aborted) return { kind: 'aborted', outage: end.outage };
        await (options.sleep ?? realSleep)(notBefore - now(), signal);
      }
      options.board.getState().resume(panelId, now());
      ctx.entry('agent-resume', service, outage.id, who);
      return end;
    case 'gave-up':
      return gaveUp(ctx, service, end.outage, who);
    case 'aborted':
      return end;
  }
}

/** A held panel's outage gave up: logged, and the one notification sent if this process wins it. */
async function gaveUp(ctx: WatchContext, service: OutageService, outage: Outage, who: string): Promise<{ readonly kind: 'gave-up'; readonly outage: Outage; readonly notified: boolean }> {
  ctx.entry('agent-stop', service, outage.id, `${who}: stopped at give-up`);
  const { sent } = await notifyGiveUp(ctx.options.db, outage, { ...ctx.options.notify, now: ctx.now(), pid: ctx.pid });
  return { kind: 'gave-up', outage, notified: sent };
}

/**
 * A lost connection with no network outage open is checked by the network probe: when the network answers, the
 * model service is what failed (when it has a probe to say when it is back).
 */
async function confirmNetwork(ctx: WatchContext, failure: Classification): Promise<Classification> {
  const { options } = ctx;
  const probe = options.probes('network');
  if (failure.kind !== 'network' || probe === undefined || options.probes('model') === undefined) return failure;
  if (openOutage(options.db, 'network') !== undefined) return failure;
  const outcome = await ctx.probeOnce('network', probe);
  return outcome.ok ? { kind: 'model', detail: `${failure.detail}; the network probe succeeded` } : failure;
}
