import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testEnv } from '../../helpers/test-env.js';

const CLI = fileURLToPath(new URL('../../../dist/src/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tai-undrawn-'));

describe('the cockpit with nothing drawn', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.runIf(existsSync(CLI))('runs the main program on the terminal as is and exits with its code', () => {
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    const r = spawnSync(process.execPath, [CLI, '--', 'sh', '-c', 'echo "inside $TAI_PLEXER_ACTIVE"; exit 3'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: testEnv({ TAI_ORCH_PANELS: '0', XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') }),
    });
    expect(r.stdout).toBe('inside 1\n');
    expect(r.status).toBe(3);
  });

  it.runIf(existsSync(CLI))('refuses a TAI_PREFIX that is Enter or no key with exit 64 before the main program starts', () => {
    for (const [prefix, said] of [
      ['C-m', 'tai: TAI_PREFIX="C-m" is Enter, which the main program needs; choose another key, or unset it for the default C-]\n'],
      ['foo', 'tai: TAI_PREFIX="foo" is not a key: write C-x or ^x for Ctrl+x (a letter or one of @ [ \\ ] ^ _), or one character; unset it for the default C-]\n'],
    ]) {
      const r = spawnSync(process.execPath, [CLI, '--', 'sh', '-c', 'echo started'], {
        encoding: 'utf8',
        timeout: 30_000,
        env: testEnv({ TAI_PREFIX: prefix, TAI_ORCH_PANELS: '0', XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') }),
      });
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(said);
      expect(r.status).toBe(64);
    }
  });
});
