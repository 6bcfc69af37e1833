/**
 * A lost connection to a host as an outage of that host (docs/remote.md, "A lost link: an outage of the host, then
 * a reattach"), on the shared widening schedule with one probe at a time however many agents wait: a JSON file
 * beside the host's control socket, a probe claimed by a lock file holding its prober's pid, taken over when gone.
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../storage/state-dir.js';
import { processAlive as alive } from '../socket/socket-path.js';
import { nextProbe, parseTimeScale } from '../../core/outage/outage-schedule.js';
import { sleep as realSleep } from '../after.js';
import { runArgv } from './ssh-argv.js';
import { ensureMaster, placeOf } from './ssh-master.js';
import { lastLine, runSsh } from './ssh-run.js';

/** One host's outage as stored. Times are epoch ms. */
export interface HostOutage {
  readonly host: string;
  readonly startedAt: number;
  readonly attempts: number;
  readonly nextProbeAt: number;
  readonly hourlyStartedAt?: number;
  readonly timeScale: number;
  readonly endedAt?: number;
  readonly gaveUpAt?: number;
  /** The last failed probe's reason. */
  readonly detail?: string;
}

/** How a wait for a host ended. */
export type HostWaitEnd = { readonly kind: 'back'; readonly outage: HostOutage } | { readonly kind: 'gave-up'; readonly outage: HostOutage };

/** What the wait needs; the defaults are the real ones. */
export interface HostWaitOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Probes the host: ok, or why not. */
  readonly probe?: () => Promise<{ ok: boolean; detail: string }>;
  /** Told when the wait begins and after each failed probe. */
  readonly tell?: (outage: HostOutage) => void;
}

/** The outage file of a host: beside its control socket. */
export function hostOutageFile(host: string, env: NodeJS.ProcessEnv = process.env): string {
  return `${placeOf(host, env).socket}.outage`;
}

/** The host's outage, if one was ever recorded here. */
export function readHostOutage(file: string): HostOutage | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as HostOutage;
  } catch {
    return undefined;
  }
}

function write(file: string, outage: HostOutage): void {
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(outage), { mode: 0o600 });
  renameSync(`${file}.${process.pid}`, file);
}

/** The probe of a host: one `true` through its connection (started again if it is gone). */
export async function probeHostUp(host: string, env: NodeJS.ProcessEnv = process.env): Promise<{ ok: boolean; detail: string }> {
  const place = placeOf(host, env);
  try {
    await ensureMaster(place);
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
  const run = await runSsh(runArgv(place, 'true'), 20_000);
  return run.code === 0 ? { ok: true, detail: 'exit 0' } : { ok: false, detail: lastLine(run.stderr) || `ssh exited ${run.code}` };
}

/** Claims the host's probe: true when this process holds its lock. */
function claim(lock: string): boolean {
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch {
    let holder = 0;
    try {
      holder = Number(readFileSync(lock, 'utf8')) || 0;
    } catch {
      // Released while we looked: the next look claims it.
      return false;
    }
    // A prober that died leaves its lock: taken over at the next look.
    if (holder === 0 || !alive(holder)) rmSync(lock, { force: true });
    return false;
  }
}

/** Opens the host's outage for a connection lost at `lostAt`, or joins the one open; returns it. */
export function reportHostLoss(file: string, host: string, lostAt: number, scale: number): HostOutage {
  const open = readHostOutage(file);
  if (open !== undefined && open.endedAt === undefined && open.gaveUpAt === undefined) return open;
  const plan = nextProbe({ startedAt: lostAt, attempts: 0 }, lostAt, scale);
  const outage: HostOutage = { host, startedAt: lostAt, attempts: 0, nextProbeAt: plan.kind === 'probe' ? plan.at : lostAt, timeScale: scale };
  write(file, outage);
  return outage;
}

/** The outage after a probe's outcome recorded at `now`. */
export function afterProbe(outage: HostOutage, ok: boolean, detail: string, now: number): HostOutage {
  if (ok) return { ...outage, endedAt: now };
  const attempts = outage.attempts + 1;
  const plan = nextProbe({ startedAt: outage.startedAt, attempts, hourlyStartedAt: outage.hourlyStartedAt ?? null }, now, outage.timeScale);
  if (plan.kind === 'give-up') return { ...outage, attempts, detail, gaveUpAt: now };
  return { ...outage, attempts, detail, nextProbeAt: plan.at, ...(plan.hourlyStartedAt === undefined ? {} : { hourlyStartedAt: plan.hourlyStartedAt }) };
}

/** Waits until the host answers again (or the schedule gives up) after a connection lost at `lostAt`. */
export async function waitForHost(host: string, lostAt: number, options: HostWaitOptions = {}): Promise<HostWaitEnd> {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => realSleep(ms));
  const probe = options.probe ?? (() => probeHostUp(host, env));
  const file = hostOutageFile(host, env);
  const lock = `${file}.lock`;
  const scale = parseTimeScale(env['TAI_OUTAGE_TIME_SCALE']);
  let told = -1;
  // The host answered since this connection was lost (another agent's probe): back at once.
  const prior = readHostOutage(file);
  if (prior?.endedAt !== undefined && prior.endedAt >= lostAt) return { kind: 'back', outage: prior };
  reportHostLoss(file, host, lostAt, scale);
  for (;;) {
    const outage = readHostOutage(file) ?? reportHostLoss(file, host, lostAt, scale);
    if (outage.endedAt !== undefined) return { kind: 'back', outage };
    if (outage.gaveUpAt !== undefined) return { kind: 'gave-up', outage };
    if (outage.attempts !== told) {
      told = outage.attempts;
      options.tell?.(outage);
    }
    if (now() >= outage.nextProbeAt && claim(lock)) {
      try {
        const current = readHostOutage(file) ?? outage;
        if (current.endedAt === undefined && current.gaveUpAt === undefined && now() >= current.nextProbeAt) {
          const outcome = await probe();
          write(file, afterProbe(current, outcome.ok, outcome.detail, now()));
        }
      } finally {
        rmSync(lock, { force: true });
      }
      continue;
    }
    // Another process may probe or record first: look again at least every second (and say the wait is alive).
    touch(file);
    await sleep(Math.max(10, Math.min(1_000, outage.nextProbeAt - now())));
  }
}

/** A waiter looked at the outage just now: an open outage nobody looks at any more is not listed. */
function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // Gone: the next look writes it again.
  }
}

/** An open outage whose file nobody touched for this long has no waiter left. */
const WAITED_WITHIN_MS = 10_000;

/** The hosts waited for now, one line each, for `tai outage status`. */
export function hostOutageLines(now: number, env: NodeJS.ProcessEnv = process.env): string[] {
  let dir: string;
  let names: string[];
  try {
    // Read only: listing makes no folder (control-dir.ts makes it when a host is used).
    dir = join(stateDir(env), 'ssh');
    names = readdirSync(dir).filter((name) => name.endsWith('.outage'));
  } catch {
    return [];
  }
  const lines: string[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const outage = readHostOutage(file);
    if (outage === undefined || outage.endedAt !== undefined || outage.gaveUpAt !== undefined) continue;
    try {
      if (now - statSync(file).mtimeMs > WAITED_WITHIN_MS) continue;
    } catch {
      continue;
    }
    const at = new Date(outage.nextProbeAt).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
    lines.push(`waiting for host ${outage.host} (ssh://${outage.host}, lost at ${new Date(outage.startedAt).toISOString().slice(11, 19)}Z): probe ${outage.attempts + 1} at ${at}${outage.detail === undefined ? '' : ` (last: ${outage.detail})`}`);
  }
  return lines;
}
