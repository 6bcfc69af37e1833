/**
 * What each agent costs, live: a real agent process group (behind the real
 * reaper) that burns CPU and holds 64 MB, sampled from the real /proc into
 * the real cockpit's agent list (prefix + w) and status line, as Ink draws them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFIX } from '../../src/core/input/keys.js';
import { spawnGroup, type GroupChild } from '../../src/io/agents/runners/process-group.js';
import { startCostSampler, type CostSampler } from '../../src/io/cost/cost-sampler.js';
import { until } from '../helpers/until.js';
import { mountCockpit } from './harness.js';

// The leader holds 64 MB it has written to (resident) and starts a second process that spins; both stay in the group.
const BURNER = `
const held = Buffer.alloc(64 * 1024 * 1024, 1);
require('node:child_process').spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
setInterval(() => held[0]++, 100);
`;

let m: ReturnType<typeof mountCockpit> | undefined;
let group: GroupChild | undefined;
let sampler: CostSampler | undefined;
afterEach(async () => {
  sampler?.stop();
  m?.unmount();
  group?.kill();
  await group?.exited;
  m = undefined;
  group = undefined;
  sampler = undefined;
});

describe('what each agent costs', () => {
  it('shows a burning agent group nonzero CPU and its resident memory in the agent list, and the cockpit its own in the status line', async () => {
    group = spawnGroup([process.execPath, '-e', BURNER]);
    const pgid = await group.started;
    expect(pgid).toBeGreaterThan(0);
    m = mountCockpit(140, 20, { now: () => Date.now() });
    const id = m.board.getState().open({ label: 'burner' }, Date.now());
    sampler = startCostSampler({ board: m.board, list: m.list, pgidOf: (asked) => (asked === id ? pgid : undefined), intervalMs: 3_600_000 });
    m.type(`${DEFAULT_PREFIX}w`); // the agents' figures are sampled while the list is open
    const cost = (): { cpu: number | undefined; rssBytes: number } | undefined => {
      const c = m!.list.getState().costs.get(id);
      return c === 'remote' ? undefined : c;
    };
    // Two processes: the leader (64 MB held) and the spinner; wait for both to be counted, sampling as time passes.
    await until(() => {
      sampler!.sample();
      const c = cost();
      return c !== undefined && (c.cpu ?? 0) >= 5 && c.rssBytes >= 64 * 1024 * 1024;
    }, { interval: 200, timeout: 20_000, what: 'the group to show CPU and the 64 MB it holds' });
    const c = cost();
    expect(c?.rssBytes).toBeLessThan(1024 * 1024 * 1024); // plausible: two node processes and 64 MB, not a gigabyte
    await vi.waitFor(() => expect(m!.text().join('\n')).toMatch(/#1 {2}burner · running · \d+s · cpu \d+% · \d+ MB/));
    const row = m.text().find((r) => r.includes('#1  burner')) ?? '';
    const [, cpu, mb] = /cpu (\d+)% · (\d+) MB/.exec(row) ?? [];
    expect(Number(cpu)).toBeGreaterThan(0);
    expect(Number(mb)).toBeGreaterThanOrEqual(64);
    // The cockpit's own figure on the status line, beside the counts.
    await vi.waitFor(() => expect(m!.text().at(-1)).toMatch(/^ tai 42 sh │ 1 running │ tai cpu (\d+%|<1%|…) · \d+ MB /));
  });

  it('shows a remote agent (the local end of tai spawn --host) as cpu - · -, its processes being on the host', async () => {
    // The local end of a remote agent is node running remote-run.js: a stand-in of that name that only waits.
    const dir = mkdtempSync(join(tmpdir(), 'tai-cost-'));
    try {
      writeFileSync(join(dir, 'remote-run.js'), 'setInterval(() => {}, 1000);\n');
      group = spawnGroup([process.execPath, join(dir, 'remote-run.js'), 'build-1', '--', 'ssh']);
      const pgid = await group.started;
      m = mountCockpit(140, 20, { now: () => Date.now() });
      const id = m.board.getState().open({ label: 'tests @build-1' }, Date.now());
      sampler = startCostSampler({ board: m.board, list: m.list, pgidOf: () => pgid, intervalMs: 3_600_000 });
      m.type(`${DEFAULT_PREFIX}w`);
      expect(m.list.getState().costs.get(id)).toBe('remote');
      await vi.waitFor(() => expect(m!.text().join('\n')).toMatch(/#1 {2}tests @build-1 · running · \d+s · cpu - · -/));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('samples the agents only while the list is open, and stops showing a cost once the agent ended', async () => {
    group = spawnGroup([process.execPath, '-e', 'setInterval(() => {}, 1000)']);
    const pgid = await group.started;
    m = mountCockpit(140, 20, { now: () => Date.now() });
    const id = m.board.getState().open({ label: 'idler' }, Date.now());
    sampler = startCostSampler({ board: m.board, list: m.list, pgidOf: () => pgid, intervalMs: 3_600_000 });
    expect(m.list.getState().costs.has(id)).toBe(false);
    expect(sampler.stats().read).toBe(0); // closed: /proc not read
    m.type(`${DEFAULT_PREFIX}w`); // opening it samples at once
    expect(m.list.getState().costs.has(id)).toBe(true);
    m.board.getState().finish(id, 'done', 'ok', Date.now());
    sampler.sample();
    expect(m.list.getState().costs.has(id)).toBe(false);
  });
});
