/**
 * A rule as asked for, checked before the cockpit holds it (docs/agents.md, "The inbox"): a tool that exists (one
 * an agent declared or asked for), `everything` written out for a rule allowing all tools to all agents, an expiry
 * ahead and within a day. Pure; the messages say what to do next.
 */
import { RequestError } from '../errors.js';
import { ANY_TOOL, RULE_LIFE_MAX_MS, type RuleScope, type RuleSpec } from './rules.js';

/** A rule refused as asked; the CLI exits 64 (a bad command line). */
export class RuleError extends RequestError {}

/** Claude Code's tool names and ACP's tool kinds: tools every agent of those kinds declares. */
export const DECLARED_TOOLS: readonly string[] = [
  'Bash', 'Edit', 'MultiEdit', 'Write', 'Read', 'NotebookEdit', 'WebFetch', 'WebSearch', 'Glob', 'Grep', 'Task', 'TodoWrite',
  'read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other',
];

/** A rule request: a spec plus the consent to allow everything. */
export interface RuleRequest extends RuleSpec {
  readonly everything?: boolean;
}

/** True when `spec` would allow every tool of every agent, on every path and command. */
export function allowsEverything(spec: RuleSpec): boolean {
  return spec.decision === 'allow' && spec.tool === ANY_TOOL && spec.path === undefined && spec.prefix === undefined && spec.scope.kind === 'all';
}

/** Refuses what is wrong with `req` at `now`, given the tools known; returns the spec to hold. */
export function checkRule(req: RuleRequest, known: ReadonlySet<string>, now: number): RuleSpec {
  checkShape(req, now);
  const tool = req.tool.trim();
  if (tool !== ANY_TOOL && !knows(known, tool)) {
    const names = [...new Set([...DECLARED_TOOLS, ...known])].join(', ');
    throw new RuleError(`no agent has asked for or declared a tool named "${tool}": name one of ${names} (or * for every tool)`);
  }
  const { everything: _everything, ...spec } = req;
  return { ...spec, tool };
}

/** The checks that need no cockpit (the CLI runs them first): everything, path, prefix, scope, expiry. */
export function checkShape(req: RuleRequest, now: number): void {
  if (req.tool.trim() === '') throw new RuleError('a rule names a tool: Bash, edit, ... or * for every tool');
  if (allowsEverything(req) && req.everything !== true) {
    throw new RuleError('this rule would allow every tool for every agent: narrow it (a tool, --path, --prefix, --agent, --lane) or write it out with --everything');
  }
  if (req.path !== undefined && !req.path.startsWith('/')) throw new RuleError(`--path must be an absolute folder (got "${req.path}")`);
  if (req.prefix !== undefined && (req.prefix.trim() === '' || /[\r\n]/.test(req.prefix))) throw new RuleError('--prefix must be one non-empty line, like "npm test"');
  checkScope(req.scope);
  if (req.expiresAt <= now) throw new RuleError(`the expiry ${new Date(req.expiresAt).toISOString()} is in the past: give a time ahead, at most a day (--for 30m, --for 2h)`);
  if (req.expiresAt > now + RULE_LIFE_MAX_MS) {
    throw new RuleError(`the expiry ${new Date(req.expiresAt).toISOString()} is more than a day ahead: a rule lives at most 24 hours (--for 24h)`);
  }
}

function checkScope(scope: RuleScope): void {
  if (scope.kind === 'agent' && !/^(\d+|@?[a-z0-9][a-z0-9_-]*)$/.test(scope.agent)) {
    throw new RuleError(`--agent takes a panel id or an @name (got "${scope.agent}")`);
  }
  if (scope.kind === 'lane' && scope.lane.trim() === '') throw new RuleError('--lane takes a lane name');
}

function knows(known: ReadonlySet<string>, tool: string): boolean {
  const t = tool.toLowerCase();
  return DECLARED_TOOLS.some((d) => d.toLowerCase() === t) || [...known].some((k) => k.toLowerCase() === t);
}

/**
 * A duration as `--for` takes it: whole minutes `30m`, hours `2h`, or
 * seconds `90s`; a bare number is minutes. Undefined when it is none of them.
 */
export function durationMs(text: string): number | undefined {
  const m = /^(\d{1,6})([smh]?)$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] === 's' ? 1000 : m[2] === 'h' ? 3_600_000 : 60_000;
  return n * unit;
}
