/**
 * `tai hosts` and `tai hosts check NAME` against a real sshd on 127.0.0.1
 * (test/helpers/sshd.ts), through the built CLI (npm run build first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai } from '../../helpers/tai-cli.js';

let server: TestSshd;
let state: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startSshd();
  state = mkdtempSync(join(tmpdir(), 'tai-hosts-state-'));
  env = { XDG_STATE_HOME: state, TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb' };
});
afterAll(async () => {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
});

describe('tai hosts', () => {
  it('says there is no host before any remote agent, then lists the host with its connection up', async () => {
    const before = await runTai(['hosts'], env);
    expect(before.out).toBe('no host yet (tai spawn --host NAME -- CMD runs an agent on one)\n');
    expect(before.code).toBe(0);
    expect((await runTai(['spawn', '--host', TEST_HOST, '--', 'true'], env)).code).toBe(0);
    const after = await runTai(['hosts'], env);
    expect(after.out).toMatch(new RegExp(`^${TEST_HOST}  connected  \\d+ ms\\n$`));
    const json = await runTai(['hosts', '--json'], env);
    expect(JSON.parse(json.out)).toEqual([expect.objectContaining({ host: TEST_HOST, up: true })]);
  });

  it('lists a host whose connection went down as not connected', async () => {
    const other = mkdtempSync(join(tmpdir(), 'tai-hosts-state-'));
    try {
      const down = { ...env, XDG_STATE_HOME: other };
      expect((await runTai(['spawn', '--host', TEST_HOST, '--', 'true'], down)).code).toBe(0);
      // The master of this state folder ends (as when the host goes away); the listing says so.
      const { spawnSync } = await import('node:child_process');
      const { exitArgv } = await import('../../../src/io/remote/ssh-argv.js');
      const { placeOf } = await import('../../../src/io/remote/ssh-master.js');
      const [file, ...rest] = exitArgv(placeOf(TEST_HOST, down));
      expect(spawnSync(file ?? 'ssh', rest).status).toBe(0);
      const listed = await runTai(['hosts'], down);
      expect(listed.out).toBe(`${TEST_HOST}  not connected\n`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('tai hosts check', () => {
  it('says ssh works and what the host has and lacks', async () => {
    const run = await runTai(['hosts', 'check', TEST_HOST], env);
    expect(run.out).toMatch(/^ok   ssh works \(Linux /);
    expect(run.out).toContain('ok   has /proc: descendants that call setsid are stopped too');
    expect(run.out).toMatch(/agent CLI/);
    expect(run.code).toBe(0);
  });

  it('says ssh fails, with its reason and exit 69, for a host that does not answer', async () => {
    const run = await runTai(['hosts', 'check', 'root@127.0.0.1'], { ...env, TAI_SSH_CONFIG: '/dev/null' });
    expect(run.out).toMatch(/^NO   ssh fails: .*(refused|Permission denied)/);
    expect(run.code).toBe(69);
  });

  it('refuses a host name that would be an option, with exit 64', async () => {
    const run = await runTai(['hosts', 'check', '--', '-oProxyCommand=true'], env);
    expect(run.err).toMatch(/starts with '-'/);
    expect(run.code).toBe(64);
  });
});
