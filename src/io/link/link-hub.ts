/**
 * The server's side of the client link: the link socket, every client
 * attached to it, and the CockpitTerminal the server's cockpit draws on.
 * Output is relayed to every attached client at once (each frame is encoded
 * once); input comes from the client that types. The layout follows the
 * size of the writing client that was active last (tmux's `latest` rule);
 * read-only clients never type and never size it, unless nobody else is
 * attached. A client that falls more than CLIENT_BEHIND_MAX behind (a
 * stalled ssh) is skipped, not buffered, and redrawn whole when it drains,
 * so a slow client costs the server no memory. Clients come and go; the
 * cockpit never notices but for a redraw.
 *
 * A client whose keys and output are one terminal names it in its hello,
 * and the server takes that terminal (direct-tty.ts, tmux's way): it writes
 * the client's output there and reads its keys there, and the client only
 * relays its size; else the link carries output and input frames. The
 * attached frame tells the client which, before any output; the same skip
 * rule holds both ways. A farewell is sent only once the server stopped
 * reading, its last write reached the terminal and the terminal is closed
 * here, so the client's own last writes (the restore, the farewell line)
 * never interleave with the server's, and no key typed after is ours.
 *
 * What connections cost is bounded as on the control socket: at most
 * LINK_CONNECTIONS_MAX open, a hello within LINK_HELLO_DEADLINE_MS and in a
 * frame of at most LINK_HELLO_MAX bytes, and a window size the layout takes
 * only up to src/core/screen-bound.ts's bound.
 */
import { chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { messageOf } from '../../core/errors.js';
import { encodeFrame, FRAME, type CockpitInfo, type Farewell } from '../../core/protocol/link-frames.js';
import type { CockpitTerminal } from '../cockpit/cockpit-terminal.js';
import { clearStaleSocket } from '../socket/socket-path.js';
import { type LinkHubOptions } from './link-connection.js';
import { Hub } from './link-clients.js';

export { CLIENT_BEHIND_MAX, LINK_CLIENTS_MAX, LINK_CONNECTIONS_MAX, LINK_HELLO_DEADLINE_MS, type LinkHubOptions } from './link-connection.js';

/** The running hub. */
export interface LinkHub {
  /** The terminal the cockpit draws on. */
  readonly terminal: CockpitTerminal;
  /** How `tai ls` describes the cockpit (set once it runs). */
  describe(fn: () => Omit<CockpitInfo, 'clients'>): void;
  /** What `tai kill` does (set once the cockpit runs). */
  onKill(fn: () => void): void;
  /** Attached clients now. */
  clients(): number;
  /** Of those, the ones whose terminal the server writes to itself. */
  direct(): number;
  /** Says farewell to every client (the cockpit ended), closes the socket; resolves when they have it. */
  end(farewell: Farewell): Promise<void>;
}

/** Listens on the link socket and serves clients until `end`. */
export async function startLinkHub(options: LinkHubOptions): Promise<LinkHub> {
  const hub = new Hub(options);
  const server: Server = createServer((socket) => hub.accept(socket));
  await clearStaleSocket(options.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(options.path, 0o600);
  server.on('error', (err) => options.log(`link: ${messageOf(err)}`));
  return {
    terminal: hubTerminal(hub),
    describe: (fn) => void (hub.describe = fn),
    onKill: (fn) => void (hub.kill = fn),
    clients: () => hub.attached().length,
    direct: () => hub.attached().filter((c) => c.tty !== undefined).length,
    end: (words) => hub.end(words, server),
  };
}

/** The CockpitTerminal the server's cockpit draws on: every attached client. */
function hubTerminal(hub: Hub): CockpitTerminal {
  return {
    get cols() {
      return hub.cols;
    },
    get rows() {
      return hub.rows;
    },
    write(data) {
      // No list made: a key's echo is written here between its arrival and the server's sleep.
      let frame: Uint8Array | undefined;
      for (const c of hub.clients) {
        if (c.mode !== 'attach') continue;
        if (c.tty === undefined) frame ??= encodeFrame(FRAME.output, data);
        hub.send(c, data, frame);
      }
    },
    leave: () => {}, // each client restores its own terminal, whenever and however the server ends
    epilogue: (lines) => void (hub.epilogue = [...hub.epilogue, ...lines]),
    onInput: (fn) => subscribe(hub.inputs, fn),
    onResize: (fn) => subscribe(hub.resizes, fn),
    onAttach: (fn) => subscribe(hub.attaches, fn),
    onGone: () => () => {}, // clients come and go; the server is never without its terminal for good
    detach() {
      const c = hub.lastTyped;
      if (c === undefined || !hub.clients.has(c)) return 'no client to detach';
      hub.detachClient(c);
      return undefined;
    },
    watched: () => anyAttached(hub),
    start: () => {},
    stop: () => {},
  };
}

/** Whether any client is attached; asked on every echo and frame, so it makes no list. */
function anyAttached(hub: Hub): boolean {
  for (const c of hub.clients) if (c.mode === 'attach') return true;
  return false;
}

function subscribe<F>(set: Set<F>, fn: F): () => void {
  set.add(fn);
  return () => void set.delete(fn);
}
