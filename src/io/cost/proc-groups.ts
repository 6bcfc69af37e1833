/**
 * The folder `src/io/cost/`: what each agent and the cockpit cost, read from /proc off the render path
 * (docs/cockpit.md, "What each agent costs"). This file reads /proc: every process's `stat` (group, CPU ticks and
 * resident pages, the same count `statm` gives, so one read a process), a group leader's `cmdline` once, the page size.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { parseProcStat, type ProcStat } from '../../core/cost/group-cost.js';
import { REMOTE_RUN_SCRIPT } from '../remote/remote-run.js';

/** The processes of each group in `pgids`, from `root` (/proc); none on a system without it. */
export function readGroups(pgids: ReadonlySet<number>, root = '/proc'): { readonly groups: Map<number, ProcStat[]>; readonly read: number } {
  const groups = new Map<number, ProcStat[]>();
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return { groups, read: 0 };
  }
  let read = 0;
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue; // not a pid
    const text = readSmall(`${root}/${name}/stat`);
    if (text === undefined) continue; // it ended between the listing and the read
    read++;
    const stat = parseProcStat(text);
    if (stat === undefined || !pgids.has(stat.pgid)) continue;
    const group = groups.get(stat.pgid);
    if (group) group.push(stat);
    else groups.set(stat.pgid, [stat]);
  }
  return { groups, read };
}

/** One buffer for every stat line: a line is a few hundred bytes. */
const LINE = Buffer.alloc(4096);

/**
 * A small /proc file read into the shared buffer: open, one read, close
 * (readFileSync also stats the file and allocates, about three times the cost
 * over a whole /proc); undefined when it is gone.
 */
function readSmall(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    return LINE.toString('latin1', 0, readSync(fd, LINE, 0, LINE.length, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether the group's leader is the local end of a remote agent (remote-run.ts): its processes run on the host. */
export function isRemoteGroup(pgid: number, root = '/proc'): boolean {
  try {
    const argv = readFileSync(`${root}/${pgid}/cmdline`, 'utf8').split('\0');
    // By its name without the extension: the built .js, or the .ts source under a test runner.
    const name = (file: string): string => basename(file).replace(/\.[jt]s$/, '');
    return argv.slice(0, 3).some((a) => a !== '' && name(a) === name(REMOTE_RUN_SCRIPT));
  } catch {
    return false;
  }
}

/** The size of a memory page: this process's resident bytes over its resident pages, a power of two; 4096 when unknown. */
export function pageSize(root = '/proc'): number {
  try {
    const pages = parseProcStat(readSmall(`${root}/self/stat`) ?? '')?.rssPages ?? 0;
    if (pages <= 0) return 4096;
    return 2 ** Math.round(Math.log2(process.memoryUsage.rss() / pages));
  } catch {
    return 4096;
  }
}
