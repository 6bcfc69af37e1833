/**
 * The socket's place and privacy: the folder (0700, ours, a real directory),
 * the socket (0600), a stale socket replaced, a live one refused, and the
 * file removed when the server closes.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { call, resolveSocket } from '../../../src/io/socket/control-client.js';
import { ensureSocketDir, processAlive, socketDir, socketPath, SocketPathError, sweepDeadSockets } from '../../../src/io/socket/socket-path.js';
import { startControlServer } from '../../../src/io/socket/socket-server.js';
import { createBoard } from '../../../store/board.js';
import { exchange } from './socket-harness.js';

let base: string;
afterEach(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});
const fresh = (): string => (base = mkdtempSync(join(tmpdir(), 'tai-path-')));

/** Leaves a socket file behind with nobody listening: a child listens, then is killed. */
async function staleSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  expect(statSync(path).isSocket()).toBe(true);
}

describe('where the socket lives', () => {
  test('is $XDG_RUNTIME_DIR/tai/tai-<pid>.sock, or /tmp/tai-<uid>/ without XDG_RUNTIME_DIR', () => {
    expect(socketPath(42, socketDir({ XDG_RUNTIME_DIR: '/run/user/1000' }))).toBe('/run/user/1000/tai/tai-42.sock');
    expect(socketPath(42, socketDir({}))).toBe(`/tmp/tai-${process.getuid?.() ?? 0}/tai-42.sock`);
  });
});

describe('the folder', () => {
  test('is created 0700', () => {
    const dir = join(fresh(), 'tai');
    ensureSocketDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  test('is refused when others can enter it', () => {
    const dir = join(fresh(), 'tai');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    expect(() => ensureSocketDir(dir)).toThrow(
      new SocketPathError(
        `the socket folder ${dir} is open to others (mode 755); refusing to use it: run chmod 700 ${dir} (and remove any socket in it you did not make)`,
      ),
    );
  });

  test('is refused when it is a symlink or a file', () => {
    const real = join(fresh(), 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(base, 'link'));
    expect(() => ensureSocketDir(join(base, 'link'))).toThrow(SocketPathError);
    writeFileSync(join(base, 'file'), '');
    expect(() => ensureSocketDir(join(base, 'file'))).toThrow(/is not a directory/);
  });

  test.runIf(process.getuid?.() === 0)('is refused when another user owns it', () => {
    const dir = join(fresh(), 'tai');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 1234, 1234);
    expect(() => ensureSocketDir(dir)).toThrow(
      new SocketPathError(
        `the socket folder ${dir} belongs to user 1234, not to you (0); refusing to use it: another user may be listening there. ` +
          'Have it removed (it is not yours to remove), or set XDG_RUNTIME_DIR to a folder of your own',
      ),
    );
  });
});

describe('the socket', () => {
  test('is 0600, answers, and is removed when the server closes', async () => {
    const path = join(fresh(), 'tai', 'tai-1.sock');
    const server = await startControlServer({ board: createBoard(), path });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await exchange(path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":true,"data":[]}\n');
    await server.close();
    expect(existsSync(path)).toBe(false);
  });

  const built = fileURLToPath(new URL('../../../dist/src/io/socket/socket-server.js', import.meta.url));
  test.runIf(existsSync(built))('is removed when the process exits without closing the server', async () => {
    const path = join(fresh(), 'tai', 'tai-exit.sock');
    const board = pathToFileURL(fileURLToPath(new URL('../../../dist/store/board.js', import.meta.url))).href;
    const script =
      `const { startControlServer } = await import(${JSON.stringify(pathToFileURL(built).href)});` +
      `const { createBoard } = await import(${JSON.stringify(board)});` +
      `await startControlServer({ board: createBoard(), path: ${JSON.stringify(path)} });` +
      `process.stdout.write('up\\n'); process.stdin.once('data', () => process.exit(0));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    expect(statSync(path).isSocket()).toBe(true);
    child.stdin.write('bye\n');
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    expect(existsSync(path)).toBe(false);
  });

  test('a stale socket of a dead process is replaced', async () => {
    const dir = join(fresh(), 'tai');
    ensureSocketDir(dir);
    const path = join(dir, 'control.sock');
    await staleSocket(path);
    const server = await startControlServer({ board: createBoard(), path });
    expect(await exchange(path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":true,"data":[]}\n');
    await server.close();
  });

  test('a socket another cockpit serves is refused', async () => {
    const path = join(fresh(), 'tai', 'control.sock');
    const first = await startControlServer({ board: createBoard(), path });
    await expect(startControlServer({ board: createBoard(), path })).rejects.toThrow(`another cockpit is already serving ${path}`);
    await first.close();
  });

  test('sockets of dead cockpits in the folder are swept', async () => {
    const dir = join(fresh(), 'tai');
    ensureSocketDir(dir);
    // pid 2^22 + 1 is above the largest pid Linux hands out.
    await staleSocket(join(dir, 'tai-4194305.sock'));
    expect(sweepDeadSockets(dir)).toBe(1);
    expect(existsSync(join(dir, 'tai-4194305.sock'))).toBe(false);
  });
});

/**
 * Another local user pre-creates the socket folder (XDG_RUNTIME_DIR here
 * stands for /tmp, so the test never touches the real /tmp/tai-<uid>) and
 * listens in it as a cockpit with a live pid would (pid 1 is always alive).
 */
describe('a socket folder someone else prepared', () => {
  let attacker: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
    attacker = undefined;
  });

  /** The env of a user whose socket folder is `<base>/tai`, with an attacker's socket `tai-1.sock` in it; returns how often it was reached. */
  async function prepared(how: 'other owner' | 'open to all'): Promise<{ env: NodeJS.ProcessEnv; dir: string; reached: { n: number } }> {
    const env = { XDG_RUNTIME_DIR: fresh(), XDG_STATE_HOME: join(base, 'state') };
    const dir = socketDir(env);
    mkdirSync(dir, { mode: 0o700 });
    const reached = { n: 0 };
    attacker = createServer((s) => {
      reached.n++;
      s.end('{"ok":true,"data":{"id":1,"cancelled":true}}\n');
    });
    await new Promise<void>((resolve) => attacker?.listen(join(dir, 'tai-1.sock'), () => resolve()));
    if (how === 'other owner') {
      chownSync(join(dir, 'tai-1.sock'), 65_534, 65_534);
      chownSync(dir, 65_534, 65_534);
    } else chmodSync(dir, 0o777);
    return { env, dir, reached };
  }

  test.runIf(process.getuid?.() === 0)('is refused by the client when another user owns it, naming the folder, its owner and what to do', async () => {
    const { env, dir, reached } = await prepared('other owner');
    expect(resolveSocket(undefined, env)).toEqual({
      why:
        `the socket folder ${dir} belongs to user 65534, not to you (0); refusing to use it: another user may be listening there. ` +
        'Have it removed (it is not yours to remove), or set XDG_RUNTIME_DIR to a folder of your own. ' +
        'no cockpit reachable: start one by running `tai` (then use tai inside it, or pass --socket PATH / set TAI_PLEXER_SOCKET)',
    });
    expect(reached.n).toBe(0);
  });

  test('is refused by the client when it is open to everyone (0777)', async () => {
    const { env, dir, reached } = await prepared('open to all');
    const found = resolveSocket(undefined, env);
    expect(found.path).toBeUndefined();
    expect(found.path === undefined && found.why).toContain(
      `the socket folder ${dir} is open to others (mode 777); refusing to use it: run chmod 700 ${dir} (and remove any socket in it you did not make).`,
    );
    expect(reached.n).toBe(0);
  });

  test.runIf(process.getuid?.() === 0)('makes the cockpit listen in a private folder of the state folder, say so, and the client finds it there', async () => {
    const { env, dir, reached } = await prepared('other owner');
    const server = await startControlServer({ board: createBoard(), path: socketPath(process.pid, socketDir(env)), env });
    try {
      const safe = join(base, 'state', 'tai', 'sockets');
      expect(server.path).toBe(join(safe, `tai-${process.pid}.sock`));
      expect(lstatSync(safe).mode & 0o777).toBe(0o700);
      expect(statSync(server.path).mode & 0o777).toBe(0o600);
      expect(server.warning).toBe(
        `the socket folder ${dir} belongs to user 65534, not to you (0); refusing to use it: another user may be listening there. ` +
          `Have it removed (it is not yours to remove), or set XDG_RUNTIME_DIR to a folder of your own. ` +
          `The control socket is at ${server.path} instead (tai finds it there)`,
      );
      const found = resolveSocket(undefined, env);
      expect(found).toEqual({ path: server.path });
      expect(await call(server.path, { cmd: 'vpane_list' })).toEqual({ ok: true, data: [] });
      expect(reached.n).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('a process that is gone', () => {
  test.runIf(existsSync('/proc/self/stat'))('counts a zombie as gone: killed, not yet reaped, its card and sockets are stale', async () => {
    // `sleep 30` inherits the shell's child `true` and never reaps it: a zombie that kill(pid, 0) still finds.
    const parent = spawn('sh', ['-c', 'true & exec sleep 30'], { stdio: 'ignore' });
    try {
      const zombie = await new Promise<number>((resolve, reject) => {
        const started = Date.now();
        const look = (): void => {
          const kids = readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
          const z = kids.find((k) => readFileSync(`/proc/${k}/stat`, 'utf8').includes(') Z '));
          if (z !== undefined) resolve(z);
          else if (Date.now() - started > 10_000) reject(new Error('no zombie appeared'));
          else setImmediate(look);
        };
        look();
      });
      expect(() => process.kill(zombie, 0)).not.toThrow();
      expect(processAlive(zombie)).toBe(false);
      expect(processAlive(parent.pid ?? 0)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
