/**
 * The CPU of each turn of the event loop, for the stall benchmark: an
 * async_hooks hook reads the process's CPU time (process.cpuUsage, exact)
 * before and after each outermost callback, and adds a task's callback (a
 * timer, an immediate, a pipe's read) and the promise reactions and
 * nextTicks that follow it into one turn: the loop answers nothing else
 * until they are done. Unlike the loop's delay it does not grow with the
 * machine's load. Every thread is counted, so V8's helper threads make it an
 * upper bound of the loop's own. A benchmark reports; it never fails.
 */
import { createHook } from 'node:async_hooks';

/** One turn's cost: CPU and wall milliseconds (first callback's start to last one's end), and the task that began it. */
export interface TurnCost {
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly what: string;
}

/** What the recorder saw between start and stop. */
export interface TurnReport {
  /** The costliest turns by CPU, costliest first. */
  readonly longest: readonly TurnCost[];
  /** The longest turn by wall time (it may have waited: on the disk, or for the machine). */
  readonly longestWall: TurnCost | undefined;
  /** Turns whose CPU was over 16 and over 33 ms (a frame, two frames). */
  readonly over16: number;
  readonly over33: number;
  readonly turns: number;
  /** CPU ms inside callbacks, and in all from start to stop. */
  readonly insideMs: number;
  readonly totalMs: number;
}

/** Callbacks that run in the turn of the task before them. */
const FOLLOWERS = new Set(['PROMISE', 'TickObject', 'Microtask']);

/** A resource's name for the report: its type, and a timer's or immediate's function name. */
function nameOf(type: string, resource: unknown): string {
  const r = resource as { _onTimeout?: { name?: string }; _onImmediate?: { name?: string }; callback?: { name?: string } };
  const fn = r._onTimeout?.name ?? r._onImmediate?.name ?? r.callback?.name;
  return fn ? `${type}:${fn}` : type;
}

const KEEP = 5;

/** Records every turn's CPU until `stop`, from the next callback on (not the rest of the caller's). */
export function recordTurns(): { stop(): TurnReport } {
  const names = new Map<number, string>();
  const longest: TurnCost[] = [];
  let longestWall: TurnCost | undefined;
  let depth = 0;
  let cpu0 = 0;
  let over16 = 0;
  let over33 = 0;
  let turns = 0;
  let insideMs = 0;
  /** The turn under way: its CPU so far, its start and last end (wall), its task. */
  let turn: { cpuMs: number; wall0: number; wall1: number; what: string } | undefined;
  const cpuNow = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const close = (): void => {
    if (turn === undefined) return;
    const done: TurnCost = { cpuMs: turn.cpuMs, wallMs: turn.wall1 - turn.wall0, what: turn.what };
    turn = undefined;
    turns++;
    if (done.cpuMs > 16) over16++;
    if (done.cpuMs > 33) over33++;
    if (done.wallMs > (longestWall?.wallMs ?? -1)) longestWall = done;
    if (longest.length === KEEP && done.cpuMs <= longest[KEEP - 1]!.cpuMs) return;
    longest.push(done);
    longest.sort((a, b) => b.cpuMs - a.cpuMs);
    longest.length = Math.min(longest.length, KEEP);
  };
  const hook = createHook({
    init(asyncId, type, _trigger, resource) {
      names.set(asyncId, FOLLOWERS.has(type) ? type : nameOf(type, resource));
    },
    before(asyncId) {
      if (depth++ !== 0) return;
      const what = names.get(asyncId) ?? 'PROMISE';
      const now = performance.now();
      if (turn === undefined || !FOLLOWERS.has(what)) {
        close();
        turn = { cpuMs: 0, wall0: now, wall1: now, what };
      }
      cpu0 = cpuNow();
    },
    after() {
      // The callback that enabled the hook ends without a `before` seen: not counted.
      if (depth === 0 || --depth !== 0) return;
      const cpuMs = cpuNow() - cpu0;
      insideMs += cpuMs;
      if (turn === undefined) return;
      turn.cpuMs += cpuMs;
      turn.wall1 = performance.now();
    },
    destroy(asyncId) {
      names.delete(asyncId);
    },
  });
  const start = cpuNow();
  hook.enable();
  return {
    stop() {
      hook.disable();
      close();
      return { longest, longestWall, over16, over33, turns, insideMs, totalMs: cpuNow() - start };
    },
  };
}
