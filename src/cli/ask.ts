/**
 * `tai ask [--json] [--socket PATH]`: every question the agents of the
 * reachable cockpits wait on (agent, panel, tool, options, how long it has
 * waited); `tai ask answer QID OPTION`: answers one (OPTION is the option's
 * id, its number as listed, or `y` / `n`). Without --socket or
 * TAI_PLEXER_SOCKET it asks every live cockpit of this user, and an answer
 * goes to the one that holds the question. Exit 0 on success, 1 when the
 * answer is refused (already answered, timed out, agent gone, an option not
 * offered: the cockpit's message says which), 2 when no cockpit is
 * reachable, 64 for a bad command line.
 */
import type { QuestionRow } from '../core/agents/questions.js';
import { formatElapsed } from '../core/panel/header.js';
import { findLiveSockets } from '../io/socket/socket-path.js';
import { call, describeCallError, NO_COCKPIT_HINT } from '../io/socket/control-client.js';
import { readCommandLine, USAGE_EXIT } from './command-line.js';
import { CliOutput, field, processOutput } from './output.js';

const USAGE = 'usage: tai ask [--json] [--socket PATH]\n       tai ask answer QID OPTION [--socket PATH]\n';

/** Runs `tai ask ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = readCommandLine({ name: 'ask', usage: USAGE, options: { socket: { type: 'string' }, json: { type: 'boolean' } } }, args, out);
  if (typeof parsed === 'number') return parsed;
  const [verb, ...rest] = parsed.positionals;
  const sockets = socketsOf(parsed.values.socket, env);
  if (sockets.length === 0) {
    out.warn(`tai ask: ${NO_COCKPIT_HINT}\n`);
    return 2;
  }
  if (verb === undefined) return list(sockets, Boolean(parsed.values.json), out);
  if (verb === 'answer' && rest.length === 2) return answer(sockets, rest[0] ?? '', rest[1] ?? '', out);
  out.warn(`tai ask: ${verb === 'answer' ? 'answer takes a question id and an option' : `unknown verb ${field(verb)}`}\n${USAGE}`);
  return USAGE_EXIT;
}

function socketsOf(flag: string | undefined, env: NodeJS.ProcessEnv): readonly string[] {
  if (flag) return [flag];
  if (env['TAI_PLEXER_SOCKET']) return [env['TAI_PLEXER_SOCKET']];
  return findLiveSockets(env).live;
}

async function list(sockets: readonly string[], json: boolean, out: CliOutput): Promise<number> {
  const rows: (QuestionRow & { socket: string })[] = [];
  let failed: { exitCode: number; message: string } | undefined;
  for (const socket of sockets) {
    try {
      const reply = await call(socket, { cmd: 'ask_list' });
      if (reply.ok) rows.push(...reply.data.map((r) => ({ ...r, socket })));
      else failed = { exitCode: 1, message: reply.error };
    } catch (err) {
      failed = describeCallError(err);
    }
  }
  if (failed && rows.length === 0 && sockets.length === 1) {
    out.warn(`tai ask: ${field(failed.message)}\n`);
    return failed.exitCode;
  }
  if (json) {
    out.json(rows);
    return 0;
  }
  if (rows.length === 0) {
    out.say('no agent is waiting for you\n');
    return 0;
  }
  for (const r of rows) {
    const where = sockets.length > 1 ? ` [${field(r.socket)}]` : '';
    const kind = r.toolKind ? ` (${field(r.toolKind)})` : '';
    const state = r.open ? `waiting ${formatElapsed(r.waitedMs)}` : 'queued';
    const flood = r.flooded > 0 ? ` · ${r.flooded} refused as a flood` : '';
    out.say(`${r.qid}  panel ${r.panel} ${field(r.label)} · ${field(r.tool)}${kind} · ${state}${flood}${where}\n`);
    out.say(`     ${r.options.map((o, i) => `${i + 1} ${field(o.id)} (${field(o.name)})`).join('  ')}\n`);
  }
  return 0;
}

async function answer(sockets: readonly string[], qid: string, option: string, out: CliOutput): Promise<number> {
  let refusal: string | undefined;
  let failed: { exitCode: 1 | 2; message: string } | undefined;
  for (const socket of sockets) {
    try {
      const reply = await call(socket, { cmd: 'ask_answer', qid, option });
      if (reply.ok) {
        out.say(`${field(reply.data.qid)} answered: ${field(reply.data.option.name)} (${field(reply.data.option.id)}) for panel ${reply.data.panel}\n`);
        return 0;
      }
      // Another cockpit may hold the question: a plain "no such question" is only final when none does.
      if (refusal === undefined || !reply.error.startsWith('no such question')) refusal = reply.error;
    } catch (err) {
      failed = describeCallError(err);
    }
  }
  if (refusal !== undefined) {
    out.warn(`tai ask: ${field(refusal)}\n`);
    return 1;
  }
  out.warn(`tai ask: ${field(failed?.message ?? NO_COCKPIT_HINT)}\n`);
  return failed?.exitCode ?? 2;
}
