/**
 * The folder `src/cli/ask/`: `tai ask` and its verbs (docs/agents.md, "The inbox"). This file: the questions the
 * live cockpits' agents wait on (all of the user's, without a socket), `ask answer` (one, or `--all-matching`; an id
 * waiting in several cockpits is refused with the list, nothing answered), the way to `ask rule` and `ask log`.
 * Exit 1: an answer refused, 2: no cockpit, 64: a bad command line.
 */
import type { QuestionRow } from '../../core/agents/questions.js';
import { formatElapsed } from '../../core/panel/header.js';
import { runningCockpits } from '../../io/link/link-place.js';
import { findLiveSockets } from '../../io/socket/socket-path.js';
import { call, describeCallError, NO_COCKPIT_HINT } from '../../io/socket/control-client.js';
import { readCommandLine, USAGE_EXIT } from '../command-line.js';
import { ASK_OPTIONS as OPTIONS, type AskOptions } from './ask-options.js';
import { askLog } from './ask-log.js';
import { askRule } from './ask-rules.js';
import { CliOutput, field, processOutput } from '../output.js';

const USAGE =
  'usage: tai ask [--json] [--socket PATH]\n' +
  '       tai ask answer QID OPTION [--socket PATH]\n' +
  '       tai ask answer --all-matching TOOL [--agent ID] OPTION | --agent ID OPTION\n' +
  '       tai ask rule add allow|reject TOOL [--path DIR] [--prefix CMD] (--agent ID | --lane NAME | --all)\n' +
  '                        [--for 30m | --until TIME] [--save] [--everything]\n' +
  '       tai ask rule list [--json] | tai ask rule drop RULE\n' +
  '       tai ask log [--json] [--limit N]\n';

/** Runs `tai ask ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = readCommandLine({ name: 'ask', usage: USAGE, options: OPTIONS }, args, out);
  if (typeof parsed === 'number') return parsed;
  const [verb, ...rest] = parsed.positionals;
  if (verb === 'log') return askLog(parsed.values, rest, USAGE, out, env);
  const sockets = socketsOf(parsed.values.socket, env);
  if (verb === 'rule') return askRule(sockets, parsed.values, rest, USAGE, out, env);
  if (sockets.length === 0) {
    out.warn(`tai ask: ${NO_COCKPIT_HINT}\n`);
    return 2;
  }
  if (verb === undefined) return list(sockets, Boolean(parsed.values.json), out);
  const batch = parsed.values['all-matching'] !== undefined || parsed.values.agent !== undefined;
  if (verb === 'answer' && batch && rest.length === 1) {
    // Panel ids repeat across cockpits: an agent is named in one cockpit only.
    if (parsed.values.agent !== undefined && sockets.length > 1) {
      out.warn(`tai ask: ${sockets.length} cockpits are running: say which with --socket PATH for --agent (tai ls lists them)\n${USAGE}`);
      return USAGE_EXIT;
    }
    return answerAll(sockets, parsed.values, rest[0] ?? '', out);
  }
  if (verb === 'answer' && !batch && rest.length === 2) return answer(sockets, rest[0] ?? '', rest[1] ?? '', out, env);
  const why = verb !== 'answer' ? `unknown verb ${field(verb)}` : batch ? 'answer --all-matching TOOL / --agent ID takes one option' : 'answer takes a question id and an option';
  out.warn(`tai ask: ${why}\n${USAGE}`);
  return USAGE_EXIT;
}

/** `tai ask answer --all-matching TOOL | --agent ID OPTION`: every open question they take, answered; says how many. */
async function answerAll(sockets: readonly string[], values: AskOptions, option: string, out: CliOutput): Promise<number> {
  const tool = values['all-matching'];
  const agent = values.agent;
  let total = 0;
  let failed: { exitCode: number; message: string } | undefined;
  for (const socket of sockets) {
    try {
      const reply = await call(socket, { cmd: 'ask_answer_all', option, ...(tool === undefined ? {} : { tool }), ...(agent === undefined ? {} : { agent }) });
      if (!reply.ok) {
        failed = { exitCode: 1, message: reply.error };
        continue;
      }
      total += reply.data.answered.length;
      for (const a of reply.data.answered) out.say(`${field(a.qid)} answered: ${field(a.option.name)} (${field(a.option.id)}) for panel ${a.panel}\n`);
      for (const s of reply.data.skipped) out.warn(`tai ask: ${field(s.qid)} not answered: ${field(s.why)}\n`);
    } catch (err) {
      failed = describeCallError(err);
    }
  }
  const what = [tool === undefined ? '' : `of ${field(tool)}`, agent === undefined ? '' : `of agent ${field(agent)}`].filter((w) => w !== '').join(' ');
  if (total === 0 && failed) {
    out.warn(`tai ask: ${field(failed.message)}\n`);
    return failed.exitCode;
  }
  out.say(`answered ${total} question${total === 1 ? '' : 's'} ${what}\n`);
  return 0;
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

async function answer(sockets: readonly string[], qid: string, option: string, out: CliOutput, env: NodeJS.ProcessEnv): Promise<number> {
  // With several cockpits, ids like q1 repeat: answer only the one cockpit that holds it, or refuse and list them.
  const holders = sockets.length > 1 ? await holdersOf(sockets, qid) : [];
  if (holders.length > 1) {
    const names = cockpitNames(env);
    const lines = holders.map(({ socket, row }) => `  ${describeRow(row)}  in ${cockpitOf(socket, names)}: tai ask answer ${qid} ${field(option)} --socket ${field(socket)}`);
    out.warn(`tai ask: question ${qid} is waiting in ${holders.length} cockpits; nothing was answered. Say which with --socket:\n${lines.join('\n')}\n`);
    return 1;
  }
  const targets = holders.length === 1 ? holders.map((h) => h.socket) : sockets;
  let refusal: string | undefined;
  let failed: { exitCode: 1 | 2; message: string } | undefined;
  for (const socket of targets) {
    try {
      const reply = await call(socket, { cmd: 'ask_answer', qid, option });
      if (reply.ok) {
        const where = sockets.length > 1 ? ` in ${cockpitOf(socket, cockpitNames(env))}` : '';
        out.say(`${field(reply.data.qid)} answered: ${field(reply.data.option.name)} (${field(reply.data.option.id)}) for panel ${reply.data.panel}${where}\n`);
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

/** The cockpits whose questions include `qid`, with its row there; a cockpit that does not answer is left out. */
async function holdersOf(sockets: readonly string[], qid: string): Promise<{ socket: string; row: QuestionRow }[]> {
  const found: { socket: string; row: QuestionRow }[] = [];
  for (const socket of sockets) {
    try {
      const reply = await call(socket, { cmd: 'ask_list' });
      const row = reply.ok ? reply.data.find((r) => r.qid === qid) : undefined;
      if (row !== undefined) found.push({ socket, row });
    } catch {
      // Unreachable: the answer loop says so if nothing else answers.
    }
  }
  return found;
}

function describeRow(r: QuestionRow): string {
  return `${r.qid}  panel ${r.panel} ${field(r.label)} · ${field(r.tool)}`;
}

/** Each running cockpit's name by its control socket. */
function cockpitNames(env: NodeJS.ProcessEnv): ReadonlyMap<string, string> {
  return new Map(runningCockpits(env).flatMap((c) => (c.control === undefined ? [] : [[c.control, c.name] as const])));
}

function cockpitOf(socket: string, names: ReadonlyMap<string, string>): string {
  const name = names.get(socket);
  return name === undefined ? `the cockpit at ${field(socket)}` : `cockpit ${field(name)}`;
}
