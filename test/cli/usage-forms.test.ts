/**
 * A usage reads as man pages do: every form of the command (`usage: tai X`
 * and the `tai X` lines under it) first, then the notes on its options. A
 * form left after the notes reads as one of them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTai } from '../helpers/tai-cli.js';

const COMMANDS = ['spawn', 'status', 'agents', 'lane', 'hosts', 'poll', 'cancel', 'wait', 'logs', 'ask', 'record', 'vpane', 'outage', 'report', 'doctor'];

describe('the usage of each command', () => {
  it('gives every form of the command before any note on its options', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-usage-'));
    const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run'), TAI_PLEXER_SOCKET: '' };
    const late: string[] = [];
    for (const command of COMMANDS) {
      const help = await runTai([command, '--help'], env);
      expect(help.code).toBe(0);
      let noted = false;
      for (const line of help.out.split('\n')) {
        if (line.startsWith('usage:') || line === '') continue;
        if (/^ +tai /.test(line)) {
          if (noted) late.push(`tai ${command}: ${line.trim()}`);
        } else if (!line.startsWith(' ')) noted = true;
      }
    }
    expect(late).toEqual([]);
  }, 60_000);
});
