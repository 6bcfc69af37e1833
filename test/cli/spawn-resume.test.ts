/** `tai spawn --resume SESSION_ID` (docs/restore.md): the agent's own session continued, refused for kinds that have none. */
import { describe, expect, it } from 'vitest';
import { run as spawnCli } from '../../src/cli/spawn/spawn.js';
import { fixture } from '../helpers/agents.js';
import { recordingIo } from '../helpers/recording-io.js';

const codex = ['--', process.execPath, fixture('resume-emitter.mjs'), 'codex', 'exec', '--json'];

describe('tai spawn --resume', () => {
  it('resumes a codex thread: the agent runs `exec ... resume ID -` with the prompt', async () => {
    const io = recordingIo({ env: {} });
    expect(await spawnCli(['--kind', 'codex', '--resume', 'thread-7', '--prompt', 'go on', ...codex], io)).toBe(0);
    expect(io.stdout).toBe('argv: exec --json resume thread-7 - · prompt: go on\n');
  });

  it('refuses with 64 for kinds that keep no session of their own, and an empty id', async () => {
    const io = recordingIo({ env: {} });
    expect(await spawnCli(['--resume', 'x', '--prompt', 'p', '--', 'true'], io)).toBe(64);
    expect(io.stderr).toContain("tai spawn: --resume continues an agent's own session: kinds claude, codex, acp have one, 'command' has none");
    expect(await spawnCli(['--kind', 'cap', '--resume', 'x', '--prompt', 'p', '--', 'true'], io)).toBe(64);
    expect(io.stderr).toContain("'cap' has none");
    expect(await spawnCli(['--kind', 'codex', '--resume', ' ', '--prompt', 'p', ...codex], io)).toBe(64);
    expect(io.stderr).toContain('--resume takes the session id the agent reported, not an empty one');
  });
});
