import { describe, expect, it } from 'vitest';
import { parseRegistry, RegistryError } from '../../../src/core/agents/agent-registry.js';
import { entrySpawnCommand } from '../../../src/core/agents/agent-spawn.js';
import { RequestError } from '../../../src/core/errors.js';
import { parseCommand } from '../../../src/core/protocol/command-json.js';

const entry = (idle: unknown) => ({ agents: { builder: { kind: 'command', command: ['make'], idle_cancel: idle } } });

describe("idle_cancel at every door", () => {
  it("is read from a registry entry and carried into the entry's spawn command", () => {
    const [builder] = parseRegistry(entry(900), 'agents.json').entries;
    if (!builder) throw new Error('no entry');
    expect(builder.idle_cancel).toBe(900);
    expect(entrySpawnCommand(builder, { cwd: '/tmp' }).idle_cancel).toBe(900);
    expect(entrySpawnCommand(builder, { cwd: '/tmp', idle_cancel: 120 }).idle_cancel).toBe(120);
  });

  it("refuses a registry entry's limit out of range in the registry's own words", () => {
    for (const bad of [59, 3601, 90.5, '90']) {
      expect(() => parseRegistry(entry(bad), 'agents.json')).toThrow(RegistryError);
    }
    expect(() => parseRegistry(entry(10), 'agents.json')).toThrow('agents.json: agents.builder.idle_cancel must be a whole number of seconds from 60 to 3600 (default 300) (got 10)');
  });

  it("is an optional field of the socket's spawn request, checked against the same range", () => {
    const ok = parseCommand({ cmd: 'spawn', kind: 'command', argv: ['make'], idle_cancel: 600 });
    expect(ok).toMatchObject({ cmd: 'spawn', idle_cancel: 600 });
    const bad = parseCommand({ cmd: 'spawn', kind: 'command', argv: ['make'], idle_cancel: 4000 });
    expect(bad).toBeInstanceOf(RequestError);
    expect((bad as RequestError).message).toBe('spawn idle_cancel must be a whole number of seconds from 60 to 3600 (default 300)');
  });
});
