/**
 * The folder `src/core/restore/`: a cockpit's restore as data (docs/restore.md). This file: an agent's launch,
 * all that is needed to start it again byte for byte, kept current while it runs; one JSON value with a version,
 * so a newer or damaged row is refused by name instead of half-read.
 */
import { DEFAULT_ANSWERS, PERMISSION_POLICIES, type DefaultAnswer, type PermissionPolicy } from '../agents/questions.js';

/** The version of a stored launch's JSON; a row of another version is refused, never guessed. */
export const LAUNCH_VERSION = 1;

/** What a file or folder was when the agent started: a restore says when it is gone or changed. */
export interface Fingerprint {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
  /** Files only: size and modification time (a program replaced or updated). */
  readonly size?: number;
  readonly mtimeMs?: number;
}

/** One agent's launch as stored. */
export interface Launch {
  readonly v: typeof LAUNCH_VERSION;
  readonly kind: string;
  readonly argv: readonly string[];
  readonly cwd?: string;
  /** The environment given beyond the cockpit's own, whole (the state database is the user's alone, 0600); shown masked. */
  readonly env?: Readonly<Record<string, string>>;
  readonly prompt?: string;
  readonly label: string;
  /** The registry entry it was started from (`@name`), if any. */
  readonly agent?: string;
  /** The task as shown (masked). */
  readonly task: string;
  readonly allow?: boolean;
  readonly permissions?: PermissionPolicy;
  readonly askTimeoutMs?: number;
  readonly askDefault?: DefaultAnswer;
  readonly stdin?: boolean;
  /** The ACP session key it was kept under (spawn's `session`). */
  readonly session?: string;
  /** The lane it runs in (docs/lanes.md). */
  readonly lane?: string;
  /** The wall clock it was given, in ms. */
  readonly limitMs: number;
  /** The wall clock spent before this attempt (by earlier lives of it, before a restore). */
  readonly spentMs: number;
  readonly idleKillMs?: number;
  readonly retriesLeft: number;
  /** The session id the agent itself reported last (claude's session_id, codex's thread id, ACP's sessionId). */
  readonly sessionId?: string;
  /** The program as found on PATH when it started, and its folder. */
  readonly program?: Fingerprint;
  readonly dir?: Fingerprint;
}

/** A launch's JSON for the database. */
export function encodeLaunch(launch: Launch): string {
  return JSON.stringify(launch);
}

/** A stored launch read back, or why it cannot be (one line, naming what is wrong). */
export function parseLaunch(text: string): Launch | { readonly problem: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { problem: 'its stored launch is not JSON' };
  }
  if (!isObject(v)) return { problem: 'its stored launch is not an object' };
  if (v.v !== LAUNCH_VERSION) return { problem: `its stored launch has version ${String(v.v)}, and this tai reads version ${LAUNCH_VERSION} (a newer tai wrote it?)` };
  const bad = firstProblem(v);
  if (bad !== undefined) return { problem: `its stored launch has a bad ${bad}` };
  return v as unknown as Launch;
}

function firstProblem(v: Record<string, unknown>): string | undefined {
  const checks: readonly [string, (x: unknown) => boolean, boolean][] = [
    ['kind', isString, true],
    ['argv', (x) => Array.isArray(x) && x.length > 0 && x.every(isString), true],
    ['label', isString, true],
    ['task', isString, true],
    ['limitMs', isCount, true],
    ['spentMs', isCount, true],
    ['retriesLeft', isCount, true],
    ['cwd', isString, false],
    ['prompt', isString, false],
    ['env', (x) => isObject(x) && Object.values(x).every(isString), false],
    ['allow', (x) => typeof x === 'boolean', false],
    ['permissions', (x) => (PERMISSION_POLICIES as readonly unknown[]).includes(x), false],
    ['askTimeoutMs', isCount, false],
    ['askDefault', (x) => (DEFAULT_ANSWERS as readonly unknown[]).includes(x), false],
    ['stdin', (x) => typeof x === 'boolean', false],
    ['session', isString, false],
    ['agent', isString, false],
    ['lane', isString, false],
    ['idleKillMs', isCount, false],
    ['sessionId', isString, false],
    ['program', isFingerprint, false],
    ['dir', isFingerprint, false],
  ];
  for (const [name, ok, required] of checks) {
    const x = v[name];
    if (x === undefined ? required : !ok(x)) return name;
  }
  return undefined;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function isString(x: unknown): boolean {
  return typeof x === 'string';
}

function isCount(x: unknown): boolean {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0;
}

function isFingerprint(x: unknown): boolean {
  return isObject(x) && typeof x.path === 'string' && typeof x.dev === 'number' && typeof x.ino === 'number';
}
