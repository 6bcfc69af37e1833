/**
 * A connection to the link socket: what the hub keeps of each (Client), and the bounds on them (LINK_CONNECTIONS_MAX,
 * a hello within LINK_HELLO_DEADLINE_MS of at most LINK_HELLO_MAX bytes, sizes by src/core/screen-bound.ts, a client
 * skipped past CLIENT_BEHIND_MAX, the farewell's wait) and the options a hub is made from, some lowering them.
 */
import type { Socket } from 'node:net';
import type { ReadStream } from 'node:tty';
import type { DetachKeyWatch } from '../../core/input/detach-key.js';
import type { FrameReader } from '../../core/protocol/link-frames.js';
import type { DirectTty } from './direct-tty.js';
import type { KeysText } from './keys-text.js';

/** Output bytes a client may have unsent before it is skipped until it drains. */
export const CLIENT_BEHIND_MAX = 4 * 1_048_576;

/** The most clients attached to one cockpit at once. */
export const LINK_CLIENTS_MAX = 64;

/** The most connections open at once, attached or not (a query, a kill, one still to say hello); the next is refused. */
export const LINK_CONNECTIONS_MAX = 2 * LINK_CLIENTS_MAX;

/** A connection that has not said hello this long after it opened is closed. */
export const LINK_HELLO_DEADLINE_MS = 10_000;

/** How long the server waits for its clients to take their farewell before it exits. */
export const FAREWELL_WAIT_MS = 2_000;

/** How long a farewell waits for a client's terminal to take the server's last writes (a stalled one loses them). */
export const TTY_FLUSH_WAIT_MS = 1_000;

/**
 * How long a cockpit that ends before any client attached waits for the
 * first one (the client that started it is on its way): a main program that
 * fails at once still has its code and last lines delivered.
 */
export const FIRST_CLIENT_WAIT_MS = 5_000;

/** What the hub is made from. */
export interface LinkHubOptions {
  /** The link socket's path (its folder already claimed and checked: claimSocketPlace). */
  readonly path: string;
  /** The cockpit's name, for the detach message. */
  readonly name: string;
  /** The prefix key: a read-only client's prefix + d detaches it. */
  readonly prefix: string;
  /** The size until a client says otherwise. */
  readonly cols: number;
  readonly rows: number;
  /** Whether a client's terminal may be taken (false: TAI_DIRECT_TTY=0, frames for all). */
  readonly directTty?: boolean;
  /** Connections open at once; default LINK_CONNECTIONS_MAX. */
  readonly connectionsMax?: number;
  /** How long a new connection may take to say hello; default LINK_HELLO_DEADLINE_MS. */
  readonly helloDeadlineMs?: number;
  readonly log: (line: string) => void;
}

export interface Client {
  readonly socket: Socket;
  readonly reader: FrameReader;
  readonly keys: KeysText;
  mode: 'new' | 'attach' | 'query' | 'kill';
  readOnly: boolean;
  watch?: DetachKeyWatch;
  cols: number;
  rows: number;
  /** When it last typed, resized or attached (a counter): the latest sizes the layout. */
  active: number;
  behind: boolean;
  /** The client's terminal, when the server writes its output there itself. */
  tty?: DirectTty;
  /** The client's terminal, when the server reads its keys there itself. */
  input?: ReadStream;
  /** Whether its input frames were refused already (said once in the log). */
  strayKeys?: boolean;
}
