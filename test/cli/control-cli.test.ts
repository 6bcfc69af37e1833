/**
 * `tai vpane`, `tai status` and `tai cancel` against a live cockpit socket:
 * printed replies and exit codes (0 ok, 1 error reply, 2 no cockpit). The
 * subcommands' run() is called directly; streaming standard input runs the
 * built CLI (`npm test` builds first).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { run as cancel } from '../../src/cli/spawn/cancel.js';
import { run as status } from '../../src/cli/results/status.js';
import { run as vpane } from '../../src/cli/cockpit/vpane.js';
import { AgentsStore } from '../../src/io/storage/agents-store.js';
import { openStateDb } from '../../src/io/storage/state-db.js';
import { startHarness, type Harness } from '../io/socket/socket-harness.js';
import { runTai, TAI_CLI as cli } from '../helpers/tai-cli.js';
import { testEnv } from '../helpers/test-env.js';

let h: Harness;
let out: string;
let err: string;

beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await h?.stop();
});

describe('tai vpane', () => {
  test('open, write, list and close print for a person: the id, nothing, a table, a line', async () => {
    h = await startHarness();
    const s = ['--socket', h.path];
    expect(await vpane(['open', '--label', 'job', '--header', ' ● job \u001b]0;t\u0007', '--state', 'running', ...s])).toBe(0);
    expect(out).toBe('1\n');
    out = '';
    expect(await vpane(['write', '1', 'hello', ...s])).toBe(0);
    expect(out).toBe('');
    expect(await vpane(['list', ...s])).toBe(0);
    expect(out).toBe('PANE  STATE      SIZE     LEASE    HEADER\n1     running    53x38    open      ● job \n'); // the OSC title is gone
    out = '';
    expect(await vpane(['close', '1', ...s])).toBe(0);
    expect(out).toBe('closed pane 1\n');
    expect(err).toBe('');
  });

  test('with --json, open, write, list and close print the replies and exit 0', async () => {
    h = await startHarness();
    const s = ['--socket', h.path, '--json'];
    expect(await vpane(['open', '--label', 'job', '--header', ' ● job', '--state', 'running', ...s])).toBe(0);
    expect(out).toBe('{"ok":true,"data":{"id":1,"cols":53,"rows":38}}\n');
    out = '';
    expect(await vpane(['write', '1', 'hello\nworld', ...s])).toBe(0);
    expect(out).toBe('{"ok":true,"data":{"closed":[],"cols":{"1":53}}}\n');
    expect((await h.screenText(1)).slice(0, 2)).toEqual(['hello', 'world']);
    out = '';
    expect(await vpane(['list', ...s])).toBe(0);
    expect(JSON.parse(out)).toEqual({ ok: true, data: [{ id: 1, state: 'running', header: ' ● job', cols: 53, rows: 38, closing: false }] });
    out = '';
    expect(await vpane(['write', '1', '', '--done', '--linger', '5', '--state', 'done', ...s])).toBe(0);
    expect(await vpane(['close', '1', ...s])).toBe(0);
    expect(out).toContain('{"ok":true,"data":null}\n');
  });

  test('DATA over 16 ops of 65536 bytes goes in several writes', async () => {
    h = await startHarness();
    await vpane(['open', '--label', 'big', '--socket', h.path]);
    out = '';
    expect(await vpane(['write', '1', 'x'.repeat(17 * 65_536 + 5), '--raw', '--json', '--socket', h.path])).toBe(0);
    expect(out).toBe('{"ok":true,"data":{"closed":[],"cols":{"1":53}}}\n');
    expect(h.server.counters.requests).toBe(3);
  });

  test('an error reply goes to stderr and exits 1 (the reply on stdout with --json)', async () => {
    h = await startHarness();
    expect(await vpane(['close', '7', '--socket', h.path])).toBe(1);
    expect(out).toBe('');
    expect(err).toBe('tai vpane: no such pane: 7\n');
    err = '';
    expect(await vpane(['close', '7', '--json', '--socket', h.path])).toBe(1);
    expect(out).toBe('{"ok":false,"error":"no such pane: 7"}\n');
  });

  test('writing to a pane that is not there is an error: no such pane, exit 1 (with --json, the reply too)', async () => {
    h = await startHarness();
    expect(await vpane(['write', '3', 'x', '--socket', h.path])).toBe(1);
    expect(out).toBe('');
    expect(err).toBe('tai vpane: no such pane 3 (it may have closed)\n');
    err = '';
    expect(await vpane(['write', '3', 'x', '--json', '--socket', h.path])).toBe(1);
    expect(out).toBe('{"ok":true,"data":{"closed":[3],"cols":{}}}\n');
    expect(err).toBe('tai vpane: no such pane 3 (it may have closed)\n');
  });

  test('no cockpit reachable exits 2 and says how to start one', async () => {
    h = await startHarness();
    expect(await vpane(['list', '--socket', join(h.dir, 'nobody.sock')])).toBe(2);
    expect(err).toContain('start one by running `tai`');
    err = '';
    vi.stubEnv('TAI_PLEXER_SOCKET', '');
    vi.stubEnv('XDG_RUNTIME_DIR', mkdtempSync(join(tmpdir(), 'tai-empty-')));
    expect(await vpane(['list'])).toBe(2);
    expect(err).toContain('no cockpit reachable: start one by running `tai`');
  });

  test('TAI_PLEXER_SOCKET names the cockpit', async () => {
    h = await startHarness();
    vi.stubEnv('TAI_PLEXER_SOCKET', h.path);
    expect(await vpane(['list'])).toBe(0);
    expect(out).toBe('no feed panes\n');
  });

  test('a command line that makes no sense exits 64 with the usage', async () => {
    expect(await vpane(['write', 'x'])).toBe(64);
    expect(err).toContain('usage:');
    expect(await vpane(['open', '--state', 'happy'])).toBe(64);
  });

  test.runIf(existsSync(cli))('the built CLI streams standard input into a pane', async () => {
    h = await startHarness();
    await vpane(['open', '--label', 'stream', '--socket', h.path]);
    const child = spawn(process.execPath, [cli, 'vpane', 'write', '1', '--done', '--linger', '0', '--json', '--socket', h.path], { env: testEnv() });
    let childOut = '';
    child.stdout.on('data', (c: Buffer) => (childOut += c.toString()));
    child.stdin.write('line one\n');
    child.stdin.end('line two ✓\n');
    // 'close', not 'exit': the exit can come before the last stdout chunk is read.
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(childOut).toBe('{"ok":true,"data":{"closed":[],"cols":{"1":53}}}\n');
    expect((await h.screenText(1)).slice(0, 2)).toEqual(['line one', 'line two ✓']);
    h.advance(1_000);
    expect(h.board.getState().panels).toEqual([]);
  });

  test.runIf(existsSync(cli))('the built CLI: a write to a pane that never existed says so on stderr and exits 1; --main-percent 200 is refused', async () => {
    h = await startHarness();
    expect(await runTai(['vpane', 'write', '999', 'hi', '--socket', h.path])).toEqual({ code: 1, out: '', err: 'tai vpane: no such pane 999 (it may have closed)\n' });
    const refused = await runTai(['vpane', 'open', '--main-percent', '200', '--socket', h.path]);
    expect(refused.code).toBe(64);
    expect(refused.err.split('\n')[0]).toBe("tai vpane: --main-percent takes a whole number from 1 to 99, got '200'");
    expect(h.server.counters.requests).toBe(1);
    const opened = await runTai(['vpane', 'open', '--main-percent', '60', '--socket', h.path]);
    expect(opened).toEqual({ code: 0, out: '1\n', err: '' });
  });
});

describe('tai status', () => {
  test('prints totals and one line per panel, or the JSON with --json', async () => {
    h = await startHarness();
    const fixer = h.board.getState().open({ label: 'fixer' }, h.clock.t - 12_000);
    await vpane(['open', '--label', 'feed', '--socket', h.path]);
    out = '';
    expect(await status(['--socket', h.path])).toBe(0);
    expect(out).toBe(['1 agent, 1 feed pane: 2 running', '  #1    running      12s  fixer  · 0 tools · 0 tokens', '  #2    running       0s  feed  · feed pane', ''].join('\n'));
    // One of each is singular.
    h.board.getState().emit(fixer, { type: 'tool_start', name: 'read', args: '' }, h.clock.t);
    h.board.getState().emit(fixer, { type: 'usage', tokens: 1 }, h.clock.t);
    out = '';
    expect(await status(['--socket', h.path])).toBe(0);
    expect(out.split('\n')[1]).toBe('  #1    running      12s  fixer  · 1 tool · 1 token');
    out = '';
    expect(await status(['--json', '--socket', h.path])).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ totals: { running: 2, total: 2 }, agents: [{ id: 1 }, { id: 2 }] });
  });

  test('prints a hostile label and reason, live and stored, as one plain line each', async () => {
    h = await startHarness();
    const title = '\x1b]0;pwned\x07';
    const id = h.board.getState().open({ label: `evil${title}\x1b[6n\nfake` }, h.clock.t);
    h.board.getState().finish(id, 'failed', `boom\x1b]52;c;eA==\x07\u009b2J\nline two`, h.clock.t);
    await vpane(['open', '--label', `feed\x1b]0;x\x07\r\x1b[31mred`, '--socket', h.path]);
    out = '';
    expect(await status(['--socket', h.path])).toBe(0);
    expect(out.split('\n')).toEqual([
      '1 agent, 1 feed pane: 1 running, 1 failed',
      '  #1    failed        0s  evil fake  · 0 tools · 0 tokens  · boom line two',
      '  #2    running       0s  feedred  · feed pane',
      '',
    ]);
    out = '';
    expect(await status(['--json', '--socket', h.path])).toBe(0);
    expect(out).not.toMatch(/[\x1b\x07\x80-\x9f]/);

    const state = mkdtempSync(join(tmpdir(), 'tai-state-'));
    vi.stubEnv('XDG_STATE_HOME', state);
    const db = openStateDb(join(state, 'tai', 'tai.db'));
    new AgentsStore(db).save({
      run: `${process.pid}-9`, id: 1, kind: 'codex', label: `stored${title}`, task: 't', state: 'failed', startedAt: Date.now(), finishedAt: Date.now(),
      reason: `turn failed${title}\x1b[6n`, recordId: null, chars: 0, exitCode: 1, text: '', tools: 0, tokens: 0,
    });
    db.close();
    out = '';
    expect(await status(['--socket', join(h.dir, 'none.sock')])).toBe(0);
    expect(out.split('\n')[2]).toMatch(new RegExp(`^ {2}${process.pid}/1 +failed +\\d+s {2}stored {2}· 0 tools · 0 tokens {2}· turn failed$`));
    expect(out + err).not.toMatch(/[\x1b\x07\x80-\x9f]/);
  });

  test('no cockpit reachable and nothing stored exits 2', async () => {
    h = await startHarness();
    vi.stubEnv('XDG_STATE_HOME', mkdtempSync(join(tmpdir(), 'tai-state-')));
    expect(await status(['--socket', join(h.dir, 'none.sock')])).toBe(2);
    expect(out).toBe('');
  });

  test.runIf(existsSync(cli))('no cockpit reachable: the last run stored, labelled as stored; --all every run, each id PID/ID', async () => {
    h = await startHarness();
    const state = mkdtempSync(join(tmpdir(), 'tai-state-'));
    const db = openStateDb(join(state, 'tai', 'tai.db'));
    const store = new AgentsStore(db);
    const row = { kind: 'command', task: 'fix it', startedAt: Date.now() - 5_000, reason: '', recordId: null, chars: 0, exitCode: null, text: '', tools: 2, tokens: 30 };
    // A run whose supervisor is gone (its rows are settled) and this process's live run: both have an agent #1.
    store.save({ ...row, run: '999999999-1', id: 1, label: 'old job', state: 'running', startedAt: Date.now() - 60_000, finishedAt: null });
    store.save({ ...row, run: `${process.pid}-2`, id: 1, label: 'fixer', state: 'running', finishedAt: null });
    db.close();
    const env = { XDG_STATE_HOME: state, TAI_PLEXER_SOCKET: '' };
    const none = ['--socket', join(h.dir, 'none.sock')];
    const last = await runTai(['status', ...none], env);
    expect(last.code).toBe(0);
    expect(last.err).toContain('tai status: no cockpit at ');
    const db0 = join(state, 'tai', 'tai.db');
    expect(last.out.split('\n')[0]).toBe(`agents of the last run (tai status --all: every run) as stored in ${db0} (not live)`);
    expect(last.out.split('\n').slice(1)).toEqual(['1 agent: 1 running', expect.stringMatching(new RegExp(`^ {2}${process.pid}/1 +running +\\d+s {2}fixer {2}· 2 tools · 30 tokens$`)), '']);

    const all = await runTai(['status', '--all'], env);
    expect(all.code).toBe(0);
    const lines = all.out.split('\n');
    expect(lines[0]).toBe(`agents of every run as stored in ${db0} (not live)`);
    expect(lines[1]).toBe('2 agents: 1 running, 1 cancelled');
    expect(lines[2]).toMatch(/^ {2}999999999\/1 +cancelled +\d+s {2}old job {2}· 2 tools · 30 tokens {2}· the supervisor exited; its reaper stopped the agent$/);
    expect(lines[3]).toMatch(new RegExp(`^ {2}${process.pid}/1 +running +\\d+s {2}fixer {2}· 2 tools · 30 tokens$`));
    const json = await runTai(['status', '--all', '--json'], env);
    expect(JSON.parse(json.out)).toMatchObject({ source: 'state-db', all: true, keys: ['999999999/1', `${process.pid}/1`], agents: [{ label: 'old job' }, { label: 'fixer' }] });
  });
});

describe('tai cancel', () => {
  test('cancels a live agent (exit 0), refuses an unknown one (exit 1), no cockpit (exit 2)', async () => {
    h = await startHarness();
    const id = h.board.getState().open({ label: 'victim' }, h.clock.t);
    const reasons: string[] = [];
    h.board.getState().setCancel(id, (r) => reasons.push(r));
    expect(await cancel([String(id), '--socket', h.path])).toBe(0);
    expect(out).toBe(`cancel requested for agent ${id}\n`);
    expect(reasons).toEqual(['cancelled by request (tai cancel)']);
    expect(await cancel(['99', '--socket', h.path])).toBe(1);
    expect(err).toBe('tai cancel: no such pane: 99\n');
    expect(await cancel(['1', '--socket', join(h.dir, 'none.sock')])).toBe(2);
    expect(await cancel([])).toBe(64);
  });

  test('cancels the attempt running now when given the first id of a retried job', async () => {
    const agents = {
      spawn: () => Promise.reject(new Error('not here')),
      poll: () => Promise.resolve(undefined),
      readRecord: () => Promise.resolve(undefined),
      currentAttempt: (id: number) => (id === 1 ? 2 : undefined),
    };
    h = await startHarness({ agents });
    const first = h.board.getState().open({ label: 'flaky' }, h.clock.t);
    h.board.getState().finish(first, 'failed', 'exit 2', h.clock.t);
    const second = h.board.getState().open({ label: 'flaky (attempt 2)' }, h.clock.t);
    const reasons: string[] = [];
    h.board.getState().setCancel(second, (r) => reasons.push(r));
    expect(await cancel([String(first), '--socket', h.path])).toBe(0);
    expect(out).toBe(`cancel requested for agent ${first} (its current attempt, #${second})\n`);
    expect(reasons).toEqual(['cancelled by request (tai cancel)']);
  });
});

describe('a socket folder someone else prepared', () => {
  test('tai vpane write, status and cancel refuse it (exit 2), naming the folder, its mode and what to do, and send it nothing', async () => {
    const runtime = mkdtempSync(join(tmpdir(), 'tai-runtime-'));
    const dir = join(runtime, 'tai');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    let reached = 0;
    const attacker: Server = createServer((s) => {
      reached++;
      s.end('{"ok":true,"data":{"closed":[],"cols":{}}}\n');
    });
    // pid 1 is always alive, so the socket looks like a live cockpit's.
    await new Promise<void>((resolve) => attacker.listen(join(dir, 'tai-1.sock'), () => resolve()));
    vi.stubEnv('TAI_PLEXER_SOCKET', '');
    vi.stubEnv('XDG_RUNTIME_DIR', runtime);
    vi.stubEnv('XDG_STATE_HOME', mkdtempSync(join(tmpdir(), 'tai-state-')));
    try {
      const refusal = `the socket folder ${dir} is open to others (mode 777); refusing to use it: run chmod 700 ${dir} (and remove any socket in it you did not make).`;
      expect(await vpane(['write', '1', 'the secret'])).toBe(2);
      expect(await status([])).toBe(2);
      expect(await cancel(['1'])).toBe(2);
      expect(err.split('\n').filter((l) => l !== '')).toEqual(
        ['tai vpane', 'tai status', 'tai cancel'].map((who) => `${who}: ${refusal} no cockpit reachable: start one by running \`tai\` (then use tai inside it, or pass --socket PATH / set TAI_PLEXER_SOCKET)`),
      );
      expect(out).toBe('');
      expect(reached).toBe(0);
    } finally {
      await new Promise<void>((resolve) => attacker.close(() => resolve()));
    }
  });
});

describe('a reply that is not what the command answers with', () => {
  test.each([
    ['{"ok":true,"data":null}', 'data must be {id, cancelled: true}; got {"ok":true,"data":null}'],
    ['{"ok":true}', 'data must be {id, cancelled: true}; got {"ok":true}'],
    ['{"ok":true,"data":{"id":"1","cancelled":true}}', 'data must be {id, cancelled: true}; got {"ok":true,"data":{"id":"1","cancelled":true}}'],
  ])('tai cancel given %s says the reply is malformed and exits 1', async (line, problem) => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-odd-'));
    const odd: Server = createServer((s) => s.resume().end(`${line}\n`));
    await new Promise<void>((resolve) => odd.listen(join(dir, 'odd.sock'), () => resolve()));
    try {
      expect(await cancel(['1', '--socket', join(dir, 'odd.sock')])).toBe(1);
      expect(err).toBe(`tai cancel: malformed reply to cancel: ${problem}; is that a tai cockpit of this version?\n`);
      expect(out).toBe('');
    } finally {
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });

  test('tai status and tai vpane list given data: null say so too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-odd-'));
    const odd: Server = createServer((s) => s.resume().end('{"ok":true,"data":null}\n'));
    await new Promise<void>((resolve) => odd.listen(join(dir, 'odd.sock'), () => resolve()));
    try {
      expect(await status(['--socket', join(dir, 'odd.sock')])).toBe(1);
      expect(await vpane(['list', '--socket', join(dir, 'odd.sock')])).toBe(1);
      expect(err).toBe(
        'tai status: malformed reply to status: data must be {totals, agents}; got {"ok":true,"data":null}; is that a tai cockpit of this version?\n' +
          'tai vpane: malformed reply to vpane_list: data must be a list of panes; got {"ok":true,"data":null}; is that a tai cockpit of this version?\n',
      );
    } finally {
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });
});

describe('several cockpits running', () => {
  test.runIf(existsSync(cli))('tai cancel, poll and vpane say how many run, with each pid and socket (no name: not a server), and how to choose', async () => {
    const run = mkdtempSync(join(tmpdir(), 'tai-two-'));
    const dir = join(run, 'tai');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    // Two live processes (this one and its parent) with a socket each, as two cockpits have.
    const pids = [process.pid, process.ppid].sort((a, b) => a - b);
    const servers: Server[] = [];
    for (const pid of pids) {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(join(dir, `tai-${pid}.sock`), resolve));
      servers.push(server);
    }
    try {
      const env = { XDG_RUNTIME_DIR: run, TAI_PLEXER_SOCKET: '', XDG_STATE_HOME: join(run, 'state') };
      for (const args of [['cancel', '31'], ['poll', '31'], ['vpane', 'list']]) {
        const ran = await runTai(args, env);
        expect(ran.code, args.join(' ')).toBe(2);
        expect(ran.err).toBe(
          `tai ${args[0]}: 2 cockpits are running; choose one with -t NAME or --socket PATH (tai ls lists them; inside a cockpit, TAI_PLEXER_SOCKET chooses it):\n` +
            pids.map((pid) => `  pid ${pid}: --socket ${join(dir, `tai-${pid}.sock`)}\n`).join(''),
        );
      }
    } finally {
      for (const server of servers) await new Promise((resolve) => server.close(resolve));
    }
  });
});
