/**
 * `tai vpane open|write|close|list`: the feed-pane protocol for shell scripts (docs/protocol.md, "Feed panes: the
 * `vpane_*` commands"); `--json` prints the reply escaped (src/cli/output.ts). `write` streams stdin in writes
 * split to the protocol's limits, lone "\n" made "\r\n" (a terminal needs the return) unless --raw; a pane in the
 * reply's `closed` stops it with exit 1, said as "may have closed": the protocol cannot tell it from one never open.
 */
import { StringDecoder } from 'node:string_decoder';
import { FEED_STATES } from '../../core/protocol/command-json.js';
import type { Command, CommandOf, FeedState, VpaneOp } from '../../core/protocol/commands.js';
import { MPLEX_VPANE_OPS_MAX, MPLEX_VPANE_WRITE_MAX } from '../../core/policy.js';
import { call, describeCallError, resolveSocket } from '../../io/socket/control-client.js';
import type { Reply } from '../../../store/dispatch.js';
import { readCommandLine, usageError } from '../command-line.js';
import { CliOutput, field, fieldLines, processOutput } from '../output.js';

/** The usage of `tai vpane`. */
export const VPANE_USAGE = `usage:
  tai vpane open [--label L] [--header H] [--state S] [--main-percent 1..99] [--pane P]   prints the new pane's id
  tai vpane write PANE [DATA | -] [--header H] [--state S] [--done] [--linger SECONDS] [--raw]
  tai vpane close PANE
  tai vpane list
options: --json (print the cockpit's reply), --socket PATH (default: $TAI_PLEXER_SOCKET); states: ${FEED_STATES.join(', ')}
`;

const SPEC = {
  name: 'vpane',
  usage: VPANE_USAGE,
  options: {
    socket: { type: 'string' },
    label: { type: 'string' },
    header: { type: 'string' },
    state: { type: 'string' },
    'main-percent': { type: 'string' },
    pane: { type: 'string' },
    done: { type: 'boolean' },
    linger: { type: 'string' },
    raw: { type: 'boolean' },
    json: { type: 'boolean' },
  },
} as const;

/** The main pane's share of the width `--main-percent` takes (the board's main_percent range). */
const MAIN_PERCENT_MIN = 1;
const MAIN_PERCENT_MAX = 99;

/** Runs `tai vpane ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput): Promise<number> {
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  const { values: o, positionals } = parsed;
  const [sub, ...rest] = positionals;
  const usage = (problem: string): number => usageError(SPEC, out, problem);
  const state = o.state as FeedState | undefined;
  if (state !== undefined && !(FEED_STATES as readonly string[]).includes(state)) return usage(`unknown state '${state}' (${FEED_STATES.join(', ')})`);

  let commands: AsyncIterable<Command> | Command[];
  switch (sub) {
    case 'open': {
      const percent = o['main-percent'] === undefined ? undefined : Number(o['main-percent']);
      if (percent !== undefined && !(Number.isInteger(percent) && percent >= MAIN_PERCENT_MIN && percent <= MAIN_PERCENT_MAX)) {
        return usage(`--main-percent takes a whole number from ${MAIN_PERCENT_MIN} to ${MAIN_PERCENT_MAX}, got '${o['main-percent']}'`);
      }
      commands = [
        {
          cmd: 'vpane_open',
          ...(o.pane === undefined ? {} : { pane: o.pane }),
          ...(o.label === undefined ? {} : { label: o.label }),
          ...(o.header === undefined ? {} : { header: o.header }),
          ...(state === undefined ? {} : { state }),
          ...(percent === undefined ? {} : { main_percent: percent }),
        },
      ];
      break;
    }
    case 'write': {
      const pane = paneArg(rest[0]);
      if (pane === undefined) return usage(rest[0] === undefined ? 'write needs a pane id (the number tai vpane open printed)' : `not a pane id: '${rest[0]}'`);
      const linger = o.linger === undefined ? undefined : Number(o.linger);
      if (linger !== undefined && !Number.isFinite(linger)) return usage('--linger must be a number of seconds');
      const last: Partial<VpaneOp> = { ...(o.done ? { done: true } : {}), ...(linger === undefined ? {} : { linger }) };
      const first: Partial<VpaneOp> = { ...(o.header === undefined ? {} : { header: o.header }), ...(state === undefined ? {} : { state }) };
      // No DATA on a terminal means no data (a header/state/done-only write); '' says so explicitly.
      const data = rest[1] ?? (process.stdin.isTTY ? '' : undefined);
      const fix = (text: string): string => (o.raw ? text : text.replace(/(?<!\r)\n/g, '\r\n'));
      commands =
        data !== undefined && data !== '-'
          ? writesOf(pane, fix(data), first, last)
          : streamWrites(pane, process.stdin, fix, first, last);
      break;
    }
    case 'close': {
      const pane = paneArg(rest[0]);
      if (pane === undefined) return usage(rest[0] === undefined ? 'close needs a pane id (the number tai vpane open printed)' : `not a pane id: '${rest[0]}'`);
      commands = [{ cmd: 'vpane_close', pane }];
      break;
    }
    case 'list':
      commands = [{ cmd: 'vpane_list' }];
      break;
    default:
      return usage(sub === undefined ? 'missing subcommand: open, write, close or list' : `unknown subcommand '${sub}' (open, write, close or list)`);
  }
  return send(o.socket, commands, o.json === true, out);
}

/** Sends the commands one per connection; stops at the first error or closed pane. */
async function send(socketFlag: string | undefined, commands: AsyncIterable<Command> | Command[], json: boolean, out: CliOutput): Promise<number> {
  const found = resolveSocket(socketFlag);
  const socket = found.path;
  if (socket === undefined) {
    out.warn(`tai vpane: ${fieldLines(found.why)}\n`);
    return 2;
  }
  let last: { command: Command; reply: Reply; data: unknown } | undefined;
  for await (const command of commands) {
    let reply;
    try {
      reply = await call(socket, command);
    } catch (err) {
      const { exitCode, message } = describeCallError(err);
      out.warn(`tai vpane: ${field(message)}\n`);
      return exitCode;
    }
    if (!reply.ok) {
      if (json) out.json(reply);
      out.warn(`tai vpane: ${field(reply.error)}\n`);
      return 1;
    }
    const closed = command.cmd === 'vpane_write' ? ((reply.data as { closed?: number[] }).closed ?? []) : [];
    if (closed.length > 0) {
      if (json) out.json(reply);
      // The reply cannot tell a pane that closed from one that never was (docs/protocol.md, vpane_write).
      out.warn(`tai vpane: ${closed.map((id) => `no such pane ${id}`).join(', ')} (it may have closed)\n`);
      return 1;
    }
    last = { command, reply, data: reply.data };
  }
  if (last === undefined) return 0;
  if (json) out.json(last.reply);
  else out.say(humanReply(last.command, last.data));
  return 0;
}

/** The reply to a person: the new id, nothing for a write, a line for a close, a table for the list. */
function humanReply(command: Command, data: unknown): string {
  switch (command.cmd) {
    case 'vpane_open':
      return `${(data as { id: number }).id}\n`;
    case 'vpane_close':
      return `closed pane ${command.pane}\n`;
    case 'vpane_list': {
      const panes = data as readonly { id: number; state: string; header: string; cols: number; rows: number; closing: boolean }[];
      if (panes.length === 0) return 'no feed panes\n';
      const rows = panes.map((p) => `${String(p.id).padEnd(4)}  ${p.state.padEnd(9)}  ${`${p.cols}x${p.rows}`.padEnd(7)}  ${p.closing ? 'closing' : 'open   '}  ${field(p.header)}`);
      return `${['PANE  STATE      SIZE     LEASE    HEADER', ...rows].join('\n')}\n`;
    }
    default:
      return '';
  }
}

/** One vpane_write for `texts`, each split into ops of at most MPLEX_VPANE_WRITE_MAX bytes. */
function writeOf(pane: number, texts: string[], first: Partial<VpaneOp>, last: Partial<VpaneOp>): CommandOf<'vpane_write'> {
  const pieces = texts.flatMap(splitUtf8);
  const ops: VpaneOp[] = (pieces.length === 0 ? [''] : pieces).map((data) => ({ pane, ...(data === '' ? {} : { data }) }));
  ops[0] = { ...ops[0], ...first, pane };
  ops[ops.length - 1] = { ...ops[ops.length - 1], ...last, pane };
  return { cmd: 'vpane_write', ops };
}

/** The writes for one text: at most MPLEX_VPANE_OPS_MAX ops each; header/state on the first, done/linger on the last. */
function writesOf(pane: number, text: string, first: Partial<VpaneOp>, last: Partial<VpaneOp>): Command[] {
  const pieces = splitUtf8(text);
  if (pieces.length <= MPLEX_VPANE_OPS_MAX) return [writeOf(pane, pieces, first, last)];
  const out: Command[] = [];
  for (let i = 0; i < pieces.length; i += MPLEX_VPANE_OPS_MAX) {
    const isLast = i + MPLEX_VPANE_OPS_MAX >= pieces.length;
    out.push(writeOf(pane, pieces.slice(i, i + MPLEX_VPANE_OPS_MAX), i === 0 ? first : {}, isLast ? last : {}));
  }
  return out;
}

/** Streams standard input as writes; header/state on the first, done/linger on a final one. */
async function* streamWrites(
  pane: number,
  input: AsyncIterable<Buffer | string>,
  fix: (text: string) => string,
  first: Partial<VpaneOp>,
  last: Partial<VpaneOp>,
): AsyncIterable<Command> {
  const decoder = new StringDecoder('utf8');
  let head = first;
  for await (const chunk of input) {
    const text = fix(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const pieces = splitUtf8(text);
    for (let i = 0; i < pieces.length; i += MPLEX_VPANE_OPS_MAX) {
      yield writeOf(pane, pieces.slice(i, i + MPLEX_VPANE_OPS_MAX), head, {});
      head = {};
    }
  }
  const tail = fix(decoder.end());
  yield writeOf(pane, tail === '' ? [] : [tail], head, last);
}

/** Splits text into pieces of at most MPLEX_VPANE_WRITE_MAX UTF-8 bytes, never inside a character. */
function splitUtf8(text: string): string[] {
  const out: string[] = [];
  let piece = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > MPLEX_VPANE_WRITE_MAX) {
      out.push(piece);
      piece = '';
      bytes = 0;
    }
    piece += ch;
    bytes += n;
  }
  if (piece !== '') out.push(piece);
  return out;
}

function paneArg(text: string | undefined): number | undefined {
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

