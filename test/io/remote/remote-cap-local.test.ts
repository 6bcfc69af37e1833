/**
 * The local cap counts only this machine's agents (docs/remote.md, "The cap
 * per host"): with 8 local agents running in a cockpit, agents on a host
 * still start (from the cockpit's socket and from a `tai spawn` outside it,
 * which counts the same machine-wide slots), each holding only its host's
 * slot; a 9th local agent is still refused. Through the private sshd of
 * test/helpers/sshd.ts and the built CLI (npm run build first).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCockpit, type CockpitProcess } from '../../helpers/cockpit-process.js';
import { processesRunning, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai } from '../../helpers/tai-cli.js';
import { until } from '../../helpers/until.js';

let server: TestSshd;
let cockpit: CockpitProcess | undefined;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'tai-remote-cap-local-'));
  env = { XDG_RUNTIME_DIR: join(home, 'run'), XDG_STATE_HOME: join(home, 'state'), TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb' };
});
afterAll(async () => {
  await cockpit?.stop();
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

function hostSlots(): string[] {
  try {
    return readdirSync(join(server.hostCache, 'tai', 'slots'));
  } catch {
    return [];
  }
}

describe('the local cap beside agents on a host', () => {
  it('lets agents on a host start while 8 local agents run, and still refuses a 9th local one', { timeout: 180_000 }, async () => {
    cockpit = await startCockpit(env);
    const socket = cockpit.socket;
    const local = Array.from({ length: 8 }, (_, i) => `sleep 4378.${process.pid}${i}`);
    for (const sleep of local) {
      const spawned = await runTai(['spawn', '--detach', '--socket', socket, '--', ...sleep.split(' ')], env);
      expect(spawned.code, spawned.err).toBe(0);
    }
    await until(() => local.every((s) => processesRunning(s).length === 1), { what: 'the 8 local agents running', timeout: 60_000, explain: cockpit.err });

    const remote = Array.from({ length: 2 }, (_, i) => `sleep 4379.${process.pid}${i}`);
    const ids: number[] = [];
    for (const sleep of remote) {
      const spawned = await runTai(['spawn', '--detach', '--socket', socket, '--host', TEST_HOST, '--', ...sleep.split(' ')], env);
      expect(spawned.err).toBe('');
      expect(spawned.code).toBe(0);
      ids.push(Number(spawned.out.trim()));
    }
    await until(() => remote.every((s) => processesRunning(s).length === 1), { what: 'the 2 agents running on the host', timeout: 60_000, explain: cockpit.err });
    expect(hostSlots().sort()).toEqual(['1', '2']);
    const status = JSON.parse((await runTai(['status', '--json', '--socket', socket], env)).out) as { agents: { id: number; state: string; label: string }[] };
    expect(status.agents.filter((a) => a.state === 'running')).toHaveLength(10);

    // Outside the cockpit, the same machine-wide slots: full with the cockpit's 8, yet an agent on the host runs.
    const outside = await runTai(['spawn', '--host', TEST_HOST, '--', 'echo', 'ran on the host'], env);
    expect(outside.err).toBe('tai: agent #1 done (exit 0 · 16 chars)\n');
    expect(outside.out).toBe('ran on the host\n');
    expect(outside.code).toBe(0);

    const ninth = await runTai(['spawn', '--detach', '--socket', socket, '--', 'echo', 'ninth'], env);
    expect(ninth.err).toBe('tai spawn: too many agents: 8 are running and the limit is 8; wait for one to finish or cancel one (tai cancel ID)\n');
    expect(ninth.code).toBe(75);

    await cockpit.stop();
    cockpit = undefined;
    await until(() => hostSlots().length === 0 && [...local, ...remote].every((s) => processesRunning(s).length === 0), { what: 'every agent ended with the cockpit', timeout: 30_000 });
  });
});
