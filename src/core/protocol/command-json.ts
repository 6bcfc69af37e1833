/**
 * A request line of the control socket parsed into the one Command type (docs/architecture.md, "One command
 * type, two doors"), or refused naming the bad field; a Command is its own JSON. The whole request is checked
 * first, so a refused write changes nothing; the spec's refusals keep its exact texts, and what it gives no error
 * for (a long header, a linger) is clipped or clamped.
 */
import type { Command, CommandName, CommandOf, FeedState, FocusTarget, VpaneOp } from './commands.js';
import type { PaneId } from '../panel/layout.js';
import { RequestError, VPANE_ERRORS } from '../errors.js';
import { assertNever } from '../never.js';
import { DEFAULT_ANSWERS, PERMISSION_POLICIES } from '../agents/questions.js';
import { idleCancelProblem } from '../agents/idle-cancel.js';
import { parseInboxCommand } from '../inbox/inbox-json.js';
import { ANSWER_BY } from './commands.js';
import {
  POLL_WAIT_MAX,
  RECORD_PAGE_MAX,
  MPLEX_VPANE_HEADER_MAX,
  MPLEX_VPANE_LINGER_MAX,
  MPLEX_VPANE_OPS_MAX,
  MPLEX_VPANE_WRITE_MAX,
} from '../policy.js';

/** Every command name, in the order the protocol document lists them. */
export const COMMAND_NAMES = [
  'vpane_open',
  'vpane_write',
  'vpane_close',
  'vpane_list',
  'spawn',
  'cancel',
  'status',
  'poll',
  'record_read',
  'ask_list',
  'ask_answer',
  'ask_answer_all',
  'ask_rule_add',
  'ask_rule_list',
  'ask_rule_drop',
  'steer',
  'focus',
  'close',
  'zoom',
  'scroll',
  'help',
  'lane_diff',
  'view_close',
  'detach',
] as const satisfies readonly CommandName[];

/** Fails to compile when a member of the Command union is missing from COMMAND_NAMES. */
export const COMMAND_NAMES_COMPLETE: [Exclude<CommandName, (typeof COMMAND_NAMES)[number]>] extends [never] ? true : never = true;

/** The states a feed pane's owner may set (docs/spec.md, "The vpane protocol"). */
export const FEED_STATES = ['running', 'idle', 'done', 'failed', 'timeout', 'cancelled'] as const satisfies readonly FeedState[];

/** The directions `focus` accepts. */
export const FOCUS_TARGETS = ['next', 'prev', 'left', 'right', 'up', 'down'] as const satisfies readonly FocusTarget[];

type Json = Readonly<Record<string, unknown>>;

/** Parses a decoded JSON value into a Command, or returns the refusal. */
export function parseCommand(value: unknown): Command | RequestError {
  try {
    return parseOrThrow(value);
  } catch (err) {
    if (err instanceof RequestError) return err;
    throw err;
  }
}

/** The JSON form of a command: the command itself (its fields are the wire names). */
export function commandToJson(command: Command): Command {
  return command;
}

function parseOrThrow(value: unknown): Command {
  if (!isObject(value)) throw new RequestError('request must be a JSON object');
  const cmd = value['cmd'];
  if (cmd === undefined) throw new RequestError('missing field: cmd');
  if (typeof cmd !== 'string') throw new RequestError('cmd must be a string');
  if (!isCommandName(cmd)) throw new RequestError(`unknown command: ${clipForError(cmd)}`);
  return parseNamed(cmd, value);
}

function parseNamed(cmd: CommandName, v: Json): Command {
  switch (cmd) {
    case 'vpane_open':
      return parseOpen(v);
    case 'vpane_write':
      return parseWrite(v);
    case 'vpane_close':
      return { cmd, pane: paneId(v, 'pane', 'vpane_close pane') };
    case 'vpane_list':
      return { cmd };
    case 'spawn':
      return parseSpawn(v);
    case 'cancel': {
      const reason = optional(v, 'reason', 'cancel reason', headerText);
      return { cmd, id: required(v, 'id', 'cancel id', integer), ...(reason === undefined ? {} : { reason }) };
    }
    case 'status':
      return { cmd };
    case 'poll': {
      const wait = optional(v, 'wait', 'poll wait', pollWait);
      return { cmd, id: required(v, 'id', 'poll id', integer), ...(wait === undefined ? {} : { wait }) };
    }
    case 'record_read': {
      const offset = optional(v, 'offset', 'record_read offset', integer);
      const limit = optional(v, 'limit', 'record_read limit', pageLimit);
      return {
        cmd,
        id: required(v, 'id', 'record_read id', nonEmptyString),
        ...(offset === undefined ? {} : { offset }),
        ...(limit === undefined ? {} : { limit }),
      };
    }
    case 'ask_list':
      return { cmd };
    case 'ask_answer': {
      const by = optional(v, 'by', 'ask_answer by', oneOf(ANSWER_BY));
      return { cmd, qid: required(v, 'qid', 'ask_answer qid', nonEmptyString), option: required(v, 'option', 'ask_answer option', nonEmptyString), ...(by === undefined ? {} : { by }) };
    }
    case 'ask_answer_all':
    case 'ask_rule_add':
    case 'ask_rule_list':
    case 'ask_rule_drop':
      return parseInboxCommand(cmd, v);
    case 'steer':
      return { cmd, id: required(v, 'id', 'steer id', integer), text: required(v, 'text', 'steer text', nonEmptyString) };
    case 'focus':
      return { cmd, to: required(v, 'to', 'focus to', focusTo) };
    case 'close': {
      const pane = v['pane'] === undefined ? undefined : paneId(v, 'pane', 'close pane');
      return pane === undefined ? { cmd } : { cmd, pane };
    }
    case 'zoom':
      return { cmd };
    case 'scroll': {
      if (v['lines'] !== undefined && v['pages'] !== undefined) throw new RequestError('scroll takes pages or lines, not both');
      if (v['lines'] !== undefined) return { cmd, lines: required(v, 'lines', 'scroll lines', signedInteger) };
      return { cmd, pages: required(v, 'pages', 'scroll pages', signedInteger) };
    }
    case 'help':
    case 'detach':
      return { cmd };
    case 'lane_diff':
    case 'view_close': {
      const pane = v['pane'] === undefined ? undefined : paneId(v, 'pane', `${cmd} pane`);
      return pane === undefined ? { cmd } : { cmd, pane };
    }
    default:
      return assertNever(cmd);
  }
}

function parseOpen(v: Json): CommandOf<'vpane_open'> {
  const pane = v['pane'];
  if (pane !== undefined && typeof pane !== 'string' && !(typeof pane === 'number' && Number.isInteger(pane))) {
    throw new RequestError('vpane_open pane must be a string (a pane id such as "0")');
  }
  const label = optional(v, 'label', 'vpane_open label', string);
  const header = optional(v, 'header', 'vpane_open header', headerText);
  const state = optional(v, 'state', 'vpane_open state', oneOf(FEED_STATES));
  const mainPercent = optional(v, 'main_percent', 'vpane_open main_percent', finite);
  return {
    cmd: 'vpane_open',
    ...(pane === undefined ? {} : { pane: String(pane) }),
    ...(label === undefined ? {} : { label }),
    ...(header === undefined ? {} : { header }),
    ...(state === undefined ? {} : { state }),
    ...(mainPercent === undefined ? {} : { main_percent: mainPercent }),
  };
}

function parseWrite(v: Json): CommandOf<'vpane_write'> {
  const ops = v['ops'];
  if (!Array.isArray(ops)) throw new RequestError(VPANE_ERRORS.opsNotList);
  if (ops.length > MPLEX_VPANE_OPS_MAX) throw new RequestError(VPANE_ERRORS.tooManyOps);
  return { cmd: 'vpane_write', ops: ops.map((op: unknown, i) => parseOp(op, `vpane_write ops[${i}]`)) };
}

function parseOp(op: unknown, where: string): VpaneOp {
  if (!isObject(op)) throw new RequestError(`${where} must be an object`);
  const data = optional(op, 'data', `${where}.data`, string);
  if (data !== undefined && Buffer.byteLength(data, 'utf8') > MPLEX_VPANE_WRITE_MAX) {
    throw new RequestError(VPANE_ERRORS.dataTooLarge);
  }
  const header = optional(op, 'header', `${where}.header`, headerText);
  const state = optional(op, 'state', `${where}.state`, oneOf(FEED_STATES));
  const done = optional(op, 'done', `${where}.done`, boolean);
  const linger = optional(op, 'linger', `${where}.linger`, lingerSeconds);
  return {
    pane: paneId(op, 'pane', `${where}.pane`),
    ...(data === undefined ? {} : { data }),
    ...(header === undefined ? {} : { header }),
    ...(state === undefined ? {} : { state }),
    ...(done === undefined ? {} : { done }),
    ...(linger === undefined ? {} : { linger }),
  };
}

function parseSpawn(v: Json): CommandOf<'spawn'> {
  const argv = v['argv'];
  if (argv !== undefined && !(Array.isArray(argv) && argv.every((a) => typeof a === 'string'))) {
    throw new RequestError('spawn argv must be a list of strings');
  }
  // A NUL cannot reach exec (C strings end there): refuse it here, before a panel opens.
  const nul = Array.isArray(argv) ? argv.findIndex((a) => typeof a === 'string' && a.includes('\0')) : -1;
  if (nul !== -1) throw new RequestError(`spawn argv[${nul}] must not contain a NUL byte`);
  const label = optional(v, 'label', 'spawn label', string);
  const prompt = optional(v, 'prompt', 'spawn prompt', string);
  const timeout = optional(v, 'timeout', 'spawn timeout', positive);
  const idleCancel = optional(v, 'idle_cancel', 'spawn idle_cancel', idleSeconds);
  const cwd = optional(v, 'cwd', 'spawn cwd', withoutNul(nonEmptyString));
  const retries = optional(v, 'retries', 'spawn retries', integer);
  const allow = optional(v, 'allow', 'spawn allow', boolean);
  const session = optional(v, 'session', 'spawn session', nonEmptyString);
  const lane = optional(v, 'lane', 'spawn lane', withoutNul(string));
  const inLane = optional(v, 'in_lane', 'spawn in_lane', withoutNul(nonEmptyString));
  const permissions = optional(v, 'permissions', 'spawn permissions', oneOf(PERMISSION_POLICIES));
  const askTimeout = optional(v, 'ask_timeout', 'spawn ask_timeout', positive);
  const askDefault = optional(v, 'ask_default', 'spawn ask_default', oneOf(DEFAULT_ANSWERS));
  const stdin = optional(v, 'stdin', 'spawn stdin', boolean);
  const resume = optional(v, 'resume', 'spawn resume', nonEmptyString);
  const agent = optional(v, 'agent', 'spawn agent', withoutNul(nonEmptyString));
  const host = optional(v, 'host', 'spawn host', withoutNul(nonEmptyString));
  const hostGrace = optional(v, 'host_grace', 'spawn host_grace', integer);
  if (hostGrace !== undefined && hostGrace < 1) throw new RequestError('spawn host_grace must be a whole number of seconds above 0');
  return {
    cmd: 'spawn',
    kind: required(v, 'kind', 'spawn kind', nonEmptyString),
    argv: (argv ?? []) as string[],
    ...(label === undefined ? {} : { label }),
    ...(prompt === undefined ? {} : { prompt }),
    ...(timeout === undefined ? {} : { timeout }),
    ...(idleCancel === undefined ? {} : { idle_cancel: idleCancel }),
    ...(cwd === undefined ? {} : { cwd }),
    ...(retries === undefined ? {} : { retries }),
    ...(allow === undefined ? {} : { allow }),
    ...(permissions === undefined ? {} : { permissions }),
    ...(askTimeout === undefined ? {} : { ask_timeout: askTimeout }),
    ...(askDefault === undefined ? {} : { ask_default: askDefault }),
    ...(stdin === undefined ? {} : { stdin }),
    ...(session === undefined ? {} : { session }),
    ...(resume === undefined ? {} : { resume }),
    ...(agent === undefined ? {} : { agent }),
    ...(host === undefined ? {} : { host }),
    ...(hostGrace === undefined ? {} : { host_grace: hostGrace }),
    ...(lane === undefined ? {} : { lane }),
    ...(inLane === undefined ? {} : { in_lane: inLane }),
  };
}

// --- field readers: each returns the value or throws with the field's name ---

type Reader<T> = (value: unknown, name: string) => T;

function required<T>(v: Json, key: string, name: string, read: Reader<T>): T {
  const value = v[key];
  if (value === undefined || value === null) throw new RequestError(`missing field: ${name}`);
  return read(value, name);
}

function optional<T>(v: Json, key: string, name: string, read: Reader<T>): T | undefined {
  const value = v[key];
  return value === undefined || value === null ? undefined : read(value, name);
}

/** A pane id: a non-negative integer, or a string of digits (the original's pane ids are numbers). */
function paneId(v: Json, key: string, name: string): number {
  const value = v[key];
  if (value === undefined || value === null) throw new RequestError(`missing field: ${name}`);
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return integer(value, name);
}

const string: Reader<string> = (value, name) => {
  if (typeof value !== 'string') throw new RequestError(`${name} must be a string`);
  return value;
};

const nonEmptyString: Reader<string> = (value, name) => {
  if (string(value, name) === '') throw new RequestError(`${name} must not be empty`);
  return value as string;
};

const boolean: Reader<boolean> = (value, name) => {
  if (typeof value !== 'boolean') throw new RequestError(`${name} must be true or false`);
  return value;
};

const finite: Reader<number> = (value, name) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new RequestError(`${name} must be a number`);
  return value;
};

const nonNegative: Reader<number> = (value, name) => {
  if (finite(value, name) < 0) throw new RequestError(`${name} must not be negative`);
  return value as number;
};

const positive: Reader<number> = (value, name) => {
  if (finite(value, name) <= 0) throw new RequestError(`${name} must be greater than 0`);
  return value as number;
};

const signedInteger: Reader<number> = (value, name) => {
  if (!Number.isSafeInteger(value)) throw new RequestError(`${name} must be an integer`);
  return value as number;
};

const integer: Reader<number> = (value, name) => {
  if (signedInteger(value, name) < 0) throw new RequestError(`${name} must not be negative`);
  return value as number;
};

const positiveInteger: Reader<number> = (value, name) => {
  if (signedInteger(value, name) <= 0) throw new RequestError(`${name} must be greater than 0`);
  return value as number;
};

/** A spawn's silence limit: whole seconds in ORCH_IDLE_KILL_MIN..MAX (src/core/agents/idle-cancel.ts). */
const idleSeconds: Reader<number> = (value, name) => {
  const bad = idleCancelProblem(value);
  if (bad !== undefined) throw new RequestError(`${name} ${bad}`);
  return value as number;
};

/** Poll wait seconds, clamped to POLL_WAIT_MAX (a longer timer would overflow and fire at once). */
const pollWait: Reader<number> = (value, name) => Math.min(nonNegative(value, name), POLL_WAIT_MAX / 1000);

/** A record page's size in characters, clamped to RECORD_PAGE_MAX. */
const pageLimit: Reader<number> = (value, name) => Math.min(positiveInteger(value, name), RECORD_PAGE_MAX);

/** A string the system will hand to the kernel as a C string: no NUL inside. */
function withoutNul(read: Reader<string>): Reader<string> {
  return (value, name) => {
    const text = read(value, name);
    if (text.includes('\0')) throw new RequestError(`${name} must not contain a NUL byte`);
    return text;
  };
}

/** Linger seconds, clamped to [0, MPLEX_VPANE_LINGER_MAX] (docs/spec.md, "The vpane protocol"). */
const lingerSeconds: Reader<number> = (value, name) =>
  Math.min(Math.max(0, finite(value, name)), MPLEX_VPANE_LINGER_MAX / 1000);

/** A header, clipped to MPLEX_VPANE_HEADER_MAX characters (code points). */
const headerText: Reader<string> = (value, name) => {
  const chars = [...string(value, name)];
  return chars.length <= MPLEX_VPANE_HEADER_MAX ? (value as string) : chars.slice(0, MPLEX_VPANE_HEADER_MAX - 1).join('') + '…';
};

/** A focus target: a direction, 'main', or a panel's id (a number, or a string of digits). */
const focusTo: Reader<FocusTarget | PaneId> = (value, name) => {
  if (value === 'main') return 'main';
  if (typeof value === 'number' || (typeof value === 'string' && /^\d{1,15}$/.test(value))) return integer(Number(value), name);
  if (typeof value === 'string' && (FOCUS_TARGETS as readonly string[]).includes(value)) return value as FocusTarget;
  const got = typeof value === 'string' ? clipForError(value) : JSON.stringify(value);
  throw new RequestError(`${name} must be one of ${FOCUS_TARGETS.join(', ')}, main or a pane id (got ${got})`);
};

function oneOf<T extends string>(allowed: readonly T[]): Reader<T> {
  return (value, name) => {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      const got = typeof value === 'string' ? clipForError(value) : JSON.stringify(value);
      throw new RequestError(`${name} must be one of ${allowed.join(', ')} (got ${got})`);
    }
    return value as T;
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}

/** Echoes a client's string back safely: short, and as JSON so control bytes stay visible. */
function clipForError(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
