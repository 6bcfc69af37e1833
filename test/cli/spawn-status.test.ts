import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run as spawnCli } from '../../src/cli/spawn/spawn.js';
import { LIVE_STATUS_MS } from '../../src/cli/spawn/spawn-status.js';
import { liveStatusLine } from '../../src/core/agents/live-status.js';
import { runTai } from '../helpers/tai-cli.js';
import { until } from '../helpers/until.js';
import { harness, type Harness } from '../helpers/agents.js';
import { startControlServer, type ControlServer } from '../../src/io/socket/socket-server.js';
import { afterEach } from 'vitest';
import { recordingIo } from '../helpers/recording-io.js';

let server: ControlServer | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  h?.close();
  h = undefined;
});

/** A CLI io whose stderr says it is a terminal (or not), recording what is written. */
const ttyIo = (errIsTerminal: boolean) => recordingIo({ errIsTerminal, errColumns: 100 });

describe("an attached tai spawn's live status line", () => {
  it('redraws one line in place on a terminal while the agent runs, and erases it before the result', async () => {
    const io = ttyIo(true);
    const script = join(io.state, 'agent.sh');
    writeFileSync(script, `echo compiling module one\nwhile [ ! -e "${join(io.state, 'go')}" ]; do sleep 0.05; done\necho linked\n`);
    const done = spawnCli(['--label', 'build', '--', 'sh', script], io);
    await until(() => io.stderr.includes('\r\x1b[2K● #1 running · 0s · 0 tools · 0 tokens · compiling module one'), { what: 'the live line with the last text', explain: () => JSON.stringify(io.stderr) });
    writeFileSync(join(io.state, 'go'), '');
    expect(await done).toBe(0);
    expect(io.stdout).toBe('compiling module one\nlinked\n');
    // Every draw goes back to the start of the line and erases it; the last write before the result erases it for good.
    expect(io.stderr).not.toContain('\n\r');
    expect(io.stderr).toMatch(/\r\x1b\[2Ktai: agent #1 done \(exit 0 · 28 chars\)\n$/);
    expect(io.stderr.split('\n').length).toBe(2);
  });

  it("draws the line from the cockpit's status when the agent runs in a cockpit", async () => {
    h = harness();
    h.clock.t = Date.now();
    const path = join(mkdtempSync(join(tmpdir(), 'tai-sock-')), 'control.sock');
    server = await startControlServer({ board: h.board, agents: h.service, path });
    const io = ttyIo(true);
    const script = join(io.state, 'agent.sh');
    writeFileSync(script, `echo warming up\nwhile [ ! -e "${join(io.state, 'go')}" ]; do sleep 0.05; done\n`);
    const done = spawnCli(['--socket', path, '--', 'sh', script], { ...io, env: { ...io.env, TAI_PLEXER_SOCKET: path } });
    await until(() => io.stderr.includes('\r\x1b[2K● #1 running · ') && io.stderr.includes(' · warming up'), { what: 'the live line', explain: () => JSON.stringify(io.stderr) });
    writeFileSync(join(io.state, 'go'), '');
    expect(await done).toBe(0);
    expect(io.stderr).toMatch(/\r\x1b\[2Ktai: agent #1 done \(exit 0 · 11 chars\)\n$/);
  });

  it('fits the line to the terminal, never in its last column', () => {
    const line = liveStatusLine(3, { state: 'running', elapsedMs: 75_000, tools: 1, tokens: 12_345, last: 'x'.repeat(200) }, 60);
    expect(line.startsWith('● #3 running · 1m15s · 1 tool · 12k tokens · xxx')).toBe(true);
    expect(line.length).toBe(59);
  });

  it('draws nothing when stderr is not a terminal (the built CLI on a pipe)', async () => {
    const state = mkdtempSync(join(tmpdir(), 'tai-live-'));
    // The window is what this test measures: the agent outlives several of the line's draws (LIVE_STATUS_MS), so a drawing tai would have drawn.
    const window = (3 * LIVE_STATUS_MS) / 1000;
    const run = await runTai(['spawn', '--', 'sh', '-c', `echo a; sleep ${window}; echo b`], { XDG_STATE_HOME: state, TAI_PLEXER_SOCKET: '' });
    expect(run).toEqual({ code: 0, out: 'a\nb\n', err: 'tai: agent #1 done (exit 0 · 4 chars)\n' });
  });
});
