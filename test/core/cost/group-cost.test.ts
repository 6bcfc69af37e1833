/** What a process group costs, from /proc/PID/stat lines: pure arithmetic over two samples. */
import { describe, expect, it } from 'vitest';
import { formatBytes, formatCost, groupCost, parseProcStat, type ProcStat } from '../../../src/core/cost/group-cost.js';

/** A stat line as the kernel writes it (fields 1-24 and a few after). */
function statLine(pid: number, comm: string, pgid: number, utime: number, stime: number, cutime: number, cstime: number, start: number, rss: number): string {
  return `${pid} (${comm}) S 1 ${pgid} ${pgid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 1 0 ${start} 1000000 ${rss} 18446744073709551615 0 0 0`;
}

const proc = (pid: number, ticks: number, childTicks = 0, rssPages = 100, start = 5): ProcStat => ({ pid, pgid: 10, start, ticks, childTicks, rssPages });

describe('a /proc/PID/stat line', () => {
  it('is read after the last parenthesis, whatever the command name holds', () => {
    expect(parseProcStat(statLine(42, 'evil) S 1 2 3 (x', 40, 7, 3, 30, 2, 9876, 2500))).toEqual({ pid: 42, pgid: 40, start: 9876, ticks: 10, childTicks: 32, rssPages: 2500 });
    expect(parseProcStat('garbage')).toBeUndefined();
    expect(parseProcStat('12 (short) S 1')).toBeUndefined();
  });
});

describe("a group's cost", () => {
  it('has its RSS at once and its CPU from the second sample: ticks over the wall time, in percent of one core', () => {
    const first = groupCost(undefined, [proc(10, 500), proc(11, 100)], 0, 4096);
    expect(first.cost).toEqual({ cpu: undefined, rssBytes: 200 * 4096 });
    // 2 s later: 150 + 50 ticks more = 2 s of CPU over 2 s = 100 %.
    const second = groupCost(first.sample, [proc(10, 650), proc(11, 150)], 2_000, 4096);
    expect(second.cost.cpu).toBe(100);
  });

  it('counts a process born since the last sample whole, and one that lived and died between samples through its parent', () => {
    const first = groupCost(undefined, [proc(10, 0)], 0, 4096);
    // A new process with 40 ticks, and a child that lived 60 ticks and was reaped by the leader (cutime + cstime).
    const second = groupCost(first.sample, [proc(10, 0, 60), proc(12, 40)], 1_000, 4096);
    expect(second.cost.cpu).toBe(100);
  });

  it('never counts twice what a process used while seen, once it ended and its parent reaped it', () => {
    const first = groupCost(undefined, [proc(10, 0), proc(11, 0)], 0, 4096);
    const second = groupCost(first.sample, [proc(10, 0), proc(11, 100)], 1_000, 4096);
    expect(second.cost.cpu).toBe(100);
    // 11 used 20 more ticks and ended: the leader's children ticks grow by its 120, of which 100 were counted.
    const third = groupCost(second.sample, [proc(10, 0, 120)], 2_000, 4096);
    expect(third.cost.cpu).toBe(20);
  });

  it('tells a pid reused by another process from the one before', () => {
    const first = groupCost(undefined, [proc(11, 500, 0, 100, 5)], 0, 4096);
    const second = groupCost(first.sample, [proc(11, 30, 0, 100, 900)], 1_000, 4096);
    expect(second.cost.cpu).toBe(30);
  });

  it('is written in a few characters', () => {
    expect(formatCost({ cpu: 12.4, rssBytes: 143 * 1024 * 1024 })).toBe('cpu 12% · 143 MB');
    expect(formatCost({ cpu: 0.3, rssBytes: 1024 * 1024 })).toBe('cpu <1% · 1 MB');
    expect(formatCost({ cpu: 0, rssBytes: 0 })).toBe('cpu <1% · 0 MB');
    expect(formatCost({ cpu: 250.4, rssBytes: 0 })).toBe('cpu 250% · 0 MB');
    expect(formatCost({ cpu: undefined, rssBytes: 5 * 1024 * 1024 })).toBe('cpu … · 5 MB');
    expect(formatBytes(12.5 * 1024 * 1024 * 1024)).toBe('12.5 GB');
  });
});
