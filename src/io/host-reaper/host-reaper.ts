/**
 * `src/io/host-reaper/`: the native reaper on a host (docs/remote.md, "The reaper on a host"), under the sh
 * reaper, for the staged stop of the whole group and the subreaper. This file: which one a host gets, chosen once
 * per shared connection: this install's binary copied when `uname -sm` matches and it runs, else reaper.c built
 * there with `cc`, else the sh reaper alone (`TAI_HOST_REAPER=copy|build|sh` narrows the choice).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { machine, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtReaper, packageRoot } from '../agents/runners/reaper-binary.js';
import { checkArgv, runArgv, type SshPlace } from '../remote/ssh-argv.js';
import { lastLine, runSsh } from '../remote/ssh-run.js';
import { buildLine, copyLine, probeLine, readFacts, readPlaced } from './host-reaper-scripts.js';

/** How the host's reaper got there. */
export type HostReaperKind = 'copied' | 'built' | 'sh';

/** The reaper a host's agents run under, and why. */
export interface HostReaper {
  readonly kind: HostReaperKind;
  /** The native binary on the host (absolute), for `copied` and `built`. */
  readonly path?: string;
  readonly why: string;
}

/** What TAI_HOST_REAPER allows: every path, or one. */
type Mode = 'auto' | 'copy' | 'build' | 'sh';

/** This install's reaper: the binary (when built) and its source, with their cache names on a host. */
interface LocalReaper {
  readonly binary?: { readonly bytes: Buffer; readonly name: string };
  readonly source?: { readonly bytes: Buffer; readonly name: string };
}

async function hash16(bytes: Buffer): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

function readOrUndefined(path: string | undefined): Buffer | undefined {
  try {
    return path === undefined ? undefined : readFileSync(path);
  } catch {
    return undefined;
  }
}

async function localReaper(): Promise<LocalReaper> {
  const root = packageRoot(dirname(fileURLToPath(import.meta.url)));
  const binary = readOrUndefined(builtReaper());
  const source = readOrUndefined(root === undefined ? undefined : join(root, 'src/native/reaper.c'));
  return {
    ...(binary ? { binary: { bytes: binary, name: `tai-reaper-${await hash16(binary)}` } } : {}),
    ...(source ? { source: { bytes: source, name: `tai-reaper-cc-${await hash16(source)}` } } : {}),
  };
}

/** The sh reaper alone, for `why`. */
const sh = (why: string): HostReaper => ({ kind: 'sh', why });

/** The copy path: the host's cached copy, or a copy made now; a reason when there is none. */
async function tryCopy(place: SshPlace, local: LocalReaper, facts: { dir: string; uname: string; have: ReadonlySet<string> }): Promise<HostReaper | string> {
  const here = `${type()} ${machine()}`;
  if (local.binary === undefined) return 'this install has no native reaper built (node src/native/build.mjs)';
  if (facts.uname !== here) return `the host is ${facts.uname}, this build ${here}`;
  if (facts.have.has(local.binary.name)) return { kind: 'copied', path: join(facts.dir, local.binary.name), why: `${here} as here; in the host's cache already` };
  const run = await runSsh(runArgv(place, copyLine(local.binary.name)), 60_000, local.binary.bytes);
  const placed = readPlaced(run.stdout);
  if ('path' in placed) return { kind: 'copied', path: placed.path, why: `${here} as here` };
  return `the copy did not run there (${run.code === 255 ? lastLine(run.stderr) : placed.failed})`;
}

/** The build path: the host's cached build, or one made now with its cc; a reason when there is none. */
async function tryBuild(place: SshPlace, local: LocalReaper, facts: { dir: string; cc: boolean; have: ReadonlySet<string> }, before: string[]): Promise<HostReaper | string> {
  const why = (text: string): string => (before.length > 0 ? `${text} (${before.join('; ')})` : text);
  if (local.source === undefined) return 'this install has no src/native/reaper.c';
  if (facts.have.has(local.source.name)) return { kind: 'built', path: join(facts.dir, local.source.name), why: why("built there with cc before; in the host's cache") };
  if (!facts.cc) return 'the host has no cc';
  const run = await runSsh(runArgv(place, buildLine(local.source.name)), 120_000, local.source.bytes);
  const placed = readPlaced(run.stdout);
  if ('path' in placed) return { kind: 'built', path: placed.path, why: why('built there with cc') };
  return `cc could not build it there (${run.code === 255 ? lastLine(run.stderr) : placed.failed})`;
}

/** Chooses and puts in place the reaper of `place`'s host, without the cache; never throws (the sh reaper is the floor). */
export async function chooseHostReaper(place: SshPlace, setting: string | undefined): Promise<HostReaper> {
  const mode = setting === undefined || setting === '' ? 'auto' : setting;
  if (mode === 'sh') return sh('TAI_HOST_REAPER=sh');
  if (mode !== 'auto' && mode !== 'copy' && mode !== 'build') return sh(`TAI_HOST_REAPER must be copy, build or sh, not '${mode}'`);
  const local = await localReaper();
  const probe = await runSsh(runArgv(place, probeLine(local.binary?.name ?? '-', local.source?.name ?? '-')));
  const facts = readFacts(probe.stdout);
  if (facts === undefined) return sh(`the host's answer could not be read (${lastLine(probe.stderr) || `ssh exited ${probe.code}`})`);
  if (!facts.uname.startsWith('Linux ')) return sh(`the host is ${facts.uname}; the native reaper is for Linux only`);
  const reasons: string[] = [];
  const attempts: [Mode, () => Promise<HostReaper | string>][] = [
    ['copy', () => tryCopy(place, local, facts)],
    ['build', () => tryBuild(place, local, facts, reasons)],
  ];
  for (const [path, attempt] of attempts) {
    if (mode !== 'auto' && mode !== path) {
      reasons.push(`TAI_HOST_REAPER=${mode} skips the ${path}`);
      continue;
    }
    const got = await attempt();
    if (typeof got !== 'string') return got;
    reasons.push(got);
  }
  return sh(reasons.join('; '));
}

/** The shared connection's master pid (from `ssh -O check`), or undefined when it is not up. */
async function masterPid(place: SshPlace): Promise<string | undefined> {
  const run = await runSsh(checkArgv(place), 10_000);
  return run.code === 0 ? (/pid=(\d+)/.exec(run.stderr)?.[1] ?? '?') : undefined;
}

/**
 * The reaper of `place`'s host, chosen once per shared connection: kept in
 * a file beside its control socket while the same master (and setting) lasts.
 */
export async function hostReaper(place: SshPlace, env: NodeJS.ProcessEnv = process.env, options: { readonly unshared?: boolean } = {}): Promise<HostReaper> {
  const setting = env['TAI_HOST_REAPER'];
  const master = await masterPid(place);
  // `tai hosts check` starts no master: it chooses on connections of its own and keeps nothing.
  if (master === undefined && options.unshared === true) return chooseHostReaper(place, setting);
  // No shared connection for an agent: the host does not answer (ssh says so next), so no run there is tried.
  if (master === undefined) return sh('the shared connection to the host is not up');
  const key = `${master} ${setting ?? ''}`;
  const file = `${place.socket}.reaper`;
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { key?: unknown; reaper?: HostReaper };
    if (saved.key === key && saved.reaper !== undefined) return saved.reaper;
  } catch {
    // None yet, or a torn one: choose again.
  }
  const reaper = await chooseHostReaper(place, setting);
  const tmp = `${file}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ key, reaper }), { mode: 0o600 });
  renameSync(tmp, file);
  return reaper;
}

/**
 * The words put before an agent's argv on the host: the native reaper's
 * `--host` mode when the host has it (and its file is still there), else none.
 */
export function reaperPrefix(reaper: HostReaper): string[] {
  if (reaper.path === undefined) return [];
  return ['sh', '-c', 'if [ -x "$0" ]; then exec "$0" --host "$@"; fi; exec "$@"', reaper.path];
}

/** The `tai hosts check` line of a host's reaper. */
export function describeHostReaper(reaper: HostReaper): string {
  switch (reaper.kind) {
    case 'copied':
      return `reaper: native, copied to ${reaper.path} (${reaper.why})`;
    case 'built':
      return `reaper: native, ${reaper.why}: ${reaper.path}`;
    case 'sh':
      return `reaper: the POSIX sh one, sent in the command line (${reaper.why}); setsid descendants that clear their environment escape it`;
  }
}
