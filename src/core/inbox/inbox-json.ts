/**
 * The JSON form of the inbox's socket commands (docs/protocol.md):
 * `ask_answer_all`, `ask_rule_add`, `ask_rule_list`, `ask_rule_drop`, parsed
 * for src/core/protocol/command-json.ts with a RequestError that names the
 * bad field. Unknown fields are ignored, as for every command.
 */
import { RequestError } from '../errors.js';
import { ANSWER_BY, type AnswerBy, type CommandOf } from '../protocol/commands.js';
import { RULE_DECISIONS, type RuleDecision } from './rules.js';

type Json = Readonly<Record<string, unknown>>;
type InboxName = 'ask_answer_all' | 'ask_rule_add' | 'ask_rule_list' | 'ask_rule_drop';

/** Longest text of one field (a tool name, a path, a prefix). */
const FIELD_MAX = 4096;

/** Parses one of the inbox's commands. */
export function parseInboxCommand(cmd: InboxName, v: Json): CommandOf<InboxName> {
  switch (cmd) {
    case 'ask_rule_list':
      return { cmd };
    case 'ask_rule_drop':
      return { cmd, rule: text(v, 'rule', cmd, true) ?? '' };
    case 'ask_answer_all': {
      const tool = text(v, 'tool', cmd, false);
      const agent = text(v, 'agent', cmd, false);
      if (tool === undefined && agent === undefined) throw new RequestError('ask_answer_all needs tool or agent (or both)');
      const by = answerBy(v['by']);
      return { cmd, option: text(v, 'option', cmd, true) ?? '', ...(tool === undefined ? {} : { tool }), ...(agent === undefined ? {} : { agent }), ...(by === undefined ? {} : { by }) };
    }
    case 'ask_rule_add':
      return parseRuleAdd(v);
  }
}

function parseRuleAdd(v: Json): CommandOf<'ask_rule_add'> {
  const cmd = 'ask_rule_add';
  const decision = v['decision'];
  if (!RULE_DECISIONS.some((d) => d === decision)) throw new RequestError(`${cmd} decision must be one of ${RULE_DECISIONS.join(', ')}`);
  const expires = v['expires_at'];
  if (typeof expires !== 'number' || !Number.isFinite(expires)) throw new RequestError(`${cmd} expires_at must be a time in ms since the epoch`);
  const optional: Record<string, string> = {};
  for (const key of ['path', 'prefix', 'agent', 'lane'] as const) {
    const value = text(v, key, cmd, false);
    if (value !== undefined) optional[key] = value;
  }
  if (optional['agent'] !== undefined && optional['lane'] !== undefined) throw new RequestError(`${cmd} takes agent or lane, not both`);
  const flags: { everything?: boolean; saved?: boolean } = {};
  for (const key of ['everything', 'saved'] as const) {
    const value = v[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw new RequestError(`${cmd} ${key} must be true or false`);
    flags[key] = value;
  }
  return { cmd, decision: decision as RuleDecision, tool: text(v, 'tool', cmd, true) ?? '', expires_at: expires, ...optional, ...flags };
}

function text(v: Json, key: string, cmd: string, required: boolean): string | undefined {
  const value = v[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new RequestError(`${cmd} ${key} must be a non-empty string`);
  if (value.length > FIELD_MAX || value.includes('\0')) throw new RequestError(`${cmd} ${key} must be at most ${FIELD_MAX} characters, without NUL`);
  return value;
}

function answerBy(value: unknown): AnswerBy | undefined {
  if (value === undefined) return undefined;
  const by = ANSWER_BY.find((b) => b === value);
  if (by === undefined) throw new RequestError(`ask_answer_all by must be one of ${ANSWER_BY.join(', ')}`);
  return by;
}
