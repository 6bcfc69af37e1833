/**
 * A host's outage (src/io/remote/host-outage.ts): the shared widening
 * schedule, one probe at a time for every waiter of the host, the outcome
 * seen by all. A fake clock and sleep; the outage file is real.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { afterProbe, hostOutageFile, hostOutageLines, readHostOutage, reportHostLoss, waitForHost } from '../../../src/io/remote/host-outage.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(): { env: NodeJS.ProcessEnv; clock: { t: number }; sleep: (ms: number) => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'tai-host-outage-'));
  dirs.push(dir);
  const clock = { t: 1_000_000 };
  const sleep = async (ms: number): Promise<void> => {
    clock.t += ms;
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { env: { XDG_STATE_HOME: dir }, clock, sleep };
}

describe("a host's outage", () => {
  it('probes a minute after the loss, then five minutes after a failed probe, and is back when a probe succeeds', async () => {
    const { env, clock, sleep } = setup();
    const probes: number[] = [];
    const lostAt = clock.t;
    const end = await waitForHost('build', lostAt, {
      env,
      now: () => clock.t,
      sleep,
      probe: async () => {
        probes.push(clock.t - lostAt);
        return probes.length === 1 ? { ok: false, detail: 'Connection timed out' } : { ok: true, detail: 'exit 0' };
      },
    });
    expect(end.kind).toBe('back');
    expect(probes).toEqual([60_000, 360_000]);
    expect(readHostOutage(hostOutageFile('build', env))).toMatchObject({ attempts: 1, detail: 'Connection timed out' });
  });

  it('runs one probe for every agent of the host that waits', async () => {
    const { env, clock, sleep } = setup();
    let probes = 0;
    const probe = async (): Promise<{ ok: boolean; detail: string }> => {
      probes += 1;
      await sleep(5_000);
      return { ok: true, detail: 'exit 0' };
    };
    const waits = [0, 1, 2].map(() => waitForHost('gpu', clock.t, { env, now: () => clock.t, sleep, probe }));
    const ends = await Promise.all(waits);
    expect(ends.map((end) => end.kind)).toEqual(['back', 'back', 'back']);
    expect(probes).toBe(1);
  });

  it('is back at once for a loss the host has answered since', async () => {
    const { env, clock, sleep } = setup();
    await waitForHost('box', clock.t, { env, now: () => clock.t, sleep, probe: async () => ({ ok: true, detail: 'exit 0' }) });
    const end = await waitForHost('box', clock.t - 1, { env, now: () => clock.t, sleep, probe: async () => ({ ok: false, detail: 'never asked' }) });
    expect(end.kind).toBe('back');
  });

  it('is listed for tai outage status while a waiter looks at it, and not once it is over', async () => {
    const { env, clock, sleep } = setup();
    reportHostLoss(hostOutageFile('build', env), 'build', clock.t, 1);
    expect(hostOutageLines(Date.now(), env)).toEqual([expect.stringMatching(/^waiting for host build \(ssh:\/\/build, lost at .*\): probe 1 at /)]);
    await waitForHost('build', clock.t, { env, now: () => clock.t, sleep, probe: async () => ({ ok: true, detail: 'exit 0' }) });
    expect(hostOutageLines(Date.now(), env)).toEqual([]);
  });

  it('gives up when the probe at the end of the hourly stage fails', () => {
    let outage = { host: 'h', startedAt: 0, attempts: 0, nextProbeAt: 60_000, timeScale: 1 };
    let now = 0;
    for (let i = 0; i < 20 && !('gaveUpAt' in outage); i += 1) {
      now = outage.nextProbeAt;
      outage = afterProbe(outage, false, 'no answer', now) as typeof outage;
    }
    expect(outage).toMatchObject({ gaveUpAt: now });
  });
});
