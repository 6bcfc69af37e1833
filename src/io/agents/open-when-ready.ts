/**
 * The cockpit's agent service when the state database may be unusable at start (docs/security.md, "Storage
 * faults"): opened in the background, tried again every OPEN_RETRY_MS, each change told for the screen, rather
 * than a cockpit that says "no agent runners" only in its log. A spawn meanwhile is refused with why; a damaged
 * database is retried too, as the user may run `tai doctor --reset-db`.
 */
import type { AgentResult, RecordPage, SpawnResult } from '../../core/agents/agent-service.js';
import { messageOf, RequestError } from '../../core/errors.js';
import type { CommandOf } from '../../core/protocol/commands.js';
import type { Board } from '../../../store/board.js';
import { StateDbError } from '../storage/state-db.js';
import { openAgentService, type OpenAgentServiceOptions, type OpenedAgentService } from './open-agent-service.js';
import type { DispatchAgents } from '../../../store/dispatch.js';

/** An unavailable database is tried again this often. */
export const OPEN_RETRY_MS = 5_000;
/** Each try waits at most this long for a lock, so the cockpit never stalls on it. */
export const OPEN_BUSY_MS = 200;

/** How to open the service in the background. */
export interface WhenReadyOptions extends OpenAgentServiceOptions {
  /** Told each change, as one line for the screen: unavailable (why, and that tai tries again), then open. */
  readonly onStatus?: (line: string) => void;
  /** Between tries (ms); OPEN_RETRY_MS unless a test says otherwise. */
  readonly retryMs?: number;
}

/** The agents of a cockpit whose service opens as soon as the database lets it. */
export interface PendingAgentService {
  /** The service for the dispatcher and the socket: refuses while unavailable, then the opened service's answers. */
  readonly agents: Required<DispatchAgents>;
  /** The opened service (with its outage watch: arm its wake-up here); undefined when closed before it opened. */
  readonly ready: Promise<OpenedAgentService | undefined>;
  /** Why agents cannot start now, or undefined once they can. */
  unavailable(): string | undefined;
  /** Stops trying, or closes the opened service. */
  close(): void;
}

/** Opens the agent service now if the database lets it, else in the background (see the file's comment). */
export function openAgentServiceWhenReady(board: Board, env: NodeJS.ProcessEnv, now: () => number, options: WhenReadyOptions = {}): PendingAgentService {
  const { onStatus, retryMs = OPEN_RETRY_MS, ...openOptions } = options;
  let opened: OpenedAgentService | undefined;
  let why: string | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let resolveReady: (opened: OpenedAgentService | undefined) => void = () => {};
  const ready = new Promise<OpenedAgentService | undefined>((resolve) => (resolveReady = resolve));
  const attempt = (): void => {
    timer = undefined;
    if (closed) return;
    try {
      opened = openAgentService(board, env, now, { openBusyMs: OPEN_BUSY_MS, ...openOptions });
    } catch (err) {
      const line = `agents cannot start yet: ${messageOf(err)}${err instanceof StateDbError ? ` (tai tries again every ${retryMs >= 1000 ? `${Math.round(retryMs / 1000)} s` : `${retryMs} ms`})` : ''}`;
      if (line !== why) onStatus?.(line);
      why = line;
      // Anything but a storage fault is a bug, not a state of the machine: said once, not retried.
      if (err instanceof StateDbError) {
        timer = setTimeout(attempt, retryMs);
        timer.unref();
      } else resolveReady(undefined);
      return;
    }
    if (why !== undefined) onStatus?.('agents can start now: the state database is open');
    why = undefined;
    resolveReady(opened);
  };
  attempt();
  const service = (): OpenedAgentService['service'] => {
    if (opened) return opened.service;
    throw new RequestError(why ?? 'agents cannot start: the agent service is closed');
  };
  const agents: PendingAgentService['agents'] = {
    spawn: async (request: CommandOf<'spawn'>, at: number): Promise<SpawnResult> => service().spawn(request, at),
    poll: async (id: number, waitMs?: number): Promise<AgentResult | undefined> => (opened ? opened.service.poll(id, waitMs) : undefined),
    readRecord: async (id: string, offset?: number, limit?: number): Promise<RecordPage | undefined> => service().readRecord(id, offset, limit),
    currentAttempt: (id: number) => opened?.service.currentAttempt(id),
    openLaneDiff: async (pane: number): Promise<number> => service().openLaneDiff(pane),
    closeView: (pane: number): boolean => opened?.service.closeView(pane) ?? false,
    steer: (id: number, text: string) => service().steer(id, text),
  };
  return {
    agents,
    ready,
    unavailable: () => why,
    close: () => {
      closed = true;
      clearTimeout(timer);
      opened?.close();
      resolveReady(undefined);
    },
  };
}
