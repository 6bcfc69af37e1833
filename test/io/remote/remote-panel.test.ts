/**
 * A remote command agent in a real cockpit (drawing off; its board, service
 * and socket real): its panel's label names the host, its output reaches the
 * panel's transcript while it runs, and `tai cancel` leaves nothing on the
 * host (this machine, through the private sshd of test/helpers/sshd.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCockpit, type CockpitProcess } from '../../helpers/cockpit-process.js';
import { descendants, processesRunning, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
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
  // The outage schedule at 0.05: a lost link's first probe of the host comes 3 s after the loss.
  env = { XDG_RUNTIME_DIR: join(home, 'run'), XDG_STATE_HOME: join(home, 'state'), TAI_SSH_CONFIG: server.config, TAI_OUTAGE_TIME_SCALE: '0.05', NO_COLOR: '1', TERM: 'dumb' };
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

  it('says in the panel that it waits for the host when the link is lost, then reattaches: every line once, in order', { timeout: 90_000 }, async () => {
    if (cockpit === undefined) throw new Error('no cockpit');
    const go = join(home, 'go');
    const script = `i=0; while [ $i -lt 30 ]; do i=$((i+1)); echo "seq $i"; [ $i = 10 ] && while [ ! -e ${go} ]; do sleep 0.1; done; done; exit 0`;
    const spawned = await runTai(['spawn', '--detach', '--socket', cockpit.socket, '--host', TEST_HOST, '--', 'sh', '-c', script], env);
    expect(spawned.code).toBe(0);
    const id = Number(spawned.out.trim());
    const logsHave = (text: string) => untilPasses(async () => expect((await runTai(['logs', String(id)], env)).out).toContain(text), { timeout: 30_000, interval: 200 });
    await logsHave('seq 10\n');
    // The host's side of the link goes: its sshd session processes, not the agent.
    for (const pid of descendants(server.process.pid ?? -1).filter((p) => readCmd(p).startsWith('sshd'))) process.kill(pid, 'SIGKILL');
    await logsHave('the agent goes on there; waiting for the host (outage of ssh://taitest)');
    writeFileSync(go, '');
    await logsHave('reattached to the agent on taitest');
    await logsHave('seq 30\n');
    const logs = (await runTai(['logs', String(id)], env)).out;
    const seqs = logs.split('\n').filter((line) => /^seq \d+$/.test(line));
    expect(seqs).toEqual(Array.from({ length: 30 }, (_, i) => `seq ${i + 1}`));
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

function readCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}
