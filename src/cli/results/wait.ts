/**
 * `tai wait [ID...] [--any | --all]`: waits in the cockpit for the next event among the agents named (all live
 * ones by default), printed as the lead's `wait` tool returns it (docs/lead.md, "`tai wait` from a shell"). Exit
 * codes are `tai spawn`'s for an agent that ended, 3 when one asks, 2 when nothing ended in time or no cockpit.
 */
import { eventText, headAndTail, type LeadEvent } from '../../core/lead/lead-view.js';
import { isLive } from '../../core/panel/panel-state.js';
import { EXIT_CODES } from '../../io/agents/agent-results.js';
import { cockpitBackend, LeadCallError } from '../../io/lead/lead-backend.js';
import { LeadRequestError, waitForEvents } from '../../io/lead/lead-wait.js';
import { resolveSocket } from '../../io/socket/control-client.js';
import { processIo, type CliIo } from '../cli-io.js';
import { readCommandLine, usageError } from '../command-line.js';
import { CliOutput, field, fieldLines } from '../output.js';

const USAGE =
  'usage: tai wait [ID...] [--any | --all] [--timeout S] [--json] [--socket PATH]\n' +
  'Waits for the next agent among IDs (default: every live one) to finish or ask; --all for every one to finish.\n' +
  'Exit: the agent\'s as tai spawn\'s (0 done, 1 failed, 124 timeout, 130 cancelled), 3 an agent asks (tai ask), 2 nothing ended in time.\n';

const SPEC = { name: 'wait', usage: USAGE, options: { any: { type: 'boolean' }, all: { type: 'boolean' }, timeout: { type: 'string' }, json: { type: 'boolean' }, socket: { type: 'string' } } } as const;

/** The exit code when an agent asks a question. */
export const EXIT_ASKING = 3;
/** The exit code when nothing ended in time. */
export const EXIT_NOTHING_ENDED = 2;

/** Runs `tai wait ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  const o = parsed.values;
  if (o.any && o.all) return usageError(SPEC, out, '--any and --all are two ways to wait: give one');
  const bad = parsed.positionals.find((p) => !/^[1-9]\d*$/.test(p));
  if (bad !== undefined) return usageError(SPEC, out, `not an agent id: '${bad}' (a whole number from 1: 3 for #3 in \`tai status\`)`);
  const timeout = o.timeout === undefined ? Infinity : Number(o.timeout);
  if (!(timeout >= 0)) return usageError(SPEC, out, `--timeout takes a number of seconds, 0 or more, got '${o.timeout}'`);
  const found = resolveSocket(o.socket, io.env);
  if (found.path === undefined) {
    out.warn(`tai wait: ${fieldLines(found.why)}\n`);
    return 2;
  }
  const backend = cockpitBackend(found.path);
  const controller = new AbortController();
  const off = io.onInterrupt(() => controller.abort());
  try {
    const ids = parsed.positionals.length > 0 ? [...new Set(parsed.positionals.map(Number))] : await liveIds(backend);
    if (ids.length === 0) {
      out.warn('tai wait: no agent is running in the cockpit (name ids to see their ends)\n');
      return 0;
    }
    const outcome = await waitForEvents(backend, { ids, all: o.all === true, timeoutMs: timeout * 1000, seenQuestions: new Set(), signal: controller.signal });
    for (const e of outcome.events) print(e, o.json === true, out);
    if (outcome.events.length === 0) {
      out.warn(`tai wait: nothing ended or asked${outcome.aborted ? ' (interrupted)' : ` within ${timeout} s`}; still running: ${outcome.pending.map((i) => `#${i}`).join(', ')}\n`);
      return outcome.aborted ? EXIT_CODES.cancelled : EXIT_NOTHING_ENDED;
    }
    return exitOf(outcome.events);
  } catch (err) {
    if (!(err instanceof LeadRequestError || err instanceof LeadCallError)) throw err;
    out.warn(`tai wait: ${field(err.message)}\n`);
    return err instanceof LeadCallError ? err.exitCode : 1;
  } finally {
    off();
  }
}

async function liveIds(backend: ReturnType<typeof cockpitBackend>): Promise<number[]> {
  const status = await backend.call({ cmd: 'status' });
  if (!status.ok) throw new LeadRequestError(status.error);
  return status.data.agents.filter((r) => r.kind === 'agent' && isLive(r.state)).map((r) => r.id);
}

function print(e: LeadEvent, json: boolean, out: CliOutput): void {
  if (!json) {
    out.result(`${eventText(e, 'shell')}\n`, false);
    return;
  }
  if (e.kind === 'asking') out.json(e);
  else {
    const { text, ...rest } = e;
    out.json({ ...rest, ...headAndTail(text) });
  }
}

/** The first asking event's code, else the first finished agent's that did not end done, else 0. */
function exitOf(events: readonly LeadEvent[]): number {
  if (events.some((e) => e.kind === 'asking')) return EXIT_ASKING;
  for (const e of events) {
    if (e.kind !== 'finished') continue;
    const code = e.exitCode ?? EXIT_CODES[e.state as keyof typeof EXIT_CODES] ?? 1;
    if (code !== 0) return code;
  }
  return 0;
}
