import { chmodSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import stripAnsi from 'strip-ansi';
import { describe, expect, it } from 'vitest';
import { untilPasses } from '../../helpers/until.js';
import { testEnv } from '../../helpers/test-env.js';

const CLI = fileURLToPath(new URL('../../../dist/src/cli.js', import.meta.url));

describe.runIf(existsSync(CLI))('what the cockpit must tell the user at start', () => {
  it('says on screen that its socket folder was unsafe and where the socket is instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-notice-'));
    const runtime = join(dir, 'run');
    mkdirSync(join(runtime, 'tai'), { recursive: true });
    chmodSync(join(runtime, 'tai'), 0o777); // another user could have made it so
    const env = testEnv({ XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: join(dir, 'state') });
    const p = pty.spawn(process.execPath, [CLI, '--', 'sh', '-c', 'read line'], { cols: 160, rows: 30, env });
    let out = '';
    p.onData((d) => (out += d));
    const exited = new Promise<number>((resolve) => p.onExit((e) => resolve(e.exitCode)));
    await untilPasses(() => expect(stripAnsi(out)).toMatch(/tai: the socket folder .*tai is open to others/), { timeout: 15_000 });
    expect(stripAnsi(out)).toContain('The control socket is at');
    p.write('\r');
    expect(await exited).toBe(0);
  });
});
