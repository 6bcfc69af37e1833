/**
 * The cap of 8 counted on the machine the agents run on (docs/remote.md,
 * "The cap per host"): 8 agents on the host (from one cockpit) fill the
 * host's own slots, so a 9th from another tai (another state folder: another
 * machine's local slots) is refused naming the host, while that tai's local
 * agents start; one ending frees its slot on the host. Through the private
 * sshd of test/helpers/sshd.ts and the built CLI (npm run build first).
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

beforeAll(async () => {
  server = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'tai-remote-cap-'));
});
afterAll(async () => {
  await cockpit?.stop();
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

function envOf(name: string): NodeJS.ProcessEnv {
  return { XDG_RUNTIME_DIR: join(home, name, 'run'), XDG_STATE_HOME: join(home, name, 'state'), TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb' };
}

function hostSlots(): string[] {
  try {
    return readdirSync(join(server.hostCache, 'tai', 'slots'));
  } catch {
    return [];
  }
}

describe("a host's own slots", () => {
  it('refuse the 9th agent on one host with the host named, leave the local slots alone, and free a slot when its agent ends', { timeout: 180_000 }, async () => {
    const first = envOf('laptop');
    cockpit = await startCockpit(first);
    const sleeps = Array.from({ length: 8 }, (_, i) => `sleep 4377.${process.pid}${i}`);
    const ids: number[] = [];
    for (const sleep of sleeps) {
      const spawned = await runTai(['spawn', '--detach', '--socket', cockpit.socket, '--host', TEST_HOST, '--', ...sleep.split(' ')], first);
      expect(spawned.code, spawned.err).toBe(0);
      ids.push(Number(spawned.out.trim()));
    }
    await until(() => sleeps.every((s) => processesRunning(s).length === 1), { what: 'the 8 agents running on the host', timeout: 60_000, explain: cockpit.err });
    expect(hostSlots().sort()).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);

    // Another tai (its own state folder: its own local slots) sends a 9th to the same host.
    const second = envOf('desktop');
    const ninth = await runTai(['spawn', '--host', TEST_HOST, '--', 'echo', 'ran'], second);
    expect(ninth.err).toBe(`tai spawn: too many agents on ${TEST_HOST}: 8 are running and the limit is 8; wait for one to finish or cancel one (tai cancel ID)\n`);
    expect(ninth.code).toBe(75);
    expect(ninth.out).toBe('');
    const local = await runTai(['spawn', '--', 'echo', 'local'], second);
    expect(local.out).toBe('local\n');
    expect(local.code).toBe(0);

    expect((await runTai(['cancel', String(ids[0]), '--socket', cockpit.socket], first)).code).toBe(0);
    await until(() => hostSlots().length === 7, { what: 'the cancelled agent to free its slot on the host', timeout: 30_000 });
    const now = await runTai(['spawn', '--host', TEST_HOST, '--', 'echo', 'ran'], second);
    expect(now.out).toBe('ran\n');
    expect(now.code).toBe(0);
    await cockpit.stop();
    cockpit = undefined;
    await until(() => hostSlots().length === 0 && sleeps.every((s) => processesRunning(s).length === 0), { what: 'every slot freed on the host', timeout: 30_000 });
  });
});
