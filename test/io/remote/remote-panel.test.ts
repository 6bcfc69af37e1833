/**
 * A remote command agent in a real cockpit (drawing off; its board, service
 * and socket real): its panel's label names the host, its output reaches the
 * panel's transcript while it runs, and `tai cancel` leaves nothing on the
 * host (this machine, through the private sshd of test/helpers/sshd.ts).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCockpit, type CockpitProcess } from '../../helpers/cockpit-process.js';
import { processesRunning, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai } from '../../helpers/tai-cli.js';
import { until, untilPasses } from '../../helpers/until.js';
import { call } from '../../../src/io/socket/control-client.js';

let server: TestSshd;
let cockpit: CockpitProcess | undefined;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'tai-remote-panel-'));
  env = { XDG_RUNTIME_DIR: join(home, 'run'), XDG_STATE_HOME: join(home, 'state'), TAI_SSH_CONFIG: server.config, NO_COLOR: '1', TERM: 'dumb' };
  cockpit = await startCockpit(env);
});
afterAll(async () => {
  await cockpit?.stop();
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('a remote agent in the cockpit', () => {
  it('shows the host in its label, streams its output into its panel while it runs, and is cancelled on the host too', async () => {
    if (cockpit === undefined) throw new Error('no cockpit');
    const sleep = `sleep 4311.${process.pid}`;
    const spawned = await runTai(['spawn', '--detach', '--socket', cockpit.socket, '--host', TEST_HOST, '--', 'sh', '-c', `echo first-line; setsid ${sleep} & echo second-line; ${sleep}`], env);
    expect(spawned.err).toBe('');
    expect(spawned.code).toBe(0);
    const id = Number(spawned.out.trim());
    const status = await runTai(['status', '--json', '--socket', cockpit.socket], env);
    expect(JSON.stringify(JSON.parse(status.out))).toContain(`"label":"command sh @${TEST_HOST}"`);
    await untilPasses(async () => {
      const logs = await runTai(['logs', String(id)], env);
      expect(logs.out).toContain('first-line\nsecond-line\n');
    }, { timeout: 20_000, interval: 200 });
    await until(() => processesRunning(sleep).length === 2, { what: 'the agent and its setsid child on the host', timeout: 20_000 });
    expect((await runTai(['cancel', String(id), '--socket', cockpit.socket], env)).code).toBe(0);
    await until(() => processesRunning(sleep).length === 0 && readdirSync(server.hostTmp).length === 0, { what: 'nothing of the agent left on the host', timeout: 25_000, explain: cockpit.err });
  });

  it('takes steering lines typed to the panel (--stdin) on its stdin on the host', async () => {
    if (cockpit === undefined) throw new Error('no cockpit');
    const spawned = await runTai(['spawn', '--detach', '--stdin', '--socket', cockpit.socket, '--host', TEST_HOST, '--', 'sh', '-c', 'echo ready; while IFS= read -r l; do echo "got:$l"; done'], env);
    expect(spawned.code).toBe(0);
    const id = Number(spawned.out.trim());
    const logsHave = (text: string) => untilPasses(async () => expect((await runTai(['logs', String(id)], env)).out).toContain(text), { timeout: 20_000, interval: 200 });
    await logsHave('ready\n');
    expect(await call(cockpit.socket, { cmd: 'steer', id, text: "a 'steering' $(line)" })).toMatchObject({ ok: true });
    await logsHave("got:a 'steering' $(line)\n");
    expect((await runTai(['cancel', String(id), '--socket', cockpit.socket], env)).code).toBe(0);
  });

  it('ends its remote agents on the host when the cockpit ends', async () => {
    const own = { ...env, XDG_RUNTIME_DIR: join(home, 'run2') };
    const ending = await startCockpit(own);
    const sleep = `sleep 4312.${process.pid}`;
    const spawned = await runTai(['spawn', '--detach', '--socket', ending.socket, '--host', TEST_HOST, '--', 'sh', '-c', `setsid ${sleep} & ${sleep}`], own);
    expect(spawned.code).toBe(0);
    await until(() => processesRunning(sleep).length === 2, { what: 'the agent and its setsid child on the host', timeout: 20_000 });
    await ending.stop();
    await until(() => processesRunning(sleep).length === 0 && readdirSync(server.hostTmp).length === 0, { what: 'nothing of the agent left on the host', timeout: 25_000 });
  });
});
