/**
 * `tai ask rule add|list|drop` (docs/agents.md, "The inbox"): the rules a cockpit holds to answer its agents'
 * questions at once. `add` checks what it can here, the cockpit the tool (refused: exit 64); `--save` writes the
 * registry too. With several cockpits running, add and drop need --socket.
 */
import { resolve } from 'node:path';
import { checkShape, durationMs, RuleError } from '../../core/inbox/rule-input.js';
import { RULE_DECISIONS, minutesLeft, type RuleDecision, type RuleRow, type RuleScope, type RuleSpec } from '../../core/inbox/rules.js';
import { messageOf } from '../../core/errors.js';
import { call, describeCallError, NO_COCKPIT_HINT } from '../../io/socket/control-client.js';
import { saveRule, unsaveRule } from '../../io/inbox/saved-rules.js';
import type { AskOptions } from './ask-options.js';
import { USAGE_EXIT, usageError } from '../command-line.js';
import { CliOutput, field } from '../output.js';

/** How long a rule lives without --for or --until. */
const DEFAULT_FOR = '30m';

/** Runs `tai ask rule VERB ...`. */
export async function askRule(sockets: readonly string[], values: AskOptions, rest: readonly string[], usage: string, out: CliOutput, env: NodeJS.ProcessEnv): Promise<number> {
  const spec = { name: 'ask', usage };
  const [verb, ...args] = rest;
  if (verb === 'add') {
    const made = ruleOf(args, values);
    if (typeof made === 'string') return usageError(spec, out, made);
    if (sockets.length === 0) return noCockpit(out);
    if (sockets.length > 1) return usageError(spec, out, `${sockets.length} cockpits are running: say which with --socket PATH (tai ls lists them)`);
    return add(sockets[0] ?? '', made, values, out, env);
  }
  if (verb === 'list' && args.length === 0) return sockets.length === 0 ? noCockpit(out) : list(sockets, Boolean(values.json), out);
  if (verb === 'drop' && args.length === 1) {
    if (sockets.length === 0) return noCockpit(out);
    return drop(sockets, args[0] ?? '', out, env);
  }
  return usageError(spec, out, verb === undefined ? 'rule takes add, list or drop' : `rule ${field(verb)}: takes add DECISION TOOL, list, or drop RULE`);
}

/** The rule a command line asks for, or why it cannot be one. */
function ruleOf(args: readonly string[], values: AskOptions): (RuleSpec & { everything: boolean }) | string {
  const [decision, tool, ...extra] = args;
  if (decision === undefined || tool === undefined || extra.length > 0) return 'rule add takes a decision (allow or reject) and a tool (Bash, edit, ... or *)';
  if (!RULE_DECISIONS.some((d) => d === decision)) return `rule add: the decision is allow or reject (got ${decision})`;
  const scopes = [values.agent, values.lane, values.all ? 'all' : undefined].filter((v) => v !== undefined);
  if (scopes.length !== 1) return 'rule add: say whose questions it answers, one of --agent ID (a panel id or @name), --lane NAME, --all';
  const scope: RuleScope = values.agent !== undefined ? { kind: 'agent', agent: values.agent } : values.lane !== undefined ? { kind: 'lane', lane: values.lane } : { kind: 'all' };
  if (values.for !== undefined && values.until !== undefined) return 'rule add: give --for or --until, not both';
  const now = Date.now();
  let expiresAt: number;
  if (values.until !== undefined) {
    expiresAt = Date.parse(values.until);
    if (!Number.isFinite(expiresAt)) return `rule add: --until takes a time like 2026-12-05T10:00:00Z (got ${values.until})`;
  } else {
    const ms = durationMs(values.for ?? DEFAULT_FOR);
    if (ms === undefined) return `rule add: --for takes minutes (30m or 30), hours (2h) or seconds (90s), at most 24h (got ${values.for ?? ''})`;
    expiresAt = now + ms;
  }
  const rule = {
    decision: decision as RuleDecision,
    tool,
    scope,
    expiresAt,
    everything: values.everything === true,
    ...(values.path === undefined ? {} : { path: resolve(values.path) }),
    ...(values.prefix === undefined ? {} : { prefix: values.prefix }),
  };
  try {
    checkShape(rule, now);
  } catch (err) {
    if (err instanceof RuleError) return `rule add: ${err.message}`;
    throw err;
  }
  return rule;
}

async function add(socket: string, rule: RuleSpec & { everything: boolean }, values: AskOptions, out: CliOutput, env: NodeJS.ProcessEnv): Promise<number> {
  const scope = rule.scope.kind === 'agent' ? { agent: rule.scope.agent } : rule.scope.kind === 'lane' ? { lane: rule.scope.lane } : {};
  let reply;
  try {
    reply = await call(socket, {
      cmd: 'ask_rule_add',
      decision: rule.decision,
      tool: rule.tool,
      expires_at: rule.expiresAt,
      ...scope,
      ...(rule.path === undefined ? {} : { path: rule.path }),
      ...(rule.prefix === undefined ? {} : { prefix: rule.prefix }),
      ...(rule.everything ? { everything: true } : {}),
      ...(values.save ? { saved: true } : {}),
    });
  } catch (err) {
    const failed = describeCallError(err);
    out.warn(`tai ask: ${field(failed.message)}\n`);
    return failed.exitCode;
  }
  if (!reply.ok) {
    out.warn(`tai ask: rule refused: ${field(reply.error)}\n`);
    return USAGE_EXIT;
  }
  const { rule: held, answered } = reply.data;
  out.say(`${field(held.id)} ${field(held.text)} · ${minutesLeft(held, Date.now())} min left${answered > 0 ? ` · answered ${answered} waiting question${answered === 1 ? '' : 's'}` : ''}\n`);
  if (!values.save) return 0;
  try {
    saveRule(rule, env);
    out.say(`${field(held.id)} saved to the agents registry: later cockpits hold it until it expires\n`);
    return 0;
  } catch (err) {
    out.warn(`tai ask: ${field(held.id)} is held but was not saved: ${field(messageOf(err))}\n`);
    return 1;
  }
}

async function list(sockets: readonly string[], json: boolean, out: CliOutput): Promise<number> {
  const rows: (RuleRow & { socket: string })[] = [];
  for (const socket of sockets) {
    try {
      const reply = await call(socket, { cmd: 'ask_rule_list' });
      if (reply.ok) rows.push(...reply.data.map((r) => ({ ...r, socket })));
    } catch {
      // A cockpit that does not answer holds no rule we can show.
    }
  }
  if (json) {
    out.json(rows);
    return 0;
  }
  if (rows.length === 0) out.say('no rule is held: tai ask rule add makes one\n');
  for (const r of rows) {
    const where = sockets.length > 1 ? ` [${field(r.socket)}]` : '';
    out.say(`${field(r.id)}  ${field(r.text)} · ${Math.ceil(r.leftMs / 60_000)} min left${r.saved ? ' · saved' : ''}${where}\n`);
  }
  return 0;
}

async function drop(sockets: readonly string[], id: string, out: CliOutput, env: NodeJS.ProcessEnv): Promise<number> {
  let refusal: string | undefined;
  for (const socket of sockets) {
    try {
      const reply = await call(socket, { cmd: 'ask_rule_drop', rule: id });
      if (!reply.ok) {
        refusal = reply.error;
        continue;
      }
      out.say(`${field(reply.data.id)} dropped: ${field(reply.data.text)}\n`);
      if (reply.data.saved && unsaveRule(reply.data, env)) out.say(`${field(reply.data.id)} removed from the agents registry too\n`);
      return 0;
    } catch (err) {
      refusal = describeCallError(err).message;
    }
  }
  out.warn(`tai ask: ${field(refusal ?? NO_COCKPIT_HINT)}\n`);
  return 1;
}

function noCockpit(out: CliOutput): number {
  out.warn(`tai ask: ${NO_COCKPIT_HINT}\n`);
  return 2;
}
