/**
 * The shape each command's successful reply `data` must have, checked before a field is read: a cockpit of another
 * version, or anything listening on the path, may answer what the CLI would crash on. Extra fields are allowed (the
 * protocol may grow); each command's reply: docs/protocol.md, "tai's own commands".
 */
import type { CommandName } from '../../core/protocol/commands.js';
import { assertNever } from '../../core/never.js';

type Check = (data: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): boolean => Number.isSafeInteger(v);
const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): boolean => typeof v === 'string';
const isBool = (v: unknown): boolean => typeof v === 'boolean';
const isNull = (v: unknown): boolean => v === null;

/** An object whose listed fields pass their checks; `?` fields may be absent. */
function shape(fields: Readonly<Record<string, Check>>): Check {
  return (data) =>
    isObject(data) &&
    Object.entries(fields).every(([key, check]) => (key.endsWith('?') ? data[key.slice(0, -1)] === undefined || check(data[key.slice(0, -1)]) : check(data[key])));
}

const listOf = (check: Check): Check => (data) => Array.isArray(data) && data.every(check);

/** The shape of each command's reply data, with the words the error uses for it. */
function expected(cmd: CommandName): { readonly check: Check; readonly what: string } {
  switch (cmd) {
    case 'vpane_open':
      return { check: shape({ id: isInt, cols: isInt, rows: isInt }), what: '{id, cols, rows}' };
    case 'vpane_write':
      return {
        check: shape({ closed: listOf(isInt), cols: (v) => isObject(v) && Object.values(v).every(isInt) }),
        what: '{closed: [ids], cols: {id: cols}}',
      };
    case 'vpane_list':
      return { check: listOf(shape({ id: isInt, state: isStr, header: isStr, cols: isInt, rows: isInt, closing: isBool })), what: 'a list of panes' };
    case 'spawn':
      return { check: shape({ id: isInt, label: isStr, shown: isBool, 'reason?': isStr }), what: '{id, label, shown}' };
    case 'cancel':
      return { check: shape({ id: isInt, cancelled: (v) => v === true }), what: '{id, cancelled: true}' };
    case 'status':
      return { check: shape({ totals: isObject, agents: listOf(shape({ id: isInt, state: isStr, label: isStr })) }), what: '{totals, agents}' };
    case 'poll':
      return {
        check: shape({ id: isInt, state: isStr, finished: isBool, text: isStr, chars: isInt, reason: isStr, 'recordId?': isStr, 'exitCode?': isInt }),
        what: '{id, state, finished, text, chars, reason}',
      };
    case 'record_read':
      return {
        check: shape({ id: isStr, offset: isInt, text: isStr, total: isNum, next: (v) => v === null || isInt(v) }),
        what: '{id, offset, text, total, next}',
      };
    case 'ask_list':
      return { check: listOf(shape({ qid: isStr, panel: isInt, label: isStr, tool: isStr, options: listOf(shape({ id: isStr, name: isStr, kind: isStr })), waitedMs: isNum, open: isBool })), what: 'a list of questions' };
    case 'ask_answer':
      return { check: shape({ qid: isStr, panel: isInt, option: shape({ id: isStr, name: isStr, kind: isStr }) }), what: '{qid, panel, option}' };
    case 'ask_answer_all':
      return { check: shape({ answered: listOf(shape({ qid: isStr, panel: isInt })), skipped: listOf(shape({ qid: isStr, why: isStr })) }), what: '{answered, skipped}' };
    case 'ask_rule_add':
      return { check: shape({ rule: shape({ id: isStr, text: isStr, expiresAt: isNum }), answered: isInt }), what: '{rule, answered}' };
    case 'ask_rule_list':
      return { check: listOf(shape({ id: isStr, text: isStr, expiresAt: isNum, leftMs: isNum, saved: isBool })), what: 'a list of rules' };
    case 'ask_rule_drop':
      return { check: shape({ id: isStr, text: isStr, saved: isBool }), what: 'the rule dropped' };
    case 'steer':
      return { check: shape({ id: isInt, delivery: isStr }), what: '{id, delivery}' };
    case 'vpane_close':
    case 'focus':
    case 'close':
    case 'zoom':
    case 'scroll':
    case 'help':
    case 'detach':
      return { check: isNull, what: 'null' };
    case 'lane_diff':
      return { check: shape({ view: isInt }), what: '{view}' };
    case 'view_close':
      return { check: shape({ closed: isBool }), what: '{closed}' };
    default:
      return assertNever(cmd);
  }
}

/** Null when `data` is a well-formed reply to `cmd`, else what was expected (for the error message). */
export function replyShapeProblem(cmd: CommandName, data: unknown): string | null {
  const { check, what } = expected(cmd);
  return check(data) ? null : `data must be ${what}`;
}
