import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fixture } from '../helpers/agents.js';
import { testEnv } from '../helpers/test-env.js';

const node = process.execPath;
const cli = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
const until = (cond: () => boolean, timeout = 60_000): Promise<void> =>
  vi.waitFor(() => {
    if (!cond()) throw new Error('not yet');
  }, { timeout, interval: 20 });

interface Tai {
  readonly child: ChildProcess;
  readonly ready: string;
  stderr: string;
  code: number | null | undefined;
}

const started: Tai[] = [];
afterEach(async () => {
  // SIGKILL the supervisors: their reapers stop the agents.
  for (const tai of started.splice(0)) {
    if (tai.code === undefined) {
      tai.child.kill('SIGKILL');
      await once(tai.child, 'close');
    }
  }
});

/** A real `tai spawn` of the built CLI outside any cockpit, with an agent that sleeps until stopped. */
function taiSpawn(state: string, n: number): Tai {
  const ready = join(state, `ready-${n}`);
  const env: NodeJS.ProcessEnv = testEnv({ XDG_STATE_HOME: state });
  delete env['TAI_PLEXER_SOCKET'];
  const child = spawn(node, [cli, 'spawn', '--label', `sleeper ${n}`, '--', node, fixture('command-agent.mjs'), '--linger', '--ready', ready], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const tai: Tai = { child, ready, stderr: '', code: undefined };
  child.stderr?.on('data', (c: Buffer) => (tai.stderr += c.toString()));
  child.on('close', (code) => (tai.code = code));
  started.push(tai);
  return tai;
}

describe('the agent cap is the machine\'s (tai spawn outside a cockpit; npm run build first)', () => {
  it('runs exactly 8 of 10 racing tai spawn processes, refuses 2 with exit 75, and reclaims the slot of a SIGKILLed supervisor', async () => {
    const state = mkdtempSync(join(tmpdir(), 'tai-cap-'));
    const racers = Array.from({ length: 10 }, (_, n) => taiSpawn(state, n));
    await until(() => racers.filter((t) => t.code !== undefined).length === 2 && racers.filter((t) => existsSync(t.ready)).length === 8);
    const refused = racers.filter((t) => t.code !== undefined);
    expect(refused.map((t) => t.code)).toEqual([75, 75]);
    for (const t of refused) expect(t.stderr).toBe('tai spawn: too many agents: 8 are running and the limit is 8; wait for one to finish or cancel one (tai cancel ID)\n');
    const running = racers.filter((t) => t.code === undefined);
    expect(running).toHaveLength(8);

    // Still full: a ninth is refused.
    const ninth = taiSpawn(state, 10);
    await until(() => ninth.code !== undefined);
    expect(ninth.code).toBe(75);

    // A supervisor killed outright cannot give its slot back: the next claim finds its pid gone.
    const victim = running[0] as Tai;
    victim.child.kill('SIGKILL');
    await until(() => victim.code !== undefined);
    const next = taiSpawn(state, 11);
    await until(() => existsSync(next.ready));
    expect(next.code).toBeUndefined();
  }, 120_000);
});
