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
 * A client whose output is a terminal names it in its hello, and the server
 * writes that client's output to the terminal itself (direct-tty.ts, tmux's
 * way) instead of sending it output frames; the same skip rule holds. When
 * the client offers it, the server reads its keys from the terminal too and
 * the client only relays its size; the attached frame tells the client which
 * (it reads nothing before). Its farewell is sent only once the server
 * stopped reading, its last write reached the terminal and the terminal is
 * closed here, so the client's own last writes (the restore, the farewell
 * line) never interleave with the server's, and no key typed after is ours.
 */
import { chmodSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { keysText } from './keys-text.js';
import { messageOf } from '../../core/errors.js';
import { DetachKeyWatch } from '../../core/input/detach-key.js';
import {
  encodeFrame,
  encodeJson,
  FRAME,
  FrameReader,
  payloadJson,
  readHello,
  readSize,
  type CockpitInfo,
  type Farewell,
  type Frame,
  type Attached,
  type Hello,
} from '../../core/protocol/link-frames.js';
import type { CockpitTerminal } from '../cockpit/cockpit-terminal.js';
import { clearStaleSocket } from '../socket/socket-path.js';
import type { ReadStream } from 'node:tty';
import { openDirectTty, openTtyInput, type DirectTty } from './direct-tty.js';
import { removeFile } from './link-place.js';

/** Output bytes a client may have unsent before it is skipped until it drains. */
export const CLIENT_BEHIND_MAX = 4 * 1_048_576;

/** The most clients attached to one cockpit at once. */
export const LINK_CLIENTS_MAX = 64;

/** How long the server waits for its clients to take their farewell before it exits. */
const FAREWELL_WAIT_MS = 2_000;

/** How long a farewell waits for a client's terminal to take the server's last writes (a stalled one loses them). */
const TTY_FLUSH_WAIT_MS = 1_000;

/**
 * How long a cockpit that ends before any client attached waits for the
 * first one (the client that started it is on its way): a main program that
 * fails at once still has its code and last lines delivered.
 */
const FIRST_CLIENT_WAIT_MS = 5_000;

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
  /** Whether a client's terminal may be written straight (false: TAI_DIRECT_TTY=0, output frames for all). */
  readonly directTty?: boolean;
  readonly log: (line: string) => void;
}

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

interface Client {
  readonly socket: Socket;
  readonly reader: FrameReader;
  readonly decoder: StringDecoder;
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
}

/** Listens on the link socket and serves clients until `end`. */
export async function startLinkHub(options: LinkHubOptions): Promise<LinkHub> {
  const { log } = options;
  const clients = new Set<Client>();
  let cols = options.cols;
  let rows = options.rows;
  let clock = 0;
  let lastTyped: Client | undefined;
  let ended = false;
  let everAttached = false;
  let firstAttached: () => void = () => {};
  const first = new Promise<void>((r) => (firstAttached = r));
  let epilogue: readonly string[] = [];
  let describe: () => Omit<CockpitInfo, 'clients'> = () => ({ name: options.name, pid: process.pid, argv: [], cwd: process.cwd(), startedAt: Date.now(), running: 0, asking: 0, done: 0 });
  let kill: () => void = () => {};
  const inputs = new Set<(data: string) => void>();
  const resizes = new Set<() => void>();
  const attaches = new Set<(send: (data: string) => void) => void>();
  const attached = (): Client[] => [...clients].filter((c) => c.mode === 'attach');

  /** The layout's size: the latest writing client's, else the latest reader's. */
  const follow = (): void => {
    const all = attached();
    const writers = all.filter((c) => !c.readOnly);
    const pool = writers.length > 0 ? writers : all;
    const latest = pool.reduce<Client | undefined>((a, c) => (a === undefined || c.active > a.active ? c : a), undefined);
    if (latest === undefined || (latest.cols === cols && latest.rows === rows)) return;
    cols = latest.cols;
    rows = latest.rows;
    for (const fn of resizes) fn();
  };

  /** False when the client is too far behind: it is skipped until it drains. */
  const keepsUp = (c: Client, behind: number): boolean => {
    if (behind <= CLIENT_BEHIND_MAX) return true;
    if (!c.behind) log(`link: a client fell ${behind} bytes behind; skipping it until it drains`);
    c.behind = true;
    return false;
  };

  /** Output for one client: to its terminal, or as the frame (`frame` is data's, encoded once for all clients). */
  const send = (c: Client, data: string, frame?: Uint8Array): void => {
    if (c.socket.destroyed) return;
    if (c.tty !== undefined) {
      if (keepsUp(c, c.tty.behind)) c.tty.write(data);
      return;
    }
    if (keepsUp(c, c.socket.writableLength)) c.socket.write(frame ?? encodeFrame(FRAME.output, data));
  };

  /** Redraws a client that drained: its modes, then a whole frame for everyone. */
  const drained = (c: Client): void => {
    if (!c.behind) return;
    c.behind = false;
    for (const fn of attaches) fn((data) => send(c, data));
  };

  /** Sends `last` once the server's writes to the client's terminal are done and it is closed here. */
  const lastFrame = (c: Client, last: Uint8Array): void => {
    c.input?.destroy(); // first: a key typed from now on is the shell's
    const tty = c.tty;
    if (tty === undefined) return void (c.socket.destroyed || c.socket.end(last));
    void tty.close(TTY_FLUSH_WAIT_MS).then(() => void (c.socket.destroyed || c.socket.end(last)));
  };

  const farewell = (c: Client, type: typeof FRAME.exit | typeof FRAME.detached, words: Farewell): void => {
    clients.delete(c);
    if (lastTyped === c) lastTyped = undefined;
    lastFrame(c, encodeJson(type, words));
    follow();
  };

  /** The client's terminal went away: it is gone; the cockpit goes on. */
  const lost = (c: Client, path: string, why: string): void => {
    if (!clients.has(c)) return;
    log(`link: a client's terminal ${path} went away (${why}); that client is gone`);
    farewell(c, FRAME.detached, { code: 0, message: `detached from cockpit ${options.name}: its terminal went away (${why})` });
  };

  /**
   * Writes the client's output to its terminal when it named one that
   * checks out, and reads its keys there when it offered; else frames. Tells
   * the client which (the attached frame), before any output.
   */
  const goDirect = (c: Client, hello: Hello): void => {
    const claim = hello.tty;
    if (claim !== undefined) {
      const tty = options.directTty === false ? 'TAI_DIRECT_TTY=0' : openDirectTty(claim);
      if (typeof tty === 'string') log(`link: output frames for a client: ${tty}`);
      else {
        c.tty = tty;
        tty.onDrain(() => drained(c));
        tty.onError((why) => lost(c, claim.path, why));
      }
    }
    if (claim !== undefined && c.tty !== undefined && hello.ttyInput === true) {
      const input = openTtyInput(claim, (bytes) => typed(c, bytes));
      if (typeof input === 'string') log(`link: input frames from a client: ${input}`);
      else {
        c.input = input;
        input.on('error', (err) => lost(c, claim.path, messageOf(err)));
        input.on('end', () => lost(c, claim.path, 'end of input'));
        input.resume();
      }
    }
    c.socket.write(encodeJson(FRAME.attached, { output: c.tty === undefined ? 'frames' : 'tty', input: c.input === undefined ? 'frames' : 'tty' } satisfies Attached));
  };

  const onFrame = (c: Client, frame: Frame): void => {
    if (c.mode === 'new') {
      if (frame.type !== FRAME.hello) return farewell(c, FRAME.exit, { code: 2, message: 'the first frame must be a hello' });
      const hello = readHello(payloadJson(frame));
      if (typeof hello === 'string') return farewell(c, FRAME.exit, { code: 2, message: hello });
      if (hello.mode === 'query') {
        c.socket.end(encodeJson(FRAME.info, { ...describe(), clients: attached().length }));
        clients.delete(c);
        return;
      }
      if (hello.mode === 'kill') {
        c.mode = 'kill'; // it gets the farewell with everyone else
        kill();
        return;
      }
      if (attached().length >= LINK_CLIENTS_MAX) return farewell(c, FRAME.exit, { code: 1, message: `too many clients attached (limit ${LINK_CLIENTS_MAX})` });
      c.mode = 'attach';
      everAttached = true;
      firstAttached();
      c.readOnly = hello.readOnly === true;
      if (c.readOnly) c.watch = new DetachKeyWatch(options.prefix);
      c.cols = hello.cols ?? cols;
      c.rows = hello.rows ?? rows;
      c.active = ++clock;
      goDirect(c, hello);
      follow(); // a new size redraws everything anyway; the modes go to this client alone
      for (const fn of attaches) fn((data) => send(c, data));
      return;
    }
    if (c.mode !== 'attach') return;
    switch (frame.type) {
      case FRAME.input:
        return typed(c, frame.payload);
      case FRAME.leave:
        return detachClient(c); // a signal told the client to stop: it waits for this d before it writes
      case FRAME.resize: {
        const size = readSize(payloadJson(frame));
        if (size === undefined) return;
        c.cols = size.cols;
        c.rows = size.rows;
        if (!c.readOnly) c.active = ++clock;
        follow();
        return;
      }
      default:
        return; // a newer client's frame this server does not know: ignored
    }
  };

  /** Keys from a client (its input frames, or its terminal read here); a read-only one's only for prefix + d. */
  const typed = (c: Client, bytes: Uint8Array): void => {
    const text = keysText(c.decoder, bytes);
    if (text === '') return;
    if (c.readOnly) {
      if (c.watch?.push(text)) detachClient(c);
      return;
    }
    c.active = ++clock;
    lastTyped = c;
    // c is now the latest writer, so follow() would take its size: only a different one makes it do anything.
    if (c.cols !== cols || c.rows !== rows) follow();
    for (const fn of inputs) fn(text);
  };

  const detachClient = (c: Client): void =>
    farewell(c, FRAME.detached, { code: 0, message: `detached from cockpit ${options.name}; tai attach ${options.name} comes back (its agents go on)` });

  const server: Server = createServer((socket) => {
    if (ended) return void socket.destroy();
    const c: Client = { socket, reader: new FrameReader(), decoder: new StringDecoder('utf8'), mode: 'new', readOnly: false, cols, rows, active: 0, behind: false };
    clients.add(c);
    socket.on('data', (chunk: Buffer) => {
      const { frames, error } = c.reader.push(chunk);
      for (const frame of frames) onFrame(c, frame);
      if (error !== undefined) farewell(c, FRAME.exit, { code: 2, message: error });
    });
    socket.on('drain', () => {
      if (c.tty === undefined) drained(c);
    });
    socket.on('error', () => {}); // a client that vanished: 'close' follows
    socket.on('close', () => {
      c.input?.destroy();
      c.tty?.destroy(); // nobody to restore that terminal after us: stop writing at once
      const was = clients.delete(c);
      if (lastTyped === c) lastTyped = undefined;
      if (was) follow();
    });
  });
  await clearStaleSocket(options.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(options.path, 0o600);
  server.on('error', (err) => log(`link: ${messageOf(err)}`));

  const terminal: CockpitTerminal = {
    get cols() {
      return cols;
    },
    get rows() {
      return rows;
    },
    write(data) {
      const all = attached();
      if (all.length === 0) return;
      let frame: Uint8Array | undefined;
      for (const c of all) {
        if (c.tty === undefined) frame ??= encodeFrame(FRAME.output, data);
        send(c, data, frame);
      }
    },
    leave: () => {}, // each client restores its own terminal, whenever and however the server ends
    epilogue: (lines) => void (epilogue = [...epilogue, ...lines]),
    onInput: (fn) => subscribe(inputs, fn),
    onResize: (fn) => subscribe(resizes, fn),
    onAttach: (fn) => subscribe(attaches, fn),
    onGone: () => () => {}, // clients come and go; the server is never without its terminal for good
    detach() {
      if (lastTyped === undefined || !clients.has(lastTyped)) return 'no client to detach';
      detachClient(lastTyped);
      return undefined;
    },
    watched: () => attached().length > 0,
    start: () => {},
    stop: () => {},
  };

  return {
    terminal,
    describe: (fn) => void (describe = fn),
    onKill: (fn) => void (kill = fn),
    clients: () => attached().length,
    direct: () => attached().filter((c) => c.tty !== undefined).length,
    async end(words) {
      if (ended) return;
      if (!everAttached) {
        let wait: NodeJS.Timeout | undefined;
        await Promise.race([first, new Promise<void>((r) => (wait = setTimeout(r, FIRST_CLIENT_WAIT_MS)))]);
        clearTimeout(wait);
      }
      ended = true;
      const all = [...clients];
      const gone = all.map((c) => new Promise<void>((r) => (c.socket.destroyed ? r() : c.socket.once('close', () => r()))));
      const last = encodeJson(FRAME.exit, { ...words, lines: [...(words.lines ?? []), ...epilogue] });
      for (const c of all) {
        if (c.mode === 'attach' || c.mode === 'kill') lastFrame(c, last);
        else c.socket.destroy();
      }
      clients.clear();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(gone), new Promise<void>((r) => (timer = setTimeout(r, FAREWELL_WAIT_MS)))]);
      clearTimeout(timer);
      for (const c of all) c.socket.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      removeFile(options.path);
    },
  };
}

function subscribe<F>(set: Set<F>, fn: F): () => void {
  set.add(fn);
  return () => void set.delete(fn);
}

