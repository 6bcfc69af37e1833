/**
 * The link hub's clients (link-hub.ts): each connection from hello to farewell, the layout's size by the latest
 * writer, output to each (terminal taken, or frames; a client too far behind skipped), keys from each, and the end,
 * within the link socket's bounds (link-connection.ts).
 */
import type { Server, Socket } from 'node:net';
import { KeysText } from './keys-text.js';
import { messageOf } from '../../core/errors.js';
import { DetachKeyWatch } from '../../core/input/detach-key.js';
import { layoutSize } from '../../core/screen-bound.js';
import {
  encodeFrame,
  encodeJson,
  FRAME,
  FrameReader,
  LINK_FRAME_MAX,
  LINK_HELLO_MAX,
  payloadJson,
  readHello,
  readSize,
  type Attached,
  type CockpitInfo,
  type Farewell,
  type Frame,
  type Hello,
} from '../../core/protocol/link-frames.js';
import { LEAVE } from '../terminal/terminal-modes.js';
import { takeTerminal, type DirectTty } from './direct-tty.js';
import { removeFile } from './link-place.js';
import { CLIENT_BEHIND_MAX, FAREWELL_WAIT_MS, FIRST_CLIENT_WAIT_MS, LINK_CLIENTS_MAX, LINK_CONNECTIONS_MAX, LINK_HELLO_DEADLINE_MS, TTY_FLUSH_WAIT_MS, type Client, type LinkHubOptions } from './link-connection.js';

/** The hub's state and what it does with each client; startLinkHub wires it to the socket. */
export class Hub {
  readonly clients = new Set<Client>();
  cols: number;
  rows: number;
  clock = 0;
  lastTyped: Client | undefined;
  ended = false;
  everAttached = false;
  #firstAttached: () => void = () => {};
  readonly first = new Promise<void>((r) => (this.#firstAttached = r));
  epilogue: readonly string[] = [];
  describe: () => Omit<CockpitInfo, 'clients'>;
  kill: () => void = () => {};
  readonly inputs = new Set<(data: string) => void>();
  readonly resizes = new Set<() => void>();
  readonly attaches = new Set<(send: (data: string) => void) => void>();
  readonly log: (line: string) => void;
  readonly #connectionsMax: number;
  readonly #helloDeadlineMs: number;

  constructor(readonly options: LinkHubOptions) {
    const size = layoutSize(options.cols, options.rows);
    this.cols = size.cols;
    this.rows = size.rows;
    this.log = options.log;
    this.#connectionsMax = options.connectionsMax ?? LINK_CONNECTIONS_MAX;
    this.#helloDeadlineMs = options.helloDeadlineMs ?? LINK_HELLO_DEADLINE_MS;
    this.describe = () => ({ name: options.name, pid: process.pid, argv: [], cwd: process.cwd(), startedAt: Date.now(), running: 0, asking: 0, done: 0 });
  }

  attached(): Client[] {
    return [...this.clients].filter((c) => c.mode === 'attach');
  }

  /** A new connection: refused past the cap; it must say hello within the deadline, in a short frame. */
  accept(socket: Socket): void {
    if (this.ended) return void socket.destroy();
    socket.on('error', () => {}); // a client that vanished: 'close' follows
    if (this.clients.size >= this.#connectionsMax) {
      this.log(`link: a connection refused: ${this.clients.size} open (limit ${this.#connectionsMax})`);
      return void socket.end(encodeJson(FRAME.exit, { code: 1, message: `too many connections to this cockpit (limit ${this.#connectionsMax}); close some and try again` } satisfies Farewell));
    }
    const c: Client = { socket, reader: new FrameReader(LINK_FRAME_MAX, LINK_HELLO_MAX), keys: new KeysText(), mode: 'new', readOnly: false, cols: this.cols, rows: this.rows, active: 0, behind: false };
    this.clients.add(c);
    const deadline = setTimeout(() => {
      if (c.mode === 'new' && this.clients.has(c)) this.farewell(c, FRAME.exit, { code: 2, message: `no hello within ${this.#helloDeadlineMs} ms` });
    }, this.#helloDeadlineMs);
    deadline.unref();
    socket.on('data', (chunk: Buffer) => {
      const { frames, error } = c.reader.push(chunk);
      for (const frame of frames) this.onFrame(c, frame);
      if (error !== undefined) this.farewell(c, FRAME.exit, { code: 2, message: error });
    });
    socket.on('drain', () => {
      if (c.tty === undefined) this.drained(c);
    });
    socket.on('close', () => {
      clearTimeout(deadline);
      c.input?.destroy();
      const was = this.clients.delete(c);
      if (was && c.mode === 'attach' && c.tty !== undefined) this.restore(c.tty);
      else c.tty?.destroy(); // its farewell closed it already
      if (this.lastTyped === c) this.lastTyped = undefined;
      if (was) this.follow();
    });
  }

  /** The layout's size: the latest writing client's, else the latest reader's. */
  follow(): void {
    const all = this.attached();
    const writers = all.filter((c) => !c.readOnly);
    const pool = writers.length > 0 ? writers : all;
    const latest = pool.reduce<Client | undefined>((a, c) => (a === undefined || c.active > a.active ? c : a), undefined);
    if (latest === undefined || (latest.cols === this.cols && latest.rows === this.rows)) return;
    this.cols = latest.cols;
    this.rows = latest.rows;
    for (const fn of this.resizes) fn();
  }

  /** False when the client is too far behind: it is skipped until it drains. */
  keepsUp(c: Client, behind: number): boolean {
    if (behind <= CLIENT_BEHIND_MAX) return true;
    if (!c.behind) this.log(`link: a client fell ${behind} bytes behind; skipping it until it drains`);
    c.behind = true;
    return false;
  }

  /** Output for one client: to its terminal, or as the frame (`frame` is data's, encoded once for all clients). */
  send(c: Client, data: string, frame?: Uint8Array): void {
    if (c.socket.destroyed) return;
    if (c.tty !== undefined) {
      if (this.keepsUp(c, c.tty.behind)) c.tty.write(data);
      return;
    }
    if (this.keepsUp(c, c.socket.writableLength)) c.socket.write(frame ?? encodeFrame(FRAME.output, data));
  }

  /** Redraws a client that drained: its modes, then a whole frame for everyone. */
  drained(c: Client): void {
    if (!c.behind) return;
    c.behind = false;
    for (const fn of this.attaches) fn((data) => this.send(c, data));
  }

  /**
   * The link dropped without a goodbye while the server held the client's terminal (the client was killed): nobody
   * else will leave the cockpit's screen and modes, so the server does; the cooked mode is the shell's to restore.
   */
  restore(tty: DirectTty): void {
    this.log(`link: the client on ${tty.path} went without a goodbye; its terminal's screen and modes restored`);
    tty.write(LEAVE);
    void tty.close(TTY_FLUSH_WAIT_MS);
  }

  /** Sends `last` once the server's writes to the client's terminal are done and it is closed here. */
  lastFrame(c: Client, last: Uint8Array): void {
    c.input?.destroy(); // first: a key typed from now on is the shell's
    const tty = c.tty;
    if (tty === undefined) return void (c.socket.destroyed || c.socket.end(last));
    void tty.close(TTY_FLUSH_WAIT_MS).then(() => void (c.socket.destroyed || c.socket.end(last)));
  }

  farewell(c: Client, type: typeof FRAME.exit | typeof FRAME.detached, words: Farewell): void {
    this.clients.delete(c);
    if (this.lastTyped === c) this.lastTyped = undefined;
    this.lastFrame(c, encodeJson(type, words));
    this.follow();
  }

  detachClient(c: Client): void {
    const name = this.options.name;
    this.farewell(c, FRAME.detached, { code: 0, message: `detached from cockpit ${name}; tai attach ${name} comes back (its agents go on)` });
  }

  /** The client's terminal went away: it is gone; the cockpit goes on. */
  lost(c: Client, path: string, why: string): void {
    if (!this.clients.has(c)) return;
    this.log(`link: a client's terminal ${path} went away (${why}); that client is gone`);
    this.farewell(c, FRAME.detached, { code: 0, message: `detached from cockpit ${this.options.name}: its terminal went away (${why})` });
  }

  /**
   * Takes the client's terminal when it named one that checks out (its
   * output written and its keys read here), else the link carries frames
   * both ways. Tells the client which (the attached frame), before any output.
   */
  chooseWay(c: Client, hello: Hello): void {
    const claim = hello.tty;
    // A claim without the keys (a client of before whose keys came from a pipe) gets frames: the terminal is taken whole or not at all.
    if (claim !== undefined && hello.ttyInput === true) {
      const taken = this.options.directTty === false ? 'TAI_DIRECT_TTY=0' : takeTerminal(claim, (bytes, length) => this.typed(c, bytes, length));
      if (typeof taken === 'string') this.log(`link: frames for a client: ${taken}`);
      else {
        c.tty = taken.output;
        c.input = taken.input;
        taken.output.onDrain(() => this.drained(c));
        taken.output.onError((why) => this.lost(c, claim.path, why));
        taken.input.on('error', (err) => this.lost(c, claim.path, messageOf(err)));
        taken.input.on('end', () => this.lost(c, claim.path, 'end of input'));
        taken.input.resume();
      }
    }
    const way = c.tty === undefined ? 'frames' : 'tty';
    c.socket.write(encodeJson(FRAME.attached, { output: way, input: way } satisfies Attached));
  }

  /** The first frame: a query is answered, a kill ends the cockpit, an attach joins. */
  onHello(c: Client, frame: Frame): void {
    if (frame.type !== FRAME.hello) return this.farewell(c, FRAME.exit, { code: 2, message: 'the first frame must be a hello' });
    const hello = readHello(payloadJson(frame));
    if (typeof hello === 'string') return this.farewell(c, FRAME.exit, { code: 2, message: hello });
    if (hello.mode === 'query') {
      c.socket.end(encodeJson(FRAME.info, { ...this.describe(), clients: this.attached().length }));
      this.clients.delete(c);
      return;
    }
    if (hello.mode === 'kill') {
      c.mode = 'kill'; // it gets the farewell with everyone else
      this.kill();
      return;
    }
    if (this.attached().length >= LINK_CLIENTS_MAX) return this.farewell(c, FRAME.exit, { code: 1, message: `too many clients attached (limit ${LINK_CLIENTS_MAX})` });
    c.mode = 'attach';
    this.everAttached = true;
    this.#firstAttached();
    c.readOnly = hello.readOnly === true;
    if (c.readOnly) c.watch = new DetachKeyWatch(this.options.prefix);
    const size = layoutSize(hello.cols ?? this.cols, hello.rows ?? this.rows);
    c.cols = size.cols;
    c.rows = size.rows;
    c.active = ++this.clock;
    this.chooseWay(c, hello);
    this.follow(); // a new size redraws everything anyway; the modes go to this client alone
    for (const fn of this.attaches) fn((data) => this.send(c, data));
  }

  onFrame(c: Client, frame: Frame): void {
    if (c.mode === 'new') return this.onHello(c, frame);
    if (c.mode !== 'attach') return;
    switch (frame.type) {
      case FRAME.input:
        return c.input === undefined ? this.typed(c, frame.payload) : this.strayKeys(c);
      case FRAME.leave:
        return this.detachClient(c); // a signal told the client to stop: it waits for this d before it writes
      case FRAME.resize: {
        const given = readSize(payloadJson(frame));
        if (given === undefined) return;
        const size = layoutSize(given.cols, given.rows);
        c.cols = size.cols;
        c.rows = size.rows;
        if (!c.readOnly) c.active = ++this.clock;
        this.follow();
        return;
      }
      default:
        return; // a newer client's frame this server does not know: ignored
    }
  }

  /**
   * Input frames from a client whose terminal the server reads itself: keys
   * would come two ways at once, so the frames are dropped (said once). The
   * client stays attached: its terminal's keys still arrive, as tmux's would.
   */
  strayKeys(c: Client): void {
    if (c.strayKeys === true) return;
    c.strayKeys = true;
    this.log(`link: input frames from the client on ${c.tty?.path ?? 'its terminal'} dropped: the server reads that terminal's keys itself`);
  }

  /** Keys from a client (its input frames, or its terminal read here); a read-only one's only for prefix + d. */
  typed(c: Client, bytes: Uint8Array, length = bytes.length): void {
    const text = c.keys.text(bytes, length);
    if (text === '') return;
    if (c.readOnly) {
      if (c.watch?.push(text)) this.detachClient(c);
      return;
    }
    c.active = ++this.clock;
    this.lastTyped = c;
    // c is now the latest writer, so follow() would take its size: only a different one makes it do anything.
    if (c.cols !== this.cols || c.rows !== this.rows) this.follow();
    for (const fn of this.inputs) fn(text);
  }

  /** Says farewell to every client, waits a while for them to take it, closes the socket. */
  async end(words: Farewell, server: Server): Promise<void> {
    if (this.ended) return;
    if (!this.everAttached) {
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([this.first, new Promise<void>((r) => (wait = setTimeout(r, FIRST_CLIENT_WAIT_MS)))]);
      clearTimeout(wait);
    }
    this.ended = true;
    const all = [...this.clients];
    const gone = all.map((c) => new Promise<void>((r) => (c.socket.destroyed ? r() : c.socket.once('close', () => r()))));
    const last = encodeJson(FRAME.exit, { ...words, lines: [...(words.lines ?? []), ...this.epilogue] });
    for (const c of all) {
      if (c.mode === 'attach' || c.mode === 'kill') this.lastFrame(c, last);
      else c.socket.destroy();
    }
    this.clients.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(gone), new Promise<void>((r) => (timer = setTimeout(r, FAREWELL_WAIT_MS)))]);
    clearTimeout(timer);
    for (const c of all) c.socket.destroy();
    await new Promise<void>((r) => server.close(() => r()));
    removeFile(this.options.path);
  }
}
