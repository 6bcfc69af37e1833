/**
 * Where a lead's commands go: the cockpit's control socket (its panels beside the lead), or outside one a board
 * and agent service here, as a plain `tai spawn` supervises. Either way the command is the protocol's and the reply
 * the dispatcher's, so the lead's tools and the CLI say the same.
 */
import type { Command } from '../../core/protocol/commands.js';
import { isLive } from '../../core/panel/panel-state.js';
import { createBoard } from '../../../store/board.js';
import { dispatch } from '../../../store/dispatch.js';
import { startBoardClock } from '../cockpit/board-clock.js';
import { openAgentService } from '../agents/open-agent-service.js';
import { call, describeCallError, type ReplyTo } from '../socket/control-client.js';

/** One place that carries out commands. */
export interface LeadBackend {
  /** `cockpit` (its socket path) or `process` (this process supervises). */
  readonly where: { readonly kind: 'cockpit'; readonly socket: string } | { readonly kind: 'process' };
  /** Carries out a command; a failure to reach the cockpit is a LeadCallError with the CLI's message. */
  call<C extends Command>(command: C): Promise<ReplyTo<C>>;
  /** Ends what this backend holds (in this process: its agents stop with it). */
  close(): void;
}

/** The cockpit could not be reached; `exitCode` is the CLI's (2 when none answers). */
export class LeadCallError extends Error {
  override readonly name = 'LeadCallError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Commands go over the control socket at `socket`. */
export function cockpitBackend(socket: string): LeadBackend {
  return {
    where: { kind: 'cockpit', socket },
    async call(command) {
      try {
        return await call(socket, command);
      } catch (err) {
        const { exitCode, message } = describeCallError(err);
        throw new LeadCallError(message, exitCode);
      }
    },
    close() {},
  };
}

/** Commands are carried out here, on a board with drawing off and the state database (as `tai spawn` outside a cockpit). */
export function processBackend(env: NodeJS.ProcessEnv): LeadBackend {
  const board = createBoard({ drawingOff: 'outside a cockpit: no panel' });
  const clock = startBoardClock(board);
  let opened;
  try {
    opened = openAgentService(board, env, Date.now);
  } catch (err) {
    clock.stop();
    throw err;
  }
  const { service } = opened;
  return {
    where: { kind: 'process' },
    call: (command) => dispatch(command, { board, now: Date.now(), agents: service }) as Promise<ReplyTo<typeof command>>,
    close() {
      const now = Date.now();
      for (const row of board.getState().status(now).agents) {
        if (row.kind === 'agent' && isLive(row.state)) board.getState().cancel(row.id, 'the lead left (tai mcp ended)', now, 'user');
      }
      clock.stop();
      opened.close();
    },
  };
}
