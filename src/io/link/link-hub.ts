/**
 * The server's side of the client link: the link socket, its clients, and the CockpitTerminal the cockpit draws on.
 * Output goes to every client (encoded once), input from the one that types, the size from the latest writer; a client
 * too far behind is skipped and redrawn whole, so it costs no memory (docs/protocol.md, "Several clients"). A farewell
 * goes only once the server is done with a taken terminal, so no writes interleave ("The terminal straight", there).
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
