/**
 * The helper processes between the supervisor and its agents: the RSS (and
 * PSS, which counts shared pages once) of the reapers of 8 silent agents,
 * native (as built, and the same source linked dynamically, when cc is
 * there) vs the node fallback, in one run (docs/agents.md, "The reaper");
 * and of one reaper alone, whose pages nobody else shares. The agents are
 * `sleep`: only the reapers are measured. A benchmark reports; it never fails.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnGroup, type GroupChild } from '../../src/io/agents/runners/process-group.js';
import { builtReaper } from '../../src/io/agents/runners/reaper-binary.js';

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

/** A native reaper at `path` (TAI_REAPER takes an absolute path), or the node one. */
type Which = { readonly kind: 'native'; readonly path: string } | { readonly kind: 'node' };

/** Sum of RSS and PSS (kB) of the reapers of `count` silent agents behind `which`. */
async function measure(which: Which, count: number): Promise<{ rss: number; pss: number }> {
  const before = process.env['TAI_REAPER'];
  process.env['TAI_REAPER'] = which.kind === 'native' ? which.path : 'node';
  const groups: GroupChild[] = [];
  try {
    for (let i = 0; i < count; i++) groups.push(spawnGroup(['sleep', '60']));
  } finally {
    if (before === undefined) delete process.env['TAI_REAPER'];
    else process.env['TAI_REAPER'] = before;
  }
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

/** True when the ELF file at `path` asks for a program interpreter (PT_INTERP): linked dynamically. */
function linkedDynamically(path: string): boolean {
  const elf = readFileSync(path);
  const [phoff, size, count] = [Number(elf.readBigUInt64LE(0x20)), elf.readUInt16LE(0x36), elf.readUInt16LE(0x38)];
  for (let i = 0; i < count; i++) if (elf.readUInt32LE(phoff + i * size) === 3) return true;
  return false;
}

/** reaper.c linked dynamically into a temporary folder, as build.mjs links it without libc.a; undefined without cc. */
function dynamicReaper(dir: string): string | undefined {
  const out = join(dir, 'tai-reaper');
  const source = fileURLToPath(new URL('../../../src/native/reaper.c', import.meta.url));
  return spawnSync(process.env['CC'] || 'cc', ['-O2', '-o', out, source]).status === 0 ? out : undefined;
}

/** A copy of the binary at `path` in a new folder of `dir`, named tai-reaper. */
function copied(path: string, dir: string): string {
  const out = join(mkdtempSync(join(dir, 'alone-')), 'tai-reaper');
  copyFileSync(path, out);
  chmodSync(out, 0o755);
  return out;
}

/** Runs the reaper benchmark and prints its table. */
export async function run(): Promise<void> {
  process.stdout.write(`\n## reapers of ${AGENTS} silent agents, and of one alone (RSS and PSS in MB)\n\n`);
  process.stdout.write('| reaper | RSS per agent | RSS, all | PSS per agent | PSS, all | alone: RSS | alone: PSS |\n|---|---|---|---|---|---|---|\n');
  const dir = mkdtempSync(join(tmpdir(), 'tai-bench-reaper-'));
  const built = builtReaper();
  const dynamic = built === undefined ? undefined : dynamicReaper(dir);
  const rows: [string, Which][] = [];
  if (built === undefined) process.stdout.write('| native | not built (node src/native/build.mjs) | | | | | |\n');
  else rows.push([`native, as built (linked ${linkedDynamically(built) ? 'dynamically' : 'statically'})`, { kind: 'native', path: built }]);
  if (dynamic !== undefined) rows.push(['native, the same source linked dynamically', { kind: 'native', path: dynamic }]);
  rows.push(['node', { kind: 'node' }]);
  for (const [what, which] of rows) {
    const { rss, pss } = await measure(which, AGENTS);
    // Alone: a copy of the binary, so that no other reaper (another cockpit's, the rows above) shares its pages.
    const alone = await measure(which.kind === 'native' ? { kind: 'native', path: copied(which.path, dir) } : which, 1);
    process.stdout.write(`| ${what} | ${mb(rss / AGENTS)} | ${mb(rss)} | ${mb(pss / AGENTS)} | ${mb(pss)} | ${mb(alone.rss)} | ${mb(alone.pss)} |\n`);
  }
  rmSync(dir, { recursive: true, force: true });
}
