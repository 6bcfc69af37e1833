import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run as spawnCli } from '../../src/cli/spawn/spawn.js';
import { startControlServer, type ControlServer } from '../../src/io/socket/socket-server.js';
import { fixture, harness, type Harness } from '../helpers/agents.js';
import { recordingIo } from '../helpers/recording-io.js';

const node = process.execPath;
const agent = (...args: string[]): string[] => ['--', node, fixture('command-agent.mjs'), ...args];
const USAGE_LINE = 'usage: tai spawn ';

let server: ControlServer | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  h?.close();
  h = undefined;
});

const cockpit = async (): Promise<string> => {
  h = harness({});
  h.clock.t = Date.now();
  const path = join(mkdtempSync(join(tmpdir(), 'tai-sock-')), 'control.sock');
  server = await startControlServer({ board: h.board, agents: h.service, path });
  return path;
};

/** A registry with one ACP agent `talker` and one command agent `echo`, in its own config folder. */
const registry = (): string => {
  const config = mkdtempSync(join(tmpdir(), 'tai-cfg-'));
  mkdirSync(join(config, 'tai'));
  const agents = {
    echo: { kind: 'command', command: [node, fixture('command-agent.mjs'), '--stdin'] },
    talker: { kind: 'acp', command: [node, fixture('acp-agent.mjs')] },
  };
  writeFileSync(join(config, 'tai', 'agents.json'), JSON.stringify({ agents }));
  return config;
};

describe("tai spawn's command line", () => {
  it('refuses a word after --lane that is no lane name as one, with the usage, and never runs it', async () => {
    const io = recordingIo();
    const elsewhere = mkdtempSync(join(tmpdir(), 'tai-not-a-repo-'));
    expect(await spawnCli(['--lane', 'Fix', '--cwd', elsewhere, '--', 'echo', 'hi'], io)).toBe(64);
    expect(io.stderr.split('\n')[0]).toBe(
      'tai spawn: --lane "Fix" is not a valid lane name: use lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, ' +
        'at most 40 characters, without ".." or a ".lock" end; to run it as the agent, put the command after --',
    );
    expect(io.stderr).toContain(USAGE_LINE);
    expect(io.stdout).toBe('');
    const eq = recordingIo();
    expect(await spawnCli(['--lane=Bad/Name', '--cwd', elsewhere, ...agent()], eq)).toBe(64);
    expect(eq.stderr).toContain('"Bad/Name" is not a valid lane name');
  });

  it('refuses a timeout the cockpit would refuse with 64 and the usage, inside a cockpit as outside', async () => {
    const socket = await cockpit();
    const inside = recordingIo({ env: { TAI_PLEXER_SOCKET: socket } });
    expect(await spawnCli(['--timeout', '5', ...agent('--say', 'never')], inside)).toBe(64);
    expect(inside.stderr.split('\n')[0]).toBe("tai spawn: --timeout must be from 30 to 3600 seconds (default 600), got '5'");
    expect(inside.stderr).toContain(USAGE_LINE);
    expect(h?.board.getState().panels).toEqual([]);
    const kind = recordingIo({ env: { TAI_PLEXER_SOCKET: socket } });
    expect(await spawnCli(['--kind', 'bogus', ...agent('--say', 'never')], kind)).toBe(64);
    expect(kind.stderr.split('\n')[0]).toBe("tai spawn: --kind takes one of acp, claude, codex, cap, command, got 'bogus'");
    expect(kind.stderr).toContain(USAGE_LINE);
    const outside = recordingIo();
    expect(await spawnCli(['--retries', '9', ...agent('--say', 'never')], outside)).toBe(64);
    expect(outside.stderr.split('\n')[0]).toBe('tai spawn: --retries takes a whole number from 0 to 5, got 9');
    expect(outside.stderr).toContain(USAGE_LINE);
  });

  it('refuses a lane that does not exist with 64 and the usage, inside a cockpit as outside, and starts nothing', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'tai-not-a-repo-'));
    const outside = recordingIo();
    expect(await spawnCli(['--in-lane', 'nosuch', '--cwd', elsewhere, ...agent('--say', 'never')], outside)).toBe(64);
    expect(outside.stderr.split('\n')[0]).toBe('tai spawn: no lane named nosuch: tai lane list shows the lanes');
    expect(outside.stderr).toContain(USAGE_LINE);
    const socket = await cockpit();
    const inside = recordingIo({ env: { TAI_PLEXER_SOCKET: socket } });
    expect(await spawnCli(['--in-lane', 'nosuch', '--cwd', elsewhere, ...agent('--say', 'never')], inside)).toBe(64);
    expect(inside.stderr.split('\n')[0]).toBe('tai spawn: no lane named nosuch: tai lane list shows the lanes');
    expect(inside.stderr).toContain(USAGE_LINE);
    expect(h?.board.getState().panels).toEqual([]);
  });

  it('refuses an empty --prompt and an agent by name with no prompt at all', async () => {
    const empty = recordingIo();
    expect(await spawnCli(['--prompt', '', ...agent('--stdin')], empty)).toBe(64);
    expect(empty.stderr.split('\n')[0]).toBe("tai spawn: --prompt is empty: give the agent's task (or leave --prompt out to read it from stdin)");
    expect(empty.stdout).toBe('');

    const config = registry();
    const bare = recordingIo({ env: { XDG_CONFIG_HOME: config } });
    expect(await spawnCli(['@echo'], bare)).toBe(64);
    expect(bare.stderr.split('\n')[0]).toBe('tai spawn: @echo needs a prompt: after the name, with --prompt, or on stdin');
    const blank = recordingIo({ env: { XDG_CONFIG_HOME: config }, stdin: '  \n' });
    expect(await spawnCli(['@echo'], blank)).toBe(64);
    expect(blank.stdout).toBe('');
    // A prompt on stdin is a prompt.
    const piped = recordingIo({ env: { XDG_CONFIG_HOME: config }, stdin: 'from stdin' });
    expect(await spawnCli(['@echo'], piped)).toBe(0);
    expect(piped.stdout).toBe('from stdin\n');
  });

  it('says on stderr that a script\'s agent inside a cockpit gets its permission requests rejected, not asked', async () => {
    const socket = await cockpit();
    const config = registry();
    const script = recordingIo({ env: { TAI_PLEXER_SOCKET: socket, XDG_CONFIG_HOME: config } });
    expect(await spawnCli(['--detach', '@talker', 'hello'], script)).toBe(0);
    expect(script.stderr).toBe(
      "tai spawn: stdin is not a terminal, so the agent's permission requests are rejected (--permissions ask puts them to you in the cockpit, --allow accepts them)\n",
    );
    // Asked for, or a command agent (which asks nothing): nothing to say.
    const asked = recordingIo({ env: { TAI_PLEXER_SOCKET: socket, XDG_CONFIG_HOME: config } });
    expect(await spawnCli(['--detach', '--permissions', 'ask', '@talker', 'hello'], asked)).toBe(0);
    expect(asked.stderr).toBe('');
    const command = recordingIo({ env: { TAI_PLEXER_SOCKET: socket } });
    expect(await spawnCli(['--detach', ...agent('--say', 'x')], command)).toBe(0);
    expect(command.stderr).toBe('');
  });

  it('rejects, and says so, the permission requests of an agent asked for outside a cockpit, where nobody can be asked', async () => {
    const io = recordingIo({ stdin: '' });
    const code = await spawnCli(['--kind', 'acp', '--permissions', 'ask', '--prompt', 'edit it', '--', node, fixture('acp-ask-agent.mjs'), 'edit'], io);
    expect(io.stderr.split('\n')[0]).toBe(
      "tai spawn: no cockpit to put the agent's permission requests to you, so they are rejected (run tai spawn inside tai to be asked, or pass --allow)",
    );
    expect(code).toBe(0);
    expect(io.stdout).toMatch(/reject/i);
  });
});
