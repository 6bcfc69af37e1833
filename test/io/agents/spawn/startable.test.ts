import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CannotStartError, checkStartable } from '../../../../src/io/agents/spawn/startable.js';
import { testEnv } from '../../../helpers/test-env.js';

const CLI = fileURLToPath(new URL('../../../../dist/src/cli.js', import.meta.url));

describe('an agent that cannot start', () => {
  it('is refused before a panel opens, naming the program or the folder', () => {
    expect(() => checkStartable(['nosuchcmd'], undefined, { PATH: '/usr/bin:/bin' })).toThrow(new CannotStartError('cannot start nosuchcmd: not found on PATH'));
    expect(() => checkStartable(['ls'], '/nonexistent', { PATH: '/usr/bin:/bin' })).toThrow('cannot start in /nonexistent: no such folder');
    expect(() => checkStartable(['./nope.sh'], tmpdir(), { PATH: '/usr/bin:/bin' })).toThrow('cannot start ./nope.sh: no such executable file');
    expect(() => checkStartable(['ls', '-l'], tmpdir(), { PATH: '/usr/bin:/bin' })).not.toThrow();
  });

  it.runIf(existsSync(CLI))('says why in tai spawn\'s output and exits 127, as a shell would', () => {
    const env = testEnv({ XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'tai-start-')), TAI_PLEXER_SOCKET: '' });
    const missing = spawnSync(process.execPath, [CLI, 'spawn', '--', 'nosuchcmd'], { encoding: 'utf8', env });
    expect([missing.status, missing.stderr]).toEqual([127, 'tai spawn: cannot start nosuchcmd: not found on PATH\n']);
    const nowhere = spawnSync(process.execPath, [CLI, 'spawn', '--cwd', '/nonexistent', '--', 'ls'], { encoding: 'utf8', env });
    expect([nowhere.status, nowhere.stderr]).toEqual([127, 'tai spawn: cannot start in /nonexistent: no such folder\n']);
    const acp = spawnSync(process.execPath, [CLI, 'spawn', '--kind', 'acp', '--', 'nosuchgemini', '--acp'], { encoding: 'utf8', env });
    expect([acp.status, acp.stderr]).toEqual([127, 'tai spawn: cannot start nosuchgemini: not found on PATH\n']);
  });
});
