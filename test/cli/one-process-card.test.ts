/**
 * A cockpit in one process (stdout not a terminal) with the built CLI: it
 * has a card like a server's, so `tai ls` lists it, `-t NAME` reaches it
 * from outside (`tai spawn --detach`, `tai status`, `tai logs`), `tai kill`
 * ends it, and its card goes with it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTai, TAI_CLI } from '../helpers/tai-cli.js';
import { untilPasses } from '../helpers/until.js';
import { testEnv } from '../helpers/test-env.js';

const dir = mkdtempSync(join(tmpdir(), 'tai-solo-'));
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run'), XDG_CONFIG_HOME: join(dir, 'config'), TAI_SERVER: '', TAI_PLEXER_SOCKET: '', TAI_COCKPIT: '', NO_COLOR: '' };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a cockpit in one process', () => {
  it('is listed by tai ls, reached with -t from outside, read by tai logs -t and ended by tai kill', async () => {
    mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
    const cockpit = spawn(process.execPath, [TAI_CLI, '-s', 'solo', '--', 'sleep', '300'], { env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    const ended = new Promise<number>((resolve) => cockpit.on('close', (code, signal) => resolve(code ?? (signal ? 128 : -1))));
    try {
      await untilPasses(async () => {
        const ls = await runTai(['ls'], env);
        expect(ls.out).toMatch(/^solo +\d+ +sleep 300 +/m);
      }, { timeout: 20_000, interval: 100 });
      await untilPasses(async () => expect((await runTai(['status', '-t', 'solo'], env)).code).toBe(0), { timeout: 20_000, interval: 100 });
      const spawned = await runTai(['spawn', '-t', 'solo', '--detach', '--label', 'in-solo', '--', 'sh', '-c', 'echo from solo'], env);
      expect(spawned).toMatchObject({ code: 0, out: '1\n' });
      await untilPasses(async () => {
        const logs = await runTai(['logs', '-t', 'solo', '1'], env);
        expect(logs.code).toBe(0);
        expect(logs.out).toContain('from solo');
      }, { timeout: 20_000, interval: 100 });
      // Its agents are counted through its control socket; no client can attach it.
      await untilPasses(async () => expect((await runTai(['ls'], env)).out).toMatch(/^solo +\d+ +sleep 300 +\S+ +0 running, 0 ask you, 1 finished +0 +\d+s$/m), { timeout: 20_000, interval: 100 });
      const named = await runTai(['logs', '-t', 'nobody', '1'], env);
      expect(named.code).toBe(2);
      expect(named.err).toContain("no cockpit named 'nobody' is running");
      const killed = await runTai(['kill', 'solo'], env);
      expect(killed).toMatchObject({ code: 0, out: 'cockpit solo ended (its agents are stopped)\n' });
      await ended;
      expect(existsSync(join(env.XDG_RUNTIME_DIR, 'tai', 'cockpit-solo.json'))).toBe(false);
      expect((await runTai(['ls'], env)).out).toBe('no cockpit is running (tai starts one)\n');
    } finally {
      cockpit.kill('SIGKILL');
    }
  }, 90_000);
});
