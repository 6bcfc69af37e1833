import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run as spawnCli } from '../../src/cli/spawn/spawn.js';
import { run as recordCli } from '../../src/cli/results/record.js';
import { run as pollCli } from '../../src/cli/results/poll.js';
import { CLAIM_HEAD } from '../../src/core/agents/claim-check.js';
import { AcpSessionPool } from '../../src/io/agents/runners/acp/acp-pool.js';
import { runnersWithSessions } from '../../src/io/agents/runners/table.js';
import { startControlServer, type ControlServer } from '../../src/io/socket/socket-server.js';
import { fixture, harness, type Harness } from '../helpers/agents.js';
// @ts-expect-error a plain .mjs fixture without types
import { flood } from '../fixtures/flooder.mjs';
import { until } from '../helpers/until.js';
import { recordingIo } from '../helpers/recording-io.js';

const node = process.execPath;
const agent = (...args: string[]): string[] => ['--', node, fixture('command-agent.mjs'), ...args];

/** A CLI io that records output, with its own state folder and Ctrl-C button. */
const testIo = (env: NodeJS.ProcessEnv = {}, stdin?: string) => recordingIo({ env, stdin });

let server: ControlServer | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  h?.close();
  h = undefined;
});

describe('tai spawn outside a cockpit (in-process supervision)', () => {
  it('prints the result and exits 0 when the agent is done', async () => {
    const io = testIo();
    expect(await spawnCli(agent('--say', 'hello'), io)).toBe(0);
    expect(io.stdout).toBe('hello\n');
    expect(io.stderr).toBe('tai: agent #1 done (exit 0 · 6 chars)\n');
  });

  it('exits 1 when the agent fails', async () => {
    const io = testIo();
    expect(await spawnCli(agent('--exit', '4'), io)).toBe(1);
    expect(io.stderr).toContain('failed (exit 4');
  });

  it('passes stdin to the agent as its prompt', async () => {
    const io = testIo({}, 'the task from stdin\n');
    expect(await spawnCli(agent('--stdin'), io)).toBe(0);
    expect(io.stdout).toBe('the task from stdin\n');
  });

  it('stops the agent softly on Ctrl-C, prints the partial result and exits 130', async () => {
    const io = testIo();
    const ready = join(io.state, 'ready');
    const code = spawnCli(agent('--linger', '--ready', ready), io);
    await until(() => existsSync(ready));
    io.interrupt();
    expect(await code).toBe(130);
    expect(io.stdout).toBe('[cancelled (interrupted (Ctrl-C)); partial result]\nwaiting\ninterrupted\n');
  });

  it('starts an agent of the registry by @name with the rest of the line as its prompt', async () => {
    const io = testIo();
    const config = mkdtempSync(join(tmpdir(), 'tai-cfg-'));
    mkdirSync(join(config, 'tai'));
    writeFileSync(join(config, 'tai', 'agents.json'), JSON.stringify({ agents: { echo: { kind: 'command', command: [node, fixture('command-agent.mjs'), '--stdin'] } } }));
    io.env['XDG_CONFIG_HOME'] = config;
    expect(await spawnCli(['@echo', 'say', 'this'], io)).toBe(0);
    expect(io.stdout).toBe('say this\n');
    expect(await spawnCli(['@nope', 'x'], io)).toBe(64);
    expect(io.stderr).toContain('no agent named "nope"');
  });

  it('tells on stderr why an agent is held for a lost network, the stage and next probe, and its restart when the network is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-held-'));
    const up = join(dir, 'up');
    const io = testIo({ TAI_OUTAGE_TIME_SCALE: '0.001', TAI_NETWORK_PROBE: `test -e ${up}`, TAI_NOTIFY_HOOK: '' });
    const step = `if [ -e ${up} ]; then echo pushed; else echo "fatal: unable to access 'https://github.com/t/t.git/': Could not resolve host: github.com" >&2; exit 128; fi`;
    const code = spawnCli(['--cwd', dir, '--', 'sh', '-c', step], io);
    await until(() => io.stderr.includes('tai: waiting for the network (outage #1, stage one-minute): probe 1 at '));
    const lines = io.stderr.split('\n');
    expect(lines[0]).toBe("tai: agent #1 held: waiting for the network (fatal: unable to access 'https://github.com/t/t.git/': Could not resolve host: github.com)");
    expect(lines[1]).toMatch(/^tai: waiting for the network \(outage #1, stage one-minute\): probe 1 at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \((?:in \d+ m?s|due now)\)$/);
    writeFileSync(up, '');
    expect(await code).toBe(0);
    // The result says the restart first, as it does in a cockpit.
    expect(io.stdout).toBe('#1: the network is back (outage 1); a fresh agent starts with the same task\npushed\n');
    const told = io.stderr.split('\n').filter((line) => !line.startsWith('tai: waiting for the network'));
    expect(told.slice(1)).toEqual([
      'tai: agent #1 restarted: the network is back (outage 1); a fresh agent starts with the same task',
      'tai: agent #1 done (exit 0 · 7 chars)',
      '',
    ]);
  });

  it('refuses a bad command line with 64', async () => {
    const io = testIo();
    expect(await spawnCli(['--timeout', '5', ...agent()], io)).toBe(64);
    expect(io.stderr).toContain('timeout must be from 30 to 3600 seconds');
    expect(await spawnCli(['--detach', ...agent()], io)).toBe(64);
    expect(await spawnCli([], io)).toBe(64);
  });

  it('hands back a long result through the claim check, which tai record reads, searches and collects', async () => {
    const io = testIo();
    const n = 20_000;
    expect(await spawnCli(['--label', 'flood', '--', node, fixture('flooder.mjs'), String(n)], io)).toBe(0);
    const whole = flood(n) as string;
    const rid = /whole result: tai record read (r[0-9a-z]+) --all/.exec(io.stderr)?.[1] as string;
    expect(rid).toBeDefined();
    // The head ends at the last line end before CLAIM_HEAD (lines of 64 characters: 2496).
    expect(io.stdout.startsWith(`${whole.slice(0, 2496)}\n\n[... `)).toBe(true);
    expect(CLAIM_HEAD - 2496).toBeLessThan(64);

    const read = testIo({ XDG_STATE_HOME: io.state });
    expect(await recordCli(['read', rid, '--offset', '6400', '--limit', '128'], read)).toBe(0);
    expect(read.stdout).toBe(whole.slice(6400, 6528));
    expect(read.stderr).toContain(`6400..6528 of ${n} characters; next: tai record read ${rid} --offset 6528`);

    const search = testIo({ XDG_STATE_HOME: io.state });
    expect(await recordCli(['search', 'line', '0000200'], search)).toBe(0);
    expect(search.stdout).toContain(`${rid}  `);
    expect(search.stdout).toContain('flood');

    const missing = testIo({ XDG_STATE_HOME: io.state });
    expect(await recordCli(['read', 'rnope'], missing)).toBe(1);

    const gc = testIo({ XDG_STATE_HOME: io.state });
    expect(await recordCli(['gc', '--max-mb', '0.01'], gc)).toBe(0);
    expect(gc.stdout.split('\n')[0]).toBe('deleted 1 records; kept 0 (0 characters)');
  });
});

describe('tai spawn inside a cockpit (over the control socket)', () => {
  const cockpit = async (maxLive?: number): Promise<string> => {
    h = harness(maxLive ? { maxLive } : {});
    h.clock.t = Date.now();
    const path = join(mkdtempSync(join(tmpdir(), 'tai-sock-')), 'control.sock');
    server = await startControlServer({ board: h.board, agents: h.service, path });
    return path;
  };

  it('asks the cockpit, where the panel appears, then long-polls the result', async () => {
    const socket = await cockpit();
    const io = testIo({ TAI_PLEXER_SOCKET: socket });
    expect(await spawnCli(['--label', 'remote', ...agent('--say', 'over the socket')], io)).toBe(0);
    expect(io.stdout).toBe('over the socket\n');
    expect(io.stderr).toContain('tai: agent #1 started\n');
    expect(h?.board.getState().panels.map((p) => p.label)).toEqual(['remote']);
    expect(await h?.screen(1)).toContain('over the socket');
  });

  it('returns at once with --detach, and tai poll collects the result', async () => {
    const socket = await cockpit();
    const io = testIo({ TAI_PLEXER_SOCKET: socket });
    expect(await spawnCli(['--detach', ...agent('--say', 'later')], io)).toBe(0);
    expect(io.stdout).toBe('1\n');
    const poll = testIo({ TAI_PLEXER_SOCKET: socket });
    expect(await pollCli(['1', '--wait', '10'], poll)).toBe(0);
    expect(poll.stdout).toBe('later\n');
  });

  it('asks the cockpit to cancel the agent on Ctrl-C and prints its partial result', async () => {
    const socket = await cockpit();
    const io = testIo({ TAI_PLEXER_SOCKET: socket });
    const ready = join(io.state, 'ready');
    const code = spawnCli(agent('--linger', '--ready', ready), io);
    await until(() => existsSync(ready));
    io.interrupt();
    expect(await code).toBe(130);
    expect(io.stdout).toBe('[cancelled (interrupted (Ctrl-C)); partial result]\nwaiting\ninterrupted\n');
  });

  it("continues an ACP agent's session on the next tai spawn @name, never on a plain --kind acp spawn", async () => {
    const sessions = new AcpSessionPool();
    h = harness({ runners: runnersWithSessions(sessions) });
    h.clock.t = Date.now();
    const socket = join(mkdtempSync(join(tmpdir(), 'tai-sock-')), 'control.sock');
    server = await startControlServer({ board: h.board, agents: h.service, path: socket });
    const config = mkdtempSync(join(tmpdir(), 'tai-cfg-'));
    mkdirSync(join(config, 'tai'));
    const keeper = [node, fixture('acp-session-agent.mjs')];
    writeFileSync(join(config, 'tai', 'agents.json'), JSON.stringify({ agents: { keeper: { kind: 'acp', command: keeper } } }));
    const io = () => testIo({ TAI_PLEXER_SOCKET: socket, XDG_CONFIG_HOME: config });
    try {
      const first = io();
      expect(await spawnCli(['@keeper', 'one'], first)).toBe(0);
      const pid = /^pid (\d+) turn 1: one\n$/.exec(first.stdout)?.[1];
      expect(pid).toBeDefined();
      const second = io();
      expect(await spawnCli(['@keeper', 'two'], second)).toBe(0);
      expect(second.stdout).toBe(`pid ${pid} turn 2: two\n`);
      const plain = io();
      expect(await spawnCli(['--kind', 'acp', '--prompt', 'three', '--', ...keeper], plain)).toBe(0);
      expect(plain.stdout).toMatch(/^pid \d+ turn 1: three\n$/);
      expect(plain.stdout).not.toContain(`pid ${pid} `);
    } finally {
      await sessions.close();
    }
  });

  it('exits 75 when the cockpit refuses an agent past the cap', async () => {
    const socket = await cockpit(1);
    const ready = join(mkdtempSync(join(tmpdir(), 'tai-r-')), 'ready');
    const first = testIo({ TAI_PLEXER_SOCKET: socket });
    expect(await spawnCli(['--detach', ...agent('--linger', '--ready', ready)], first)).toBe(0);
    const second = testIo({ TAI_PLEXER_SOCKET: socket });
    expect(await spawnCli(agent('--say', 'no room'), second)).toBe(75);
    expect(second.stderr).toContain('too many agents: 1 are running and the limit is 1');
    await until(() => existsSync(ready));
    h?.board.getState().cancel(1, 'test over', Date.now());
    expect((await h?.service.poll(1, 10_000))?.state).toBe('cancelled');
  });
});
