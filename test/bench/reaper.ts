/**
 * The helper processes between the supervisor and its agents: the RSS (and
 * PSS, which counts shared pages once) of the reapers of 8 silent agents,
 * native vs the node fallback, in one run (docs/agents.md, "The reaper").
 * The agents are `sleep`: only the reapers are measured. A benchmark reports;
 * it never fails.
 */
import { readFileSync } from 'node:fs';
import { spawnGroup, type GroupChild } from '../../src/io/agents/runners/process-group.js';
import { builtReaper, type ReaperKind } from '../../src/io/agents/runners/reaper-binary.js';

const AGENTS = 8;

/** A /proc field in kB (VmRSS from status, Pss from smaps_rollup); NaN if unreadable. */
function kb(pid: number, file: 'status' | 'smaps_rollup', field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** Sum of RSS and PSS (kB) of the reapers of `AGENTS` silent agents behind `kind`. */
async function measure(kind: ReaperKind): Promise<{ rss: number; pss: number }> {
  const groups: GroupChild[] = [];
  for (let i = 0; i < AGENTS; i++) groups.push(spawnGroup(['sleep', '60'], { reaper: kind }));
  await Promise.all(groups.map((g) => g.started));
  // The node reaper is still settling right after it reports the pid.
  await new Promise((r) => setTimeout(r, 300));
  const pids = groups.map((g) => g.reaper.pid as number);
  const rss = pids.reduce((s, pid) => s + kb(pid, 'status', 'VmRSS'), 0);
  const pss = pids.reduce((s, pid) => s + kb(pid, 'smaps_rollup', 'Pss'), 0);
  for (const g of groups) g.kill();
  await Promise.all(groups.map((g) => g.exited));
  return { rss, pss };
}

const mb = (k: number) => (Number.isFinite(k) ? (k / 1024).toFixed(1) : 'n/a');

/** Runs the reaper benchmark and prints its table. */
export async function run(): Promise<void> {
  process.stdout.write(`\n## reapers of ${AGENTS} silent agents (RSS and PSS in MB)\n\n`);
  process.stdout.write('| reaper | RSS per agent | RSS, all | PSS per agent | PSS, all |\n|---|---|---|---|---|\n');
  const kinds: ReaperKind[] = builtReaper() ? ['native', 'node'] : ['node'];
  if (kinds.length === 1) process.stdout.write('| native | not built (node src/native/build.mjs) | | | |\n');
  for (const kind of kinds) {
    const { rss, pss } = await measure(kind);
    process.stdout.write(`| ${kind} | ${mb(rss / AGENTS)} | ${mb(rss)} | ${mb(pss / AGENTS)} | ${mb(pss)} |\n`);
  }
}
