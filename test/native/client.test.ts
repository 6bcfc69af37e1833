/**
 * The native client (src/native/client.c) as tai runs it (attachTerminal in
 * src/io/link/native-client.ts), and the node client it falls back to with
 * TAI_NATIVE_CLIENT=0, each in a real pty against a real socket that speaks
 * the link's frames (and once against the real link hub): frames split
 * anyhow, a burst of input, a resize, read-only, every way the link ends
 * with its message and exit code, and the terminal restored each time (the
 * LEAVE sequences written, the pty's modes as they were before).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pty from 'node-pty';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeFrame, encodeJson, FRAME, FrameReader, LINK_CHUNK, LINK_VERSION, payloadText, type Frame } from '../../src/core/protocol/link-frames.js';
import { CLIENT_FRAME_MAX } from '../../src/io/link/link-client.js';
import { startLinkHub } from '../../src/io/link/link-hub.js';
import { LEAVE } from '../../src/io/terminal/terminal-modes.js';
import { until, untilPasses } from '../helpers/until.js';
import { testEnv } from '../helpers/test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BINARY = join(ROOT, 'src/native/build/tai-client');
const FIXTURE = join(ROOT, 'test/fixtures/attach-client.mjs');
const hasCc = spawnSync(process.env.CC || 'cc', ['--version']).status === 0;
// The pty's modes before and after the client, and the client's exit code between.
const SCRIPT = 'stty -g; node "$0" "$1" $2; echo "code=$?"; stty -g';

/** A client running in a pty, and the server's end of its link. */
interface Run {
  readonly term: pty.IPty;
  text(): string;
  /** The client's frames, as the server read them. */
  readonly frames: Frame[];
  link(): Socket;
  /** The client's exit code once it printed it, else undefined. */
  code(): number | undefined;
  /** The pty's modes (stty -g) before the client and after it. */
  modes(): { before: string; after: string | undefined };
  /** The pid of the node process that runs the client. */
  pid(): number;
}

let dir: string;
let server: Server;
let accepted: ((s: Socket) => void) | undefined;
const terms: pty.IPty[] = [];

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist/src/io/link/native-client.js'))) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
  if (hasCc) execFileSync(process.execPath, [join(ROOT, 'src/native/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
}, 120_000);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tai-client-'));
  server = createServer((s) => accepted?.(s));
  await new Promise<void>((r) => server.listen(join(dir, 'fake.link'), r));
});

afterEach(async () => {
  for (const t of terms.splice(0)) t.kill('SIGKILL');
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a client of `kind` on a 90x30 pty, attached to `path`; resolves once its hello arrived. */
async function start(
  kind: 'native' | 'node',
  options: { readOnly?: boolean; path?: string; binary?: string; env?: Record<string, string>; input?: 'tty' | 'frames'; pipedIn?: boolean } = {},
): Promise<Run> {
  const frames: Frame[] = [];
  let socket: Socket | undefined;
  accepted = (s) => {
    socket = s;
    const reader = new FrameReader();
    s.on('data', (chunk: Buffer) => {
      const got = reader.push(chunk).frames;
      frames.push(...got);
      // The fake server answers the hello as the hub does: it writes the terminal through frames, and reads it only when told to.
      if (got.some((f) => f.type === FRAME.hello)) s.write(encodeJson(FRAME.attached, { output: 'frames', input: options.input ?? 'frames' }));
    });
    s.on('error', () => {});
  };
  // The shell stays after its last line, as an interactive one does: its exit would hang up the terminal's processes, and node-pty can miss what a pty's last process printed just before it exited.
  const script = options.pipedIn === true ? SCRIPT.replace('node "$0"', 'sleep 30 | node "$0"') : SCRIPT;
  const term = pty.spawn('sh', ['-c', `${script}; exec sleep 60`, FIXTURE, options.path ?? join(dir, 'fake.link'), options.readOnly === true ? '-r' : ''], {
    name: 'xterm-256color',
    cols: 90,
    rows: 30,
    cwd: ROOT,
    env: testEnv({ TAI_NATIVE_CLIENT: kind === 'native' ? (options.binary ?? BINARY) : '0', ...options.env }),
  });
  terms.push(term);
  let text = '';
  term.onData((d) => (text += d));
  // After the client: `code=N`, then the modes (the LEAVE before it has no newline of its own).
  const after = (): RegExpExecArray | null => /code=(\d+)\r\n([^\r]*)\r\n/.exec(text);
  const run: Run = {
    term,
    text: () => text,
    frames,
    link: () => socket as Socket,
    code: () => {
      const m = after();
      return m === null ? undefined : Number(m[1]);
    },
    modes: () => ({ before: text.split('\r\n')[0] ?? '', after: after()?.[2] }),
    pid: () => Number(/pid (\d+)/.exec(text)?.[1]),
  };
  if (options.path === undefined) await until(() => frames.some((f) => f.type === FRAME.hello), { what: 'the hello', explain: () => text });
  return run;
}

/** Waits for the client's exit and checks that it left the terminal as it found it. */
async function ended(run: Run): Promise<number> {
  await until(() => run.modes().after !== undefined, { what: 'the client to exit', explain: () => JSON.stringify(run.text()) });
  const { before, after } = run.modes();
  expect(after).toBe(before);
  expect(run.text()).toContain(LEAVE);
  return run.code() as number;
}

/** The lflag field of `stty -g` has ICANON (0x2) and ECHO (0x8): the terminal is cooked again. */
const cooked = (modes: string): boolean => (parseInt(modes.split(':')[3] ?? '0', 16) & 0xa) === 0xa;

describe.each(hasCc ? (['native', 'node'] as const) : (['node'] as const))('the %s client', (kind) => {
  // The constants are the TypeScript ones: client.c keeps its own copies, and a change on one side alone fails here.
  it('says hello in this link version with the terminal size, read-only when asked, and which terminal it is when its keys come from it too, unless TAI_DIRECT_TTY=0', async () => {
    const a = await start(kind);
    const path = (a.term as unknown as { ptsName: string }).ptsName;
    const { rdev, dev } = statSync(path);
    expect(payloadText(a.frames[0] as Frame)).toBe(`{"version":${LINK_VERSION},"mode":"attach","cols":90,"rows":30,"tty":{"path":"${path}","rdev":${rdev},"dev":${dev}},"ttyInput":true}`);
    const b = await start(kind, { readOnly: true, env: { TAI_DIRECT_TTY: '0' } });
    expect(payloadText(b.frames[0] as Frame)).toBe(`{"version":${LINK_VERSION},"mode":"attach","cols":90,"rows":30,"readOnly":true}`);
    // Keys from a pipe are not the terminal's: the terminal is offered whole or not at all, and the link carries frames.
    const c = await start(kind, { pipedIn: true });
    expect(payloadText(c.frames[0] as Frame)).toBe(`{"version":${LINK_VERSION},"mode":"attach","cols":90,"rows":30}`);
  });

  it('leaves its terminal unread when the server says it reads it, and relays only the size', async () => {
    const run = await start(kind, { input: 'tty' });
    run.term.write('typed');
    run.link().write(encodeFrame(FRAME.output, 'marker'));
    await until(() => run.text().includes('marker'), { what: 'the output' });
    run.term.resize(100, 40);
    await untilPasses(() => expect(run.frames.filter((f) => f.type === FRAME.resize).map(payloadText)).toEqual(['{"cols":100,"rows":40}']));
    expect(run.frames.filter((f) => f.type === FRAME.input)).toEqual([]);
  });

  it('writes output split anyhow across reads whole and in order, skipping frames it does not know', async () => {
    const run = await start(kind);
    const bytes = Buffer.concat([
      encodeFrame(FRAME.output, 'héllo '),
      encodeFrame(FRAME.output, ''),
      Buffer.from([0x7a, 0, 0, 0, 13]), // a newer server's frame type
      Buffer.from('a newer frame'),
      encodeFrame(FRAME.output, 'wörld'),
    ]);
    for (let at = 0; at < bytes.length; at++) {
      await new Promise<void>((r) => run.link().write(bytes.subarray(at, at + 1), () => r()));
    }
    run.link().write(Buffer.concat([encodeFrame(FRAME.output, ' and'), encodeFrame(FRAME.output, ' more')]));
    await until(() => run.text().includes('héllo wörld and more'), { what: 'the output', explain: () => run.text() });
    expect(run.text()).not.toContain('a newer frame');
  });

  it('relays a burst of keys raw, unechoed and in order, in frames of at most 64 KiB, and a new size', async () => {
    const run = await start(kind);
    const burst = Array.from({ length: 30_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('') + '\r';
    run.term.write(burst);
    const typed = (): string => run.frames.filter((f) => f.type === FRAME.input).map(payloadText).join('');
    await until(() => typed().length >= burst.length, { what: 'the burst', explain: () => `${typed().length} bytes` });
    expect(typed()).toBe(burst); // no line discipline: nothing held for a newline, \r not made \n
    expect(run.frames.every((f) => f.payload.length <= LINK_CHUNK)).toBe(true);
    expect(run.frames.filter((f) => f.type === FRAME.input).length).toBeGreaterThan(0);
    expect(run.text()).not.toContain('abcdefgh'); // raw: the terminal echoes nothing
    run.term.resize(100, 40);
    await untilPasses(() => expect(run.frames.filter((f) => f.type === FRAME.resize).map(payloadText)).toEqual(['{"cols":100,"rows":40}']));
  });

  it('prints the detach message, restores the terminal and exits 0', async () => {
    const run = await start(kind);
    run.link().write(encodeJson(FRAME.detached, { code: 0, message: 'detached from cockpit night; tai attach night comes back' }));
    expect(await ended(run)).toBe(0);
    expect(run.text()).toContain('tai: detached from cockpit night; tai attach night comes back\r\n');
  });

  it("exits with the cockpit's code and prints its lines when the cockpit ends", async () => {
    const run = await start(kind);
    run.link().write(Buffer.concat([encodeFrame(FRAME.output, 'bye'), encodeJson(FRAME.exit, { code: 3, message: 'the main program failed', lines: ['its last line'] })]));
    expect(await ended(run)).toBe(3);
    expect(run.text()).toMatch(/bye[^]*tai: the main program failed\r\nits last line\r\n/);
  });

  it('restores the terminal and says so when the server vanishes without a word', async () => {
    const run = await start(kind);
    run.link().write(encodeFrame(FRAME.output, '\x1b[?1049h\x1b[?1000h'));
    await until(() => run.text().includes('\x1b[?1000h'), { what: 'the modes on' });
    run.link().destroy(); // what a server killed with SIGKILL leaves
    expect(await ended(run)).toBe(1);
    expect(run.text()).toContain('tai: cockpit night ended without a word (its server was killed?); its log: /the/log\r\n');
  });

  it('refuses a frame over its limit before reading it', async () => {
    const run = await start(kind);
    const header = Buffer.from([FRAME.output, 0, 0, 0, 0]);
    header.writeUInt32BE(CLIENT_FRAME_MAX + 1, 1);
    run.link().write(header);
    expect(await ended(run)).toBe(1);
    expect(run.text()).toContain(`tai: the link to cockpit night broke: link frame too long (${CLIENT_FRAME_MAX + 1} bytes, limit ${CLIENT_FRAME_MAX})\r\n`);
  });

  it('detaches on SIGTERM to tai (asking the server to let go of the terminal first), and goes quietly on SIGHUP', async () => {
    const run = await start(kind);
    await until(() => run.pid() > 0, { what: 'the pid' });
    process.kill(run.pid(), 'SIGTERM');
    await until(() => run.frames.some((f) => f.type === FRAME.leave), { what: 'the leave frame' });
    expect(run.text()).not.toContain(LEAVE); // it waits for the farewell before it writes
    run.link().write(encodeJson(FRAME.detached, { code: 0, message: 'detached from cockpit night' }));
    expect(await ended(run)).toBe(0);
    expect(run.text()).toContain('tai: detached from cockpit night (SIGTERM); tai attach night comes back\r\n');
    const quiet = await start(kind);
    await until(() => quiet.pid() > 0, { what: 'the pid' });
    process.kill(quiet.pid(), 'SIGHUP');
    expect(await ended(quiet)).toBe(0);
    expect(quiet.text()).not.toContain('tai: ');
  });

  it('shows a real link hub, written straight to its terminal, and relays its keys until detached, nothing of the hub after its farewell; and a read-only one until prefix + d', async () => {
    const hub = await startLinkHub({ path: join(dir, 'hub.link'), name: 'night', prefix: '\x1d', cols: 80, rows: 24, log: () => {} });
    try {
      const typed: string[] = [];
      hub.terminal.onInput((data) => typed.push(data));
      const run = await start(kind, { path: join(dir, 'hub.link') });
      await until(() => hub.clients() === 1, { what: 'the client attached', explain: () => run.text() });
      expect(hub.direct()).toBe(1);
      hub.terminal.write('a frame');
      await until(() => run.text().includes('a frame'), { what: 'the frame' });
      run.term.write('ls\r');
      await until(() => typed.join('') === 'ls\r', { what: 'the keys' });
      // More than the terminal takes at once, then the prefix + d of the client that typed last.
      hub.terminal.write(`${'z'.repeat(1_048_576)}LAST`);
      expect(hub.terminal.detach()).toBeUndefined();
      expect(await ended(run)).toBe(0);
      const text = run.text();
      expect(text.indexOf('LAST')).toBeGreaterThan(0);
      expect(text.indexOf('LAST')).toBeLessThan(text.indexOf(LEAVE));
      expect(text.slice(text.indexOf(LEAVE))).not.toContain('z');
      expect(text).toContain('tai: detached from cockpit night; tai attach night comes back (its agents go on)\r\n');

      const signalled = await start(kind, { path: join(dir, 'hub.link') });
      await until(() => hub.clients() === 1 && signalled.pid() > 0, { what: 'the client attached again' });
      hub.terminal.write(`${'z'.repeat(1_048_576)}LAST`);
      process.kill(signalled.pid(), 'SIGTERM'); // told to stop: it asks to leave and waits for the hub's farewell
      expect(await ended(signalled)).toBe(0);
      const told = signalled.text();
      expect(told.indexOf('LAST')).toBeGreaterThan(0);
      expect(told.indexOf('LAST')).toBeLessThan(told.indexOf(LEAVE));
      expect(told).toContain('tai: detached from cockpit night (SIGTERM); tai attach night comes back\r\n');

      const watcher = await start(kind, { path: join(dir, 'hub.link'), readOnly: true });
      await until(() => hub.clients() === 1, { what: 'the read-only client attached' });
      watcher.term.write('rm -rf\r\x1dd');
      expect(await ended(watcher)).toBe(0);
      expect(typed.join('')).toBe('ls\r');
    } finally {
      await hub.end({ code: 0 });
    }
  });
});

describe.skipIf(!hasCc)('the native client on its own', () => {
  it('restores the modes it found and reports how the link ended, with no tai around it', async () => {
    let link: Socket | undefined;
    accepted = (s) => (link = s);
    const report = join(dir, 'report');
    const script = `stty -g; "$0" --link "$1" --report "$2"; echo "code=$?"; stty -g`;
    const term = pty.spawn('sh', ['-c', script, BINARY, join(dir, 'fake.link'), report], { name: 'xterm-256color', cols: 90, rows: 30 });
    terms.push(term);
    let text = '';
    term.onData((d) => (text += d));
    await until(() => link !== undefined, { what: 'the connection' });
    (link as Socket).destroy();
    await until(() => /code=1\r\n[^\r]*\r\n/.test(text), { what: 'the exit', explain: () => JSON.stringify(text) });
    const [, after] = /code=1\r\n([^\r]*)\r\n/.exec(text) ?? [];
    expect(after).toBe(text.split('\r\n')[0]);
    expect(text).toContain(LEAVE);
    expect(readFileSync(report, 'utf8')).toBe('closed\n');
  });
});

describe.skipIf(!hasCc)('tai waiting on the native client', () => {
  it('attaches with the node client when the native one cannot start', async () => {
    const run = await start('native', { binary: join(dir, 'no-such-client') });
    run.link().write(encodeJson(FRAME.detached, { code: 0, message: 'detached from cockpit night' }));
    expect(await ended(run)).toBe(0);
    expect(run.text()).toContain('tai: detached from cockpit night\r\n');
  });

  it('attaches with the node client when the native one was built for another machine (the kernel refuses it)', async () => {
    const foreign = join(dir, 'foreign-client');
    writeFileSync(foreign, Buffer.from('\x7fELF\x02\x01\x01\x00not for this machine'), { mode: 0o755 });
    const run = await start('native', { binary: foreign });
    run.link().write(encodeJson(FRAME.detached, { code: 0, message: 'detached from cockpit night' }));
    expect(await ended(run)).toBe(0);
    expect(run.text()).toContain('tai: detached from cockpit night\r\n');
  });

  it('ends the client, terminal restored, when tai itself is killed with SIGKILL (it would read the terminal beside the shell)', async () => {
    const run = await start('native');
    await until(() => run.pid() > 0, { what: 'the pid' });
    const child = Number(readFileSync(`/proc/${run.pid()}/task/${run.pid()}/children`, 'utf8').trim());
    expect(child).toBeGreaterThan(0);
    process.kill(run.pid(), 'SIGKILL');
    await until(() => !existsSync(`/proc/${child}`) || readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true, {
      what: 'the client to end',
      explain: () => run.text(),
    });
    await until(() => run.text().includes(LEAVE), { what: 'the terminal restored', explain: () => JSON.stringify(run.text()) });
  });

  it('restores the terminal itself when the client is killed with SIGKILL', async () => {
    const run = await start('native');
    await until(() => run.pid() > 0, { what: 'the pid' });
    const child = Number(readFileSync(`/proc/${run.pid()}/task/${run.pid()}/children`, 'utf8').trim());
    expect(child).toBeGreaterThan(0);
    process.kill(child, 'SIGKILL');
    await until(() => run.modes().after !== undefined, { what: 'tai to exit', explain: () => run.text() });
    expect(run.code()).toBe(1);
    expect(run.text()).toContain(LEAVE);
    expect(cooked(run.modes().after as string)).toBe(true);
    expect(run.text()).toContain('tai: the client of cockpit night ended by SIGKILL; tai attach night comes back\r\n');
  });
});
