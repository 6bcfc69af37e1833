import { describe, expect, it } from 'vitest';
import {
  AGENT_KINDS,
  BUILTIN_AGENTS,
  commonPrefix,
  completeName,
  findAgent,
  mergeRegistry,
  parseRegistry,
  RegistryError,
  resolveMention,
  UnknownAgentError,
  type AgentEntry,
} from '../../../src/core/agents/agent-registry.js';

const SRC = 'agents.json';

/** The message parseRegistry throws for `json`, or a failure when it does not throw a RegistryError. */
function errorOf(json: unknown): string {
  try {
    parseRegistry(json, SRC);
  } catch (err) {
    expect(err).toBeInstanceOf(RegistryError);
    return (err as RegistryError).message;
  }
  throw new Error('parseRegistry accepted it');
}

/** The message for a file holding one agent `reviewer` with these fields. */
function entryError(fields: Record<string, unknown>): string {
  return errorOf({ agents: { reviewer: fields } });
}

describe('parseRegistry', () => {
  it('accepts an entry with every field and keeps them as written', () => {
    const json = {
      agents: {
        reviewer: {
          kind: 'claude',
          command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'],
          cwd: '/srv/repo',
          timeout: 900,
          permissions: 'allow',
          model: 'sonnet',
          description: 'reviews diffs',
        },
      },
    };
    expect(parseRegistry(json, SRC)).toEqual({ entries: [{ name: 'reviewer', ...json.agents.reviewer }] });
  });

  it('accepts the smallest entry (kind and command), every kind, and keeps file order', () => {
    const agents = Object.fromEntries(AGENT_KINDS.map((kind, i) => [`a${i}_${kind}`, { kind, command: [`prog-${kind}`] }]));
    const { entries } = parseRegistry({ agents }, SRC);
    expect(entries.map((e) => [e.name, e.kind, e.command])).toEqual([
      ['a0_acp', 'acp', ['prog-acp']],
      ['a1_claude', 'claude', ['prog-claude']],
      ['a2_codex', 'codex', ['prog-codex']],
      ['a3_cap', 'cap', ['prog-cap']],
      ['a4_command', 'command', ['prog-command']],
    ]);
    expect(Object.keys(entries[0] ?? {})).toEqual(['name', 'kind', 'command']);
  });

  it('accepts an empty agents object, a ~ working directory and the edge timeouts', () => {
    expect(parseRegistry({ agents: {} }, SRC)).toEqual({ entries: [] });
    const { entries } = parseRegistry(
      {
        agents: {
          lo: { kind: 'acp', command: ['x'], timeout: 30, cwd: '~' },
          hi: { kind: 'acp', command: ['x', ''], timeout: 3600, cwd: '~/work' },
        },
      },
      SRC,
    );
    expect(entries.map((e) => [e.timeout, e.cwd, e.command])).toEqual([
      [30, '~', ['x']],
      [3600, '~/work', ['x', '']],
    ]);
  });

  it('names the file, the field path and the bad kind', () => {
    expect(entryError({ kind: 'accp', command: ['x'] })).toBe(
      'agents.json: agents.reviewer.kind must be one of acp, claude, codex, cap, command (got "accp")',
    );
    expect(entryError({ command: ['x'] })).toBe('agents.json: agents.reviewer.kind must be one of acp, claude, codex, cap, command (missing)');
    expect(entryError({ kind: 3, command: ['x'] })).toBe('agents.json: agents.reviewer.kind must be one of acp, claude, codex, cap, command (got 3)');
  });

  it('refuses a file that is not an object with agents', () => {
    expect(errorOf([])).toBe('agents.json: must hold a JSON object like {"agents": {"name": {...}}} (got [])');
    expect(errorOf('x')).toBe('agents.json: must hold a JSON object like {"agents": {"name": {...}}} (got "x")');
    expect(errorOf(null)).toBe('agents.json: must hold a JSON object like {"agents": {"name": {...}}} (got null)');
    expect(errorOf({})).toBe('agents.json: agents must be an object mapping names to agents (missing)');
    expect(errorOf({ agents: [{ name: 'x' }] })).toBe('agents.json: agents must be an object mapping names to agents (got a list)');
    expect(errorOf({ agents: {}, agent: {} })).toBe('agents.json: agent is not a known field (did you mean agents?)');
    expect(errorOf({ agents: {}, version: 1 })).toBe('agents.json: version is not a known field (known fields: agents, rules)');
  });

  it('refuses bad names', () => {
    expect(errorOf({ agents: { Reviewer: { kind: 'acp', command: ['x'] } } })).toBe(
      'agents.json: agents["Reviewer"] is not a valid name: use lower-case letters, digits, "_" and "-", starting with a letter or digit',
    );
    expect(errorOf({ agents: { '-x': { kind: 'acp', command: ['x'] } } })).toBe(
      'agents.json: agents["-x"] is not a valid name: use lower-case letters, digits, "_" and "-", starting with a letter or digit',
    );
    expect(errorOf({ agents: { 'my agent': {} } })).toBe(
      'agents.json: agents["my agent"] is not a valid name: use lower-case letters, digits, "_" and "-", starting with a letter or digit',
    );
    expect(errorOf({ agents: { '': {} } })).toBe(
      'agents.json: agents[""] is not a valid name: use lower-case letters, digits, "_" and "-", starting with a letter or digit',
    );
    expect(errorOf({ agents: { ['a'.repeat(41)]: {} } })).toBe(`agents.json: agents.${'a'.repeat(41)} is not a valid name: at most 40 characters (got 41)`);
  });

  it('refuses an entry that is not an object', () => {
    expect(errorOf({ agents: { reviewer: 'gemini --acp' } })).toBe(
      'agents.json: agents.reviewer must be an object with at least kind and command (got "gemini --acp")',
    );
    expect(errorOf({ agents: { reviewer: null } })).toBe('agents.json: agents.reviewer must be an object with at least kind and command (got null)');
  });

  it('accepts a host as ssh names it, and refuses one that would reach ssh as an option or holds a shell character', () => {
    const parsed = parseRegistry({ agents: { 'codex-big': { kind: 'codex', command: ['codex', 'exec'], host: 'me@build.example', cwd: '~/src' } } }, SRC);
    expect(parsed.entries[0]).toEqual({ name: 'codex-big', kind: 'codex', command: ['codex', 'exec'], host: 'me@build.example', cwd: '~/src' });
    expect(entryError({ kind: 'acp', command: ['x'], host: '-oProxyCommand=id' })).toMatch(/^agents\.json: agents\.reviewer\.host is not a host name ssh can be given: .*starts with '-'.* \(got "-oProxyCommand=id"\)$/);
    expect(entryError({ kind: 'acp', command: ['x'], host: 'build;id' })).toMatch(/agents\.reviewer\.host is not a host name ssh can be given: .*holds ";"/);
    expect(entryError({ kind: 'acp', command: ['x'], host: 7 })).toBe('agents.json: agents.reviewer.host must be a host name as ssh takes it, like "build" or "me@build.example" (got 7)');
  });

  it('refuses unknown fields, suggesting a near one', () => {
    expect(entryError({ kind: 'acp', comand: ['x'] })).toBe('agents.json: agents.reviewer.comand is not a known field (did you mean command?)');
    expect(entryError({ kind: 'acp', command: ['x'], Timeout: 60 })).toBe(
      'agents.json: agents.reviewer.Timeout is not a known field (did you mean timeout?)',
    );
    expect(entryError({ kind: 'acp', command: ['x'], env: {} })).toBe(
      'agents.json: agents.reviewer.env is not a known field (known fields: kind, command, cwd, timeout, idle_cancel, permissions, ask_timeout, ask_default, model, description, lane, host)',
    );
  });

  it('refuses a bad command, pointing at the bad element', () => {
    const rule = 'must be a list of strings, the program first, like ["gemini", "--acp"]';
    expect(entryError({ kind: 'acp' })).toBe(`agents.json: agents.reviewer.command ${rule} (missing)`);
    expect(entryError({ kind: 'acp', command: 'gemini --acp' })).toBe(`agents.json: agents.reviewer.command ${rule} (got "gemini --acp")`);
    expect(entryError({ kind: 'acp', command: [] })).toBe(`agents.json: agents.reviewer.command ${rule} (got [])`);
    expect(entryError({ kind: 'acp', command: { program: 'x' } })).toBe(`agents.json: agents.reviewer.command ${rule} (got an object)`);
    expect(entryError({ kind: 'acp', command: ['gemini', 1] })).toBe('agents.json: agents.reviewer.command[1] must be a string (got 1)');
    expect(entryError({ kind: 'acp', command: ['gemini', ['--acp']] })).toBe('agents.json: agents.reviewer.command[1] must be a string (got a list)');
    expect(entryError({ kind: 'acp', command: ['', '--acp'] })).toBe('agents.json: agents.reviewer.command[0] must name a program (got "")');
    expect(entryError({ kind: 'acp', command: ['  '] })).toBe('agents.json: agents.reviewer.command[0] must name a program (got "  ")');
    expect(entryError({ kind: 'acp', command: ['x', 'a\0b'] })).toBe('agents.json: agents.reviewer.command[1] must not contain a NUL character');
  });

  it('refuses a relative or non-string working directory', () => {
    expect(entryError({ kind: 'acp', command: ['x'], cwd: 'src' })).toBe(
      'agents.json: agents.reviewer.cwd must be an absolute path or one starting with ~/ (got "src")',
    );
    expect(entryError({ kind: 'acp', command: ['x'], cwd: '~bob/src' })).toBe(
      'agents.json: agents.reviewer.cwd must be an absolute path or one starting with ~/ (got "~bob/src")',
    );
    expect(entryError({ kind: 'acp', command: ['x'], cwd: 7 })).toBe(
      'agents.json: agents.reviewer.cwd must be an absolute path or one starting with ~/ (got 7)',
    );
  });

  it('refuses a timeout out of range, fractional or not a number', () => {
    const rule = 'agents.json: agents.reviewer.timeout must be a whole number of seconds from 30 to 3600';
    expect(entryError({ kind: 'acp', command: ['x'], timeout: 29 })).toBe(`${rule} (got 29)`);
    expect(entryError({ kind: 'acp', command: ['x'], timeout: 3601 })).toBe(`${rule} (got 3601)`);
    expect(entryError({ kind: 'acp', command: ['x'], timeout: 60.5 })).toBe(`${rule} (got 60.5)`);
    expect(entryError({ kind: 'acp', command: ['x'], timeout: '60' })).toBe(`${rule} (got "60")`);
    expect(entryError({ kind: 'acp', command: ['x'], timeout: null })).toBe(`${rule} (got null)`);
  });

  it('refuses an unknown permission policy', () => {
    expect(entryError({ kind: 'acp', command: ['x'], permissions: 'yes' })).toBe(
      'agents.json: agents.reviewer.permissions must be one of ask, allow, reject (got "yes")',
    );
    expect(entryError({ kind: 'acp', command: ['x'], permissions: true })).toBe(
      'agents.json: agents.reviewer.permissions must be one of ask, allow, reject (got true)',
    );
  });

  it('refuses an empty, non-string or multi-line model or description', () => {
    expect(entryError({ kind: 'acp', command: ['x'], model: '' })).toBe('agents.json: agents.reviewer.model must be a non-empty string (got "")');
    expect(entryError({ kind: 'acp', command: ['x'], model: 4 })).toBe('agents.json: agents.reviewer.model must be a non-empty string (got 4)');
    expect(entryError({ kind: 'acp', command: ['x'], description: ['a'] })).toBe(
      'agents.json: agents.reviewer.description must be a non-empty string (got a list)',
    );
    expect(entryError({ kind: 'acp', command: ['x'], description: 'one\ntwo' })).toBe('agents.json: agents.reviewer.description must be one line');
  });

  it('clips a long bad value in the message', () => {
    expect(entryError({ kind: 'k'.repeat(100), command: ['x'] })).toBe(
      `agents.json: agents.reviewer.kind must be one of acp, claude, codex, cap, command (got "${'k'.repeat(56)}...")`,
    );
  });

  it('keeps the source, the field and the problem on the error', () => {
    try {
      parseRegistry({ agents: { r: { kind: 'x', command: ['y'] } } }, '/home/u/.config/tai/agents.json');
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({
        name: 'RegistryError',
        source: '/home/u/.config/tai/agents.json',
        field: 'agents.r.kind',
        problem: 'must be one of acp, claude, codex, cap, command (got "x")',
      });
    }
  });
});

describe('BUILTIN_AGENTS', () => {
  it('holds the ACP agents and Claude Code and Codex with their commands', () => {
    expect(BUILTIN_AGENTS.map((e) => [e.name, e.kind, e.command.join(' ')])).toEqual([
      ['gemini', 'acp', 'gemini --acp'],
      ['opencode', 'acp', 'opencode acp'],
      ['goose', 'acp', 'goose acp'],
      ['qwen', 'acp', 'qwen --acp'],
      ['claude-acp', 'acp', 'npx -y @agentclientprotocol/claude-agent-acp'],
      ['codex-acp', 'acp', 'npx -y @agentclientprotocol/codex-acp'],
      ['claude', 'claude', 'claude -p --output-format stream-json --verbose --input-format stream-json'],
      ['codex', 'codex', 'codex exec --json --skip-git-repo-check'],
    ]);
  });

  it('offers opencode over ACP only, never `opencode run --format json` (no decoder: docs/agents.md says why)', () => {
    const opencode = BUILTIN_AGENTS.filter((e) => e.command[0] === 'opencode');
    expect(opencode.map((e) => [e.kind, e.command.join(' ')])).toEqual([['acp', 'opencode acp']]);
    expect(BUILTIN_AGENTS.some((e) => e.command.includes('run') && e.command.includes('--format'))).toBe(false);
  });

  it('passes its own validation', () => {
    const agents = Object.fromEntries(BUILTIN_AGENTS.map(({ name, ...rest }) => [name, rest]));
    expect(parseRegistry({ agents }, 'builtins').entries).toEqual(BUILTIN_AGENTS);
  });
});

describe('mergeRegistry', () => {
  const a: AgentEntry = { name: 'a', kind: 'acp', command: ['a'] };
  const b: AgentEntry = { name: 'b', kind: 'codex', command: ['b'] };

  it('replaces a built-in of the same name whole, in place, and appends new names in file order', () => {
    const userB: AgentEntry = { name: 'b', kind: 'command', command: ['my-b'], timeout: 60 };
    const z: AgentEntry = { name: 'z', kind: 'cap', command: ['z'] };
    const c: AgentEntry = { name: 'c', kind: 'claude', command: ['c'] };
    expect(mergeRegistry([a, b], [z, userB, c])).toEqual([a, userB, z, c]);
  });

  it('gives the built-ins alone when the user has none', () => {
    expect(mergeRegistry([a, b], [])).toEqual([a, b]);
    expect(mergeRegistry([], [b])).toEqual([b]);
  });
});

describe('findAgent', () => {
  it('finds an entry by name and refuses an unknown one with the known names', () => {
    expect(findAgent(BUILTIN_AGENTS, 'goose').command).toEqual(['goose', 'acp']);
    expect(() => findAgent(BUILTIN_AGENTS, 'gemni')).toThrow(UnknownAgentError);
    expect(() => findAgent(BUILTIN_AGENTS, 'gemni')).toThrow(
      'no agent named "gemni" (did you mean gemini?); known: claude, claude-acp, codex, codex-acp, gemini, goose, opencode, qwen; run tai agents to list them',
    );
    expect(() => findAgent([], 'x')).toThrow('no agent named "x"; known: none; run tai agents to list them');
  });
});

describe('resolveMention', () => {
  it('splits a mention into the name and the prompt', () => {
    expect(resolveMention('@gemini fix the failing test')).toEqual({ name: 'gemini', prompt: 'fix the failing test' });
    expect(resolveMention('  @claude-acp   review src/ \n')).toEqual({ name: 'claude-acp', prompt: 'review src/' });
    expect(resolveMention('@my_agent2 line one\nline two')).toEqual({ name: 'my_agent2', prompt: 'line one\nline two' });
  });

  it('accepts a colon or comma after the name', () => {
    expect(resolveMention('@codex: add tests')).toEqual({ name: 'codex', prompt: 'add tests' });
    expect(resolveMention('@codex, add tests')).toEqual({ name: 'codex', prompt: 'add tests' });
  });

  it('gives an empty prompt when only the name is typed', () => {
    expect(resolveMention('@goose')).toEqual({ name: 'goose', prompt: '' });
    expect(resolveMention('@goose   ')).toEqual({ name: 'goose', prompt: '' });
  });

  it('is null for text that is not a mention', () => {
    for (const text of ['', '@', '@ gemini hi', 'gemini hi', 'hi @gemini', '@Gemini hi', '@gemini.hi', '@-x hi', `@${'a'.repeat(41)} hi`, '@codex:add']) {
      expect(resolveMention(text), text).toBeNull();
    }
  });
});

describe('completeName', () => {
  const names = BUILTIN_AGENTS.map((e) => e.name);

  it('lists the names that start with the prefix, sorted, with or without @', () => {
    expect(completeName('c', names)).toEqual(['claude', 'claude-acp', 'codex', 'codex-acp']);
    expect(completeName('@cl', names)).toEqual(['claude', 'claude-acp']);
    expect(completeName('goose', names)).toEqual(['goose']);
    expect(completeName('x', names)).toEqual([]);
    expect(completeName('', ['b', 'a', 'a'])).toEqual(['a', 'b']);
  });

  it('finds what Tab can fill in from several matches', () => {
    expect(commonPrefix(completeName('cl', names))).toBe('claude');
    expect(commonPrefix(completeName('co', names))).toBe('codex');
    expect(commonPrefix(completeName('c', names))).toBe('c');
    expect(commonPrefix(['goose'])).toBe('goose');
    expect(commonPrefix([])).toBe('');
  });
});
