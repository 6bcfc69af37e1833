import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../../src/cli/machine/agents.js';
import { BUILTIN_AGENTS, parseRegistry, RegistryError } from '../../../../src/core/agents/agent-registry.js';
import { configPath, loadRegistry, locateAgent } from '../../../../src/io/agents/spawn/agent-config.js';
import { fakeProgram } from '../../../helpers/agents.js';

let root: string;
let bin: string;
let xdg: string;

/** Writes the user's agents.json under the temp XDG_CONFIG_HOME. */
function writeConfig(text: string): string {
  mkdirSync(join(xdg, 'tai'), { recursive: true });
  const path = join(xdg, 'tai', 'agents.json');
  writeFileSync(path, text);
  return path;
}

async function loadError(path: string): Promise<RegistryError> {
  try {
    await loadRegistry(path, { HOME: root });
  } catch (err) {
    expect(err).toBeInstanceOf(RegistryError);
    return err as RegistryError;
  }
  throw new Error('loadRegistry accepted it');
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tai-agent-config-'));
  bin = join(root, 'bin');
  xdg = join(root, 'config');
  mkdirSync(bin);
  mkdirSync(xdg);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('configPath', () => {
  it('uses XDG_CONFIG_HOME, else ~/.config, and ignores a relative XDG_CONFIG_HOME', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x/conf', HOME: '/home/u' })).toBe('/x/conf/tai/agents.json');
    expect(configPath({ HOME: '/home/u' })).toBe('/home/u/.config/tai/agents.json');
    expect(configPath({ XDG_CONFIG_HOME: '', HOME: '/home/u' })).toBe('/home/u/.config/tai/agents.json');
    expect(configPath({ XDG_CONFIG_HOME: 'conf', HOME: '/home/u' })).toBe('/home/u/.config/tai/agents.json');
  });
});

describe('loadRegistry', () => {
  it('gives the built-ins alone when the file does not exist', async () => {
    const reg = await loadRegistry(undefined, { XDG_CONFIG_HOME: xdg, HOME: root });
    expect(reg).toEqual({ path: join(xdg, 'tai', 'agents.json'), found: false, user: [], entries: BUILTIN_AGENTS });
  });

  it('merges the file over the built-ins and expands ~ in the program and the working directory', async () => {
    const path = writeConfig(
      '\uFEFF' +
        JSON.stringify({
          agents: {
            gemini: { kind: 'acp', command: ['gemini', '--acp', '--model', 'pro'], timeout: 120 },
            mine: { kind: 'command', command: ['~/bin/mine', '~/literal-arg'], cwd: '~/src' },
          },
        }),
    );
    const reg = await loadRegistry(path, { HOME: root });
    expect(reg.found).toBe(true);
    expect(reg.user).toEqual([
      { name: 'gemini', kind: 'acp', command: ['gemini', '--acp', '--model', 'pro'], timeout: 120 },
      { name: 'mine', kind: 'command', command: [join(root, 'bin/mine'), '~/literal-arg'], cwd: join(root, 'src') },
    ]);
    expect(reg.entries.map((e) => e.name)).toEqual(['gemini', 'opencode', 'goose', 'qwen', 'claude-acp', 'codex-acp', 'claude', 'codex', 'mine']);
    expect(reg.entries[0]?.timeout).toBe(120);
  });

  it('accepts the example of docs/agents-registry.md', async () => {
    const doc = readFileSync(new URL('../../../../docs/agents-registry.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const names = parseRegistry(JSON.parse(example), 'docs/agents-registry.md').entries.map((e) => e.name);
    expect(names).toEqual(['reviewer', 'copilot', 'gemini']);
    const reg = await loadRegistry(writeConfig(example), { HOME: '/home/me' });
    expect(reg.user[0]?.cwd).toBe('/home/me/src/app');
  });

  it('names the file and the field of an invalid entry', async () => {
    const path = writeConfig(JSON.stringify({ agents: { reviewer: { kind: 'accp', command: ['x'] } } }));
    expect((await loadError(path)).message).toBe(`${path}: agents.reviewer.kind must be one of acp, claude, codex, cap, command (got "accp")`);
  });

  it('refuses a file that is not JSON, saying what to do', async () => {
    const path = writeConfig('{ "agents": { ');
    const { message } = await loadError(path);
    expect(message.startsWith(`${path}: is not valid JSON (`)).toBe(true);
    expect(message.endsWith('); fix it, or move it away to use only the built-in agents')).toBe(true);
  });

  it('refuses a directory where the file should be', async () => {
    const path = join(xdg, 'tai', 'agents.json');
    mkdirSync(path, { recursive: true });
    expect((await loadError(path)).message).toBe(
      `${path}: cannot be read (it is a directory, not a file); fix it, or move it away to use only the built-in agents`,
    );
  });

  // Root reads any file, so permission denied cannot happen as root (CI runs
  // as root); the directory case above covers the same error path there.
  it.skipIf(process.getuid?.() === 0)('refuses a file it may not read', async () => {
    const path = writeConfig('{"agents": {}}');
    chmodSync(path, 0o000);
    expect((await loadError(path)).message).toBe(
      `${path}: cannot be read (permission denied); fix it, or move it away to use only the built-in agents`,
    );
  });
});

describe('locateAgent', () => {
  it('makes an npx entry available exactly when npx is on PATH', () => {
    const claudeAcp = BUILTIN_AGENTS.find((e) => e.name === 'claude-acp');
    if (!claudeAcp) throw new Error('claude-acp is a built-in');
    expect(locateAgent(claudeAcp, { PATH: bin })).toBeUndefined();
    const npx = fakeProgram(bin, 'npx');
    expect(locateAgent(claudeAcp, { PATH: bin })).toBe(npx);
  });
});

describe('tai agents', () => {
  const saved = { XDG_CONFIG_HOME: process.env['XDG_CONFIG_HOME'], PATH: process.env['PATH'] };
  let restore: () => void = () => undefined;

  /** Runs `tai agents ARGS` with the temp config and PATH; returns the exit code and what it wrote. */
  async function agents(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    process.env['XDG_CONFIG_HOME'] = xdg;
    process.env['PATH'] = bin;
    let out = '';
    let err = '';
    const stdoutWrite = process.stdout.write;
    const stderrWrite = process.stderr.write;
    restore = () => {
      process.stdout.write = stdoutWrite;
      process.stderr.write = stderrWrite;
    };
    process.stdout.write = ((chunk: string | Uint8Array) => ((out += String(chunk)), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => ((err += String(chunk)), true)) as typeof process.stderr.write;
    try {
      return { code: await run(args), out, err };
    } finally {
      restore();
    }
  }

  afterEach(() => {
    restore();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('lists the built-ins with available or not found when there is no config', async () => {
    fakeProgram(bin, 'gemini');
    fakeProgram(bin, 'npx');
    const { code, out, err } = await agents();
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'NAME        KIND    STATUS     FROM      COMMAND',
        'gemini      acp     available  built-in  gemini --acp',
        'opencode    acp     not found  built-in  opencode acp',
        'goose       acp     not found  built-in  goose acp',
        'qwen        acp     not found  built-in  qwen --acp',
        'claude-acp  acp     available  built-in  npx -y @agentclientprotocol/claude-agent-acp',
        'codex-acp   acp     available  built-in  npx -y @agentclientprotocol/codex-acp',
        'claude      claude  not found  built-in  claude -p --output-format stream-json --verbose --input-format stream-json',
        'codex       codex   not found  built-in  codex exec --json --skip-git-repo-check',
        '',
        'note: opencode: opencode runs its tools without asking (default config): the reject policy does not stop it; set "permission" in its opencode.json',
        'note: claude-acp: claude-agent-acp starts in mode auto and runs commands without asking: the reject policy does not stop it',
        'note: codex-acp: codex-acp never asks before writing: its sandbox_mode decides, not the reject policy',
        '',
        `config: ${join(xdg, 'tai', 'agents.json')} (not present: built-in agents only)`,
        '',
      ].join('\n'),
    );
  });

  it('lists the user entries, marks a replaced built-in, and quotes arguments with spaces', async () => {
    fakeProgram(bin, 'my-reviewer');
    writeConfig(
      JSON.stringify({
        agents: {
          goose: { kind: 'acp', command: ['goose', 'acp', '--with-builtin', 'dev tools'] },
          reviewer: { kind: 'command', command: ['my-reviewer', "it's"], description: 'reviews' },
        },
      }),
    );
    const { code, out } = await agents();
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'NAME        KIND     STATUS     FROM      COMMAND',
        'gemini      acp      not found  built-in  gemini --acp',
        'opencode    acp      not found  built-in  opencode acp',
        "goose       acp      not found  config    goose acp --with-builtin 'dev tools'",
        'qwen        acp      not found  built-in  qwen --acp',
        'claude-acp  acp      not found  built-in  npx -y @agentclientprotocol/claude-agent-acp',
        'codex-acp   acp      not found  built-in  npx -y @agentclientprotocol/codex-acp',
        'claude      claude   not found  built-in  claude -p --output-format stream-json --verbose --input-format stream-json',
        'codex       codex    not found  built-in  codex exec --json --skip-git-repo-check',
        "reviewer    command  available  config    my-reviewer 'it'\\''s'",
        '',
        'note: opencode: opencode runs its tools without asking (default config): the reject policy does not stop it; set "permission" in its opencode.json',
        'note: claude-acp: claude-agent-acp starts in mode auto and runs commands without asking: the reject policy does not stop it',
        'note: codex-acp: codex-acp never asks before writing: its sandbox_mode decides, not the reject policy',
        '',
        `config: ${join(xdg, 'tai', 'agents.json')} (2 agents; replaces built-in goose)`,
        '',
      ].join('\n'),
    );
  });

  it('prints JSON with --json', async () => {
    const reviewer = fakeProgram(bin, 'my-reviewer');
    writeConfig(JSON.stringify({ agents: { reviewer: { kind: 'claude', command: ['my-reviewer'], timeout: 60, permissions: 'allow' } } }));
    const { code, out } = await agents('--json');
    expect(code).toBe(0);
    const data = JSON.parse(out) as { config: string; found: boolean; agents: Record<string, unknown>[] };
    expect(data.config).toBe(join(xdg, 'tai', 'agents.json'));
    expect(data.found).toBe(true);
    expect(data.agents).toHaveLength(9);
    expect(data.agents[0]).toEqual({
      name: 'gemini',
      kind: 'acp',
      command: ['gemini', '--acp'],
      description: 'Gemini CLI over ACP',
      origin: 'built-in',
      available: false,
      program: null,
    });
    expect(data.agents[8]).toEqual({
      name: 'reviewer',
      kind: 'claude',
      command: ['my-reviewer'],
      timeout: 60,
      permissions: 'allow',
      origin: 'config',
      available: true,
      program: reviewer,
    });
  });

  it('prints the error and exits 2 when the registry is invalid', async () => {
    const path = writeConfig(JSON.stringify({ agents: { reviewer: { kind: 'claude', command: ['x'], timeout: 5 } } }));
    const { code, out, err } = await agents();
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(
      `tai agents: ${path}: agents.reviewer.timeout must be a whole number of seconds from 30 to 3600 (got 5)\n` +
        '(the schema: docs/agents-registry.md)\n',
    );
  });

  it('refuses an unknown option with the usage and exit 64', async () => {
    const { code, out, err } = await agents('--all');
    expect(code).toBe(64);
    expect(out).toBe('');
    expect(err.startsWith("tai agents: unknown option '--all'\n")).toBe(true);
    expect(err.endsWith('\nusage: tai agents [--json]\n')).toBe(true);
  });
});
