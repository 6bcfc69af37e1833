import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { describe, expect, it } from 'vitest';
import { putTaiOnPath } from '../../../../src/io/cockpit/main/tai-on-path.js';
import { testEnv } from '../../../helpers/test-env.js';

const CLI = fileURLToPath(new URL('../../../../dist/src/cli.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe.runIf(existsSync(CLI))('tai on the main pane’s PATH', () => {
  it('puts a private folder with a tai that runs this CLI first on PATH, and removes it', () => {
    const onPath = putTaiOnPath({ PATH: '/usr/bin:/bin' }, CLI);
    const dir = (onPath.env.PATH ?? '').split(':')[0] ?? '';
    expect(onPath.env.PATH).toBe(`${dir}:/usr/bin:/bin`);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(execFileSync('tai', ['--version'], { env: onPath.env, encoding: 'utf8' })).toBe(`${VERSION}\n`);
    onPath.remove();
    expect(existsSync(dir)).toBe(false);
  });

  it('lets the shell in the cockpit run tai with no tai installed', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'tai-path-')), 'out');
    const env = testEnv({ PATH: '/usr/bin:/bin' }); // no tai there
    const p = pty.spawn(process.execPath, [CLI, '--', 'sh', '-c', `tai --version > ${out}`], { cols: 100, rows: 30, env: { ...env, XDG_STATE_HOME: dirname(out) } });
    const code = await new Promise<number>((resolve) => p.onExit((e) => resolve(e.exitCode)));
    expect(code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`${VERSION}\n`);
  });
});
