/**
 * Restarting a lane whose agent died to an outage or yielded `NETWORK: <cmd>` (docs/spec.md, "A lane cut off
 * mid-task"): its uncommitted edits are saved aside for review, never built on, then the worktree is reset to its
 * last commit and cleaned (ignored files stay), and the caller starts a fresh agent on the same task there.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OutageService } from '../../core/outage/classify.js';
import { assertNever } from '../../core/never.js';
import { log, outageTimeScale, reportFailure, type Outage } from './outage-store.js';
import { waitOutOutage, type OutageWaitOptions } from './outage-wait.js';
import type { StateDb } from '../storage/state-db.js';

/** Saved edits go under this folder of the state folder. */
export const SAVED_EDITS_DIR = 'saved-edits';

/** A git command here may take this long before it is killed. */
const GIT_TIMEOUT_MS = 60_000;

/** Why a lane restarts. */
export type LaneRestartReason =
  | { readonly kind: 'died' }
  | { readonly kind: 'yielded'; readonly step: string }
  /** `tai lane restart NAME`: the same restart, asked for by hand (docs/lanes.md). */
  | { readonly kind: 'asked' };

/** The lane to restart. */
export interface LaneRestartRequest {
  /** The lane's name, as the run knows it ("lane-2"). */
  readonly lane: string;
  /** The lane's git worktree. */
  readonly worktree: string;
  /** The task the fresh agent gets, unchanged. */
  readonly task: string;
  readonly reason: LaneRestartReason;
  /** The state folder (`stateDir()`); the edits go under its `saved-edits/`. */
  readonly stateDir: string;
  readonly now: number;
  /** The outage that killed the agent, for the run log and the report. */
  readonly outageId?: number;
  readonly service?: OutageService;
  readonly pid?: number;
}

/** What the caller needs to start the fresh agent, and what was saved. */
export interface LaneRestart {
  readonly lane: string;
  readonly task: string;
  /** The worktree, now clean at `head`. */
  readonly worktree: string;
  /** The commit the fresh agent starts from. */
  readonly head: string;
  /** Where the edits were saved, or null when there were none. */
  readonly savedTo: string | null;
  /** The paths that had uncommitted edits (tracked and untracked), relative to the worktree. */
  readonly files: readonly string[];
}

/** The longest last line read as a `NETWORK:` step; a longer one is not a step (a command, not a flood). */
export const NETWORK_LINE_MAX = 65_536;

/** The step of a final `NETWORK: <cmd>` line in an agent's hand-back, if its last non-empty line is one. */
export function yieldedNetworkStep(finalText: string): string | undefined {
  // Only the end is read: a hand-back of many megabytes is neither split nor scanned whole (docs/security.md, "Text without spaces").
  const text = finalText.trimEnd();
  const from = Math.max(0, text.length - NETWORK_LINE_MAX);
  const nl = text.slice(from).lastIndexOf('\n');
  if (nl < 0 && from > 0) return undefined;
  const line = text.slice(from + nl + 1).trim();
  return line.startsWith('NETWORK:') ? /^NETWORK:\s*(.+)$/.exec(line)?.[1]?.trim() : undefined;
}

/**
 * Saves the lane's uncommitted edits aside, resets its worktree to the last
 * commit, logs `lane-restart`, and returns what a fresh agent needs.
 */
export function restartLane(db: StateDb, request: LaneRestartRequest): LaneRestart {
  const git = (args: readonly string[]): Buffer =>
    execFileSync('git', [...args], { cwd: request.worktree, timeout: GIT_TIMEOUT_MS, maxBuffer: 1 << 30 });
  const head = git(['rev-parse', 'HEAD']).toString('utf8').trim();
  const patch = git(['diff', '--binary', 'HEAD']);
  const tracked = splitZ(git(['diff', '--name-only', '-z', 'HEAD']));
  const untracked = splitZ(git(['ls-files', '--others', '--exclude-standard', '-z']));
  const files = [...tracked, ...untracked];
  let savedTo: string | null = null;
  if (files.length > 0) {
    savedTo = join(request.stateDir, SAVED_EDITS_DIR, `${safeName(request.lane)}-${stamp(request.now)}-${head.slice(0, 7)}`);
    mkdirSync(savedTo, { recursive: true, mode: 0o700 });
    writeFileSync(join(savedTo, 'changes.patch'), patch);
    for (const file of untracked) copyAside(join(request.worktree, file), join(savedTo, 'untracked', file));
    const why = savedWhy(request.reason);
    writeFileSync(
      join(savedTo, 'lane.json'),
      `${JSON.stringify({ lane: request.lane, worktree: request.worktree, head, task: request.task, why, savedAt: new Date(request.now).toISOString(), tracked, untracked }, null, 2)}\n`,
    );
  }
  git(['reset', '--hard', '--quiet', 'HEAD']);
  git(['clean', '-fd', '--quiet']);
  const why = request.reason.kind === 'yielded' ? `yielded "NETWORK: ${request.reason.step}"` : request.reason.kind === 'asked' ? 'restarted by hand' : 'died';
  const saved = savedTo === null ? 'no uncommitted edits' : `${files.length} file${files.length === 1 ? '' : 's'} saved aside to ${savedTo}`;
  log(db, {
    at: request.now,
    kind: 'lane-restart',
    ...(request.pid === undefined ? {} : { pid: request.pid }),
    ...(request.service === undefined ? {} : { service: request.service }),
    ...(request.outageId === undefined ? {} : { outageId: request.outageId }),
    detail: `${request.lane} (${why}) restarts from ${head.slice(0, 7)}; ${saved}; task: ${request.task}`,
  });
  return { lane: request.lane, task: request.task, worktree: request.worktree, head, savedTo, files };
}

/** How waiting to restart a lane ended. */
export type LaneWaitEnd =
  | { readonly kind: 'restarted'; readonly restart: LaneRestart; readonly outage: Outage }
  | { readonly kind: 'gave-up'; readonly outage: Outage }
  | { readonly kind: 'aborted'; readonly outage: Outage };

/**
 * Joins the outage that killed (or stopped) the lane's agent, waits it out on the shared probe, and restarts the
 * lane when back; at give-up the lane is logged `lane-left` and its worktree left untouched.
 */
export async function restartLaneWhenBack(
  wait: OutageWaitOptions & { readonly scale?: number },
  request: Omit<LaneRestartRequest, 'now' | 'outageId'>,
): Promise<LaneWaitEnd> {
  const now = wait.now ?? Date.now;
  const service = request.service ?? 'network';
  const why = savedWhy(request.reason);
  const { outage } = reportFailure(wait.db, service, `${request.lane}: ${why}`, now(), wait.scale ?? outageTimeScale(), request.pid);
  const entry = { service, outageId: outage.id, ...(request.pid === undefined ? {} : { pid: request.pid }) };
  log(wait.db, { ...entry, at: now(), kind: 'lane-wait', detail: `${request.lane}: ${why}` });
  const end = await waitOutOutage(wait, outage.id);
  if (end.kind === 'back') {
    const restart = restartLane(wait.db, { ...request, service, now: now(), outageId: outage.id });
    return { kind: 'restarted', restart, outage: end.outage };
  }
  if (end.kind === 'gave-up') {
    log(wait.db, { ...entry, at: now(), kind: 'lane-left', detail: `${request.lane}: ${request.task}` });
  }
  return end;
}

/** Why the edits were saved aside, for lane.json and the run log. */
function savedWhy(reason: LaneRestartReason): string {
  switch (reason.kind) {
    case 'yielded':
      return `handed back with NETWORK: ${reason.step}`;
    case 'died':
      return 'its agent died to the outage';
    case 'asked':
      return 'restarted by hand (tai lane restart)';
    default:
      return assertNever(reason);
  }
}

/** Copies one untracked file (or symlink) aside, creating its folders. */
function copyAside(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  if (lstatSync(from).isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else copyFileSync(from, to);
}

function splitZ(output: Buffer): string[] {
  return output.toString('utf8').split('\0').filter((name) => name !== '');
}

/** A lane name safe as part of a folder name. */
function safeName(lane: string): string {
  return lane.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64) || 'lane';
}

/** 20261130T142906.123Z: a timestamp for a folder name. */
function stamp(now: number): string {
  return new Date(now).toISOString().replace(/[-:]/g, '');
}
