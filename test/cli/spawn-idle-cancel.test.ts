import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTai } from '../helpers/tai-cli.js';

describe('tai spawn --idle-cancel', () => {
  it('refuses a limit outside 60..3600 seconds with the range and exit 64, starting nothing', async () => {
    const env = { XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'tai-idle-')), TAI_PLEXER_SOCKET: '' };
    for (const bad of ['59', '3601', '90.5', 'soon']) {
      const run = await runTai(['spawn', '--idle-cancel', bad, '--', 'sh', '-c', 'echo ran'], env);
      expect(run.code).toBe(64);
      expect(run.out).toBe('');
      expect(run.err.split('\n')[0]).toBe(`tai spawn: --idle-cancel must be a whole number of seconds from 60 to 3600 (default 300), got '${bad}'`);
    }
  });

  it('runs an agent with a limit in range and lists the option in its usage', async () => {
    const env = { XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'tai-idle-')), TAI_PLEXER_SOCKET: '' };
    const run = await runTai(['spawn', '--idle-cancel', '60', '--', 'sh', '-c', 'echo ran'], env);
    expect(run).toMatchObject({ code: 0, out: 'ran\n' });
    const help = await runTai(['spawn', '--help']);
    expect(help.out).toContain('--idle-cancel S cancels the agent after S seconds without an event (60..3600, default 300).');
  });
});
