/**
 * A live control socket for tests: a real board with real screens, a real
 * server on a socket in a private temp folder, and a fake clock the test
 * moves by hand. Raw helpers speak bytes so conformance tests can compare
 * replies byte for byte.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentService } from '../../../src/core/agents/agent-service.js';
import { xtermScreens, type XtermScreen } from '../../../src/io/terminal/screen.js';
import { startControlServer, type ControlServer } from '../../../src/io/socket/socket-server.js';
import { createBoard, type Board, type BoardCounters } from '../../../store/board.js';
import { FakeClock } from '../../helpers/fake-clock.js';

/** What a test gets. */
export interface Harness {
  readonly dir: string;
  readonly path: string;
  readonly board: Board & { counters: BoardCounters };
  readonly server: ControlServer;
  /** The fake time every request is dispatched at (ms). */
  readonly clock: FakeClock;
  /** Moves the fake clock and runs the board's tick at the new time. */
  advance(ms: number): void;
  /** Flushes pending output into screens and waits until they parsed it; returns the screen's rows. */
  screenText(id: number): Promise<string[]>;
  stop(): Promise<void>;
}

/** Starts a board and a server; the board is `cols` x `rows`. */
export async function startHarness(
  options: {
    cols?: number;
    rows?: number;
    agents?: AgentService;
    idleTimeoutMs?: number;
    lineMaxBytes?: number;
    maxLive?: number;
    connectionsMax?: number;
    replyMaxBytes?: number;
    requestDeadlineMs?: number;
  } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'tai-sock-'));
  const path = join(dir, 'control.sock');
  const clock = new FakeClock(1_000_000);
  const board = createBoard({
    createScreen: xtermScreens,
    cols: options.cols ?? 120,
    rows: options.rows ?? 39,
    ...(options.maxLive === undefined ? {} : { maxLive: options.maxLive }),
  });
  const server = await startControlServer({
    board,
    path,
    now: clock.now,
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    ...(options.lineMaxBytes === undefined ? {} : { lineMaxBytes: options.lineMaxBytes }),
    ...(options.connectionsMax === undefined ? {} : { connectionsMax: options.connectionsMax }),
    ...(options.replyMaxBytes === undefined ? {} : { replyMaxBytes: options.replyMaxBytes }),
    ...(options.requestDeadlineMs === undefined ? {} : { requestDeadlineMs: options.requestDeadlineMs }),
  });
  return {
    dir,
    path,
    board,
    server,
    clock,
    advance(ms) {
      clock.t += ms;
      board.getState().tick(clock.t);
    },
    async screenText(id) {
      clock.t += 1_000;
      board.getState().flush(clock.t);
      const screen = board.getState().screenOf(id) as XtermScreen | undefined;
      if (!screen) throw new Error(`pane ${id} has no screen`);
      await screen.parsed();
      return screen.text();
    },
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens a connection, writes `bytes` as they are, and collects what comes
 * back until `replies` lines arrived or the server hung up.
 */
export function exchange(path: string, bytes: string | Buffer, replies = 1, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    let got = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no reply within ${timeoutMs} ms; got ${JSON.stringify(got)}`));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(got);
    };
    sock.on('data', (chunk: Buffer) => {
      got += chunk.toString('utf8');
      if (got.split('\n').length - 1 >= replies) done();
    });
    sock.on('close', done);
    sock.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    sock.write(bytes);
  });
}
