/**
 * Typed refusals (docs/architecture.md, "Typed refusals"): each has the exact
 * message a user or a socket client sees, and says what to do next where there
 * is something to do.
 */
import { AGENTS_MAX_PARALLEL, MPLEX_PANES_MAX, MPLEX_VPANE_MAX } from './policy.js';

/** The ninth live agent is refused loudly (docs/spec.md, "Supervision"). */
export class AgentsFullError extends Error {
  override readonly name = 'AgentsFullError';
  constructor(readonly running: number, readonly limit: number = AGENTS_MAX_PARALLEL) {
    super(
      `too many agents: ${running} are running and the limit is ${limit}; ` +
        'wait for one to finish or cancel one (tai cancel ID)',
    );
  }
}

/** The refusals of the vpane_* protocol, with the spec's texts (docs/spec.md, "The vpane protocol"). */
export const VPANE_ERRORS = {
  tooManyFeedPanes: `too many feed panes (limit ${MPLEX_VPANE_MAX})`,
  tooManyPanes: `too many panes (limit ${MPLEX_PANES_MAX})`,
  noSpace: 'no space for another feed pane',
  tooNarrow: 'window too narrow for a feed pane',
  opsNotList: 'ops must be a list',
  tooManyOps: 'too many ops in one write',
  dataTooLarge: 'op data too large',
} as const;

/** A refused protocol request; the message is what the client receives. */
export class RequestError extends Error {
  override readonly name = 'RequestError';
}

/** A panel id that the board does not know (never opened, or already gone). */
export class NoSuchPanelError extends RequestError {
  constructor(readonly id: number) {
    super(`no such pane: ${id}`);
  }
}

/** What went wrong, in one line: an Error's message, or whatever was thrown as text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The cockpit refuses to start (a main program that cannot run, a prefix key that would eat typing, a terminal
 * that cannot draw): said before the screen is taken, then the process exits with `exitCode`.
 */
export class StartRefusedError extends Error {
  override readonly name = 'StartRefusedError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
