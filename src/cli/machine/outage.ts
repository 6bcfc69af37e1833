/**
 * `tai outage status|wait|probe`: the machine-wide outage state from the command line (docs/outages.md, "The
 * commands"). Exit 0 done (`wait`: back, or none open), 69 the schedule gave up (as `tai net`), 64 a bad line,
 * 1 anything else.
 */
import type { OutageService } from '../../core/outage/classify.js';
import { hostOutageLines } from '../../io/remote/host-outage.js';
import { hostOutageJson, hostOutageLine, hostOutagesNow } from '../../io/host-holds/host-outage-view.js';
import { messageOf } from '../../core/errors.js';
import { notifyGiveUp } from '../../io/outage/notify.js';
import { formatOutageStatus, outageReport, reportJson } from '../../io/outage/outage-report.js';
import { formatDuration, log, openOutage, outageTimeScale, recordProbe, reportFailure, type Outage } from '../../io/outage/outage-store.js';
import { waitOutOutage } from '../../io/outage/outage-wait.js';
import { defaultProbes } from '../../io/outage/probes.js';
import { processAlive } from '../../io/socket/socket-path.js';
import { openStateDb, type StateDb } from '../../io/storage/state-db.js';
import { readCommandLine, usageError } from '../command-line.js';
import { assertNever } from '../../core/never.js';
import { field, processOutput } from '../output.js';

/** `tai outage wait` and `tai net` exit with this when the schedule gave up (EX_UNAVAILABLE). */
export const OUTAGE_GAVE_UP_EXIT = 69;

const USAGE = `usage:
  tai outage status [--json]
  tai outage wait [--service network|model]
  tai outage probe [--network ok|fail] [--model ok|fail]
`;

const SPEC = {
  name: 'outage',
  usage: USAGE,
  options: { json: { type: 'boolean' }, service: { type: 'string' }, network: { type: 'string' }, model: { type: 'string' } },
} as const;

/** The options each verb takes (of SPEC's). */
const VERB_OPTIONS: Record<'status' | 'wait' | 'probe', readonly string[]> = { status: ['json'], wait: ['service'], probe: ['network', 'model'] };

/** Runs `tai outage ARGS`; returns the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const parsed = readCommandLine(SPEC, args, processOutput);
  if (typeof parsed === 'number') return parsed;
  const [verb, ...extra] = parsed.positionals;
  try {
    if (verb !== 'status' && verb !== 'wait' && verb !== 'probe') {
      throw new UsageError(verb === undefined ? 'a subcommand is needed: status, wait or probe' : `unknown subcommand '${verb}' (status, wait or probe)`);
    }
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const values: OptionValues = parsed.values;
    const stray = Object.keys(values).find((k) => values[k] !== undefined && !VERB_OPTIONS[verb].includes(k));
    if (stray !== undefined) throw new UsageError(`--${stray} is not an option of tai outage ${verb}`);
    switch (verb) {
      case 'status':
        return withDb((db) => status(db, values));
      case 'wait':
        return await withDbAsync((db) => wait(db, values));
      case 'probe':
        return await withDbAsync((db) => probeByHand(db, values));
      default:
        return assertNever(verb);
    }
  } catch (error) {
    if (error instanceof UsageError) return usageError(SPEC, processOutput, error.message);
    processOutput.warn(`tai outage: ${field(messageOf(error))}\n`);
    return 1;
  }
}

/** One line telling a waiter where the outage stands: the stage and the next probe time. */
export function progressLine(outage: Outage, now: number): string {
  const lost = outage.service === 'network' ? 'the network' : 'the model service';
  if (outage.nextProbeAt === null) return `waiting for ${lost} (outage #${outage.id})`;
  const at = new Date(outage.nextProbeAt).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const inMs = Math.max(0, outage.nextProbeAt - now);
  const when = inMs === 0 ? 'due now' : `in ${formatDuration(inMs)}`;
  return `waiting for ${lost} (outage #${outage.id}, stage ${outage.stage}): probe ${outage.attempts + 1} at ${at} (${when})`;
}

/** What to do when this process has no probe for `service`: another process's, or an outcome by hand. */
export function noProbeHint(service: OutageService): string {
  const how =
    service === 'network'
      ? 'no network probe here (no git remote in this folder and TAI_NETWORK_PROBE unset)'
      : 'no model probe here (TAI_MODEL_PROBE unset)';
  return `${how}: waiting for another process's probe or \`tai outage probe --${service} ok|fail\``;
}

/** A refusal of the command line, with its exact message. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

function status(db: StateDb, values: OptionValues): number {
  const entries = outageReport(db, Date.now());
  // A lost link to a host is its own outage (docs/remote.md): its agents' hold files, and the outage file beside the host's connection.
  const hosts = hostOutagesNow();
  if (values['json'] === true) {
    const machine = reportJson(entries) as unknown[];
    processOutput.json([...machine, ...hosts.map(hostOutageJson)]);
    return 0;
  }
  processOutput.say(formatOutageStatus(entries, Date.now(), processAlive));
  for (const view of hosts) processOutput.say(`${hostOutageLine(view)}\n`);
  for (const line of hostOutageLines(Date.now())) if (!hosts.some((view) => line.startsWith(`waiting for host ${view.host} `))) processOutput.say(`${line}\n`);
  return 0;
}

async function wait(db: StateDb, values: OptionValues): Promise<number> {
  const service = serviceOf(String(values['service'] ?? 'network'), '--service');
  const outage = openOutage(db, service);
  if (outage === undefined) {
    processOutput.warn(`tai outage: no ${service} outage open\n`);
    return 0;
  }
  const probes = defaultProbes();
  if (probes(service) === undefined) processOutput.warn(`tai outage: ${noProbeHint(service)}\n`);
  const end = await waitOutOutage(
    {
      db,
      probes,
      onProgress: (current) => processOutput.warn(`tai outage: ${progressLine(current, Date.now())}\n`),
    },
    outage.id,
  );
  if (end.kind === 'back') {
    processOutput.warn(`tai outage: ${service} is back (outage #${outage.id} ended)\n`);
    return 0;
  }
  await notifyGiveUp(db, end.outage, { now: Date.now(), terminal: processOutput.notifier() });
  processOutput.warn(`tai outage: gave up waiting for ${service} (outage #${outage.id}); see \`tai report\`\n`);
  return OUTAGE_GAVE_UP_EXIT;
}

async function probeByHand(db: StateDb, values: OptionValues): Promise<number> {
  const given = (['network', 'model'] as const).flatMap((service) => {
    const word = values[service];
    if (word === undefined) return [];
    if (typeof word !== 'string') throw new UsageError(`--${service} takes ok or fail`);
    if (word !== 'ok' && word !== 'fail') throw new UsageError(`--${service} takes ok or fail, got '${word}'`);
    return [{ service, ok: word === 'ok' }];
  });
  if (given.length === 0) throw new UsageError('say what the probe found: --network ok|fail and/or --model ok|fail');
  let code = 0;
  for (const { service, ok } of given) {
    const now = Date.now();
    const open = openOutage(db, service);
    if (open === undefined) {
      if (ok) {
        processOutput.say(`no ${service} outage open; nothing to record\n`);
        continue;
      }
      const { outage } = reportFailure(db, service, `probe failed (recorded by hand)`, now, outageTimeScale());
      processOutput.say(`${service} outage #${outage.id} opened: ${progressLine(outage, now)}\n`);
      continue;
    }
    log(db, { at: now, kind: 'probe-by-hand', service, outageId: open.id, detail: ok ? 'ok' : 'fail' });
    const after = recordProbe(db, service, ok, now);
    if (after === undefined) continue;
    if (after.endedAt !== null) processOutput.say(`${service} outage #${after.id} ended\n`);
    else if (after.gaveUpAt !== null) {
      await notifyGiveUp(db, after, { now, terminal: processOutput.notifier() });
      processOutput.say(`${service} outage #${after.id}: the schedule gave up\n`);
      code = OUTAGE_GAVE_UP_EXIT;
    } else processOutput.say(`${service} outage #${after.id}: ${progressLine(after, now)}\n`);
  }
  return code;
}

/** The option values of a parsed command line. */
type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

function serviceOf(word: string, flag: string): OutageService {
  if (word === 'network' || word === 'model') return word;
  throw new UsageError(`${flag} takes network or model, got '${word}'`);
}

function withDb(fn: (db: StateDb) => number): number {
  const db = openStateDb();
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

async function withDbAsync(fn: (db: StateDb) => Promise<number>): Promise<number> {
  const db = openStateDb();
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}
