/**
 * The folder `src/core/inbox/`: the approval inbox's pure parts. This file: its rules (docs/agents.md, "The
 * inbox"), allow or reject a tool, a folder or a command prefix, for an agent, a lane or all, until a time: which
 * rule answers a question, when one ends, how it reads. A decision picks the question's first such option, once
 * before always.
 */
import type { QuestionOption } from '../agents/questions.js';
import type { Subject } from './subject.js';

/** What a rule answers. */
export const RULE_DECISIONS = ['allow', 'reject'] as const;
export type RuleDecision = (typeof RULE_DECISIONS)[number];

/** The tool name that stands for every tool. */
export const ANY_TOOL = '*';

/** The longest a rule may live: one day. */
export const RULE_LIFE_MAX_MS = 24 * 60 * 60 * 1000;

/** How long a rule made from a panel key lives. */
export const RULE_KEY_MINUTES = 30;

/** Rules one cockpit holds at most (a bound on its memory and on `tai ask rule list`). */
export const RULES_MAX = 64;

/** Whose questions a rule answers. */
export type RuleScope =
  | { readonly kind: 'agent'; readonly agent: string }
  | { readonly kind: 'lane'; readonly lane: string }
  | { readonly kind: 'all' };

/** A rule as asked for, before it has an id. */
export interface RuleSpec {
  readonly decision: RuleDecision;
  /** A tool name (`Bash`, `edit`, `Edit`), matched without case; `*` for every tool. */
  readonly tool: string;
  /** Only a question whose every path lies under this absolute folder. */
  readonly path?: string;
  /** Only a command that is this prefix, or it followed by plain arguments. */
  readonly prefix?: string;
  readonly scope: RuleScope;
  readonly expiresAt: number;
}

/** A rule the cockpit holds. */
export interface Rule extends RuleSpec {
  /** `R1`, `R2` ... in the order made. */
  readonly id: string;
  readonly createdAt: number;
  /** Also written to the agents registry (`--save`). */
  readonly saved: boolean;
}

/** A rule added: the rule, and how many waiting questions it answered at once. */
export interface RuleAdded {
  readonly rule: RuleRow;
  readonly answered: number;
}

/** Which open questions a batch answer takes: a tool, an agent (panel id or @name), or both. */
export interface BatchFilter {
  readonly tool?: string;
  readonly agent?: string;
}

/** A rule as `tai ask rule list` shows it. */
export interface RuleRow extends Rule {
  readonly leftMs: number;
  readonly text: string;
}

/** True while `rule` has not expired at `now`. */
export function isLive(rule: Rule, now: number): boolean {
  return now < rule.expiresAt;
}

/** The rules still live at `now`. */
export function liveRules(rules: readonly Rule[], now: number): Rule[] {
  return rules.filter((r) => isLive(r, now));
}

/**
 * The live rule answering a question about `subject` at `now`: a reject rule before an allow rule (refusing is
 * the safe side), then the newest.
 */
export function ruleFor(rules: readonly Rule[], subject: Subject, now: number): Rule | undefined {
  const matching = rules.filter((r) => isLive(r, now) && matches(r, subject));
  const newest = (list: Rule[]): Rule | undefined => list[list.length - 1];
  return newest(matching.filter((r) => r.decision === 'reject')) ?? newest(matching);
}

/** True when `rule` covers `subject` (its time aside). */
export function matches(rule: RuleSpec, subject: Subject): boolean {
  if (!toolMatches(rule.tool, subject)) return false;
  if (!scopeMatches(rule.scope, subject)) return false;
  if (rule.path !== undefined && !pathsUnder(rule.path, subject.paths)) return false;
  if (rule.prefix !== undefined && !commandStarts(rule.prefix, subject.command)) return false;
  return true;
}

function toolMatches(tool: string, subject: Subject): boolean {
  if (tool === ANY_TOOL) return true;
  const t = tool.toLowerCase();
  return subject.names.some((n) => n.toLowerCase() === t);
}

function scopeMatches(scope: RuleScope, subject: Subject): boolean {
  switch (scope.kind) {
    case 'all':
      return true;
    case 'lane':
      return subject.lane === scope.lane;
    case 'agent':
      return String(subject.panel) === scope.agent || (subject.agent !== undefined && subject.agent === scope.agent.replace(/^@/, ''));
  }
}

/** True when there is at least one path and every one lies under `folder` (no `..` escapes it). */
export function pathsUnder(folder: string, paths: readonly string[]): boolean {
  if (paths.length === 0) return false;
  const base = folder.endsWith('/') ? folder : `${folder}/`;
  return paths.every((p) => p.startsWith('/') && !p.split('/').includes('..') && (p === folder || p.startsWith(base)));
}

/**
 * True when `command` is `prefix`, or `prefix`, a space and plain arguments: one line, with no shell operator
 * that could run something else (`;`, `&`, `|`, `<`, `>`, a backquote, `$`, parentheses).
 */
export function commandStarts(prefix: string, command: string | undefined): boolean {
  if (command === undefined) return false;
  const c = command.trim();
  if (c !== prefix && !c.startsWith(`${prefix} `)) return false;
  return !/[;&|<>`$()\r\n]/.test(c);
}

/** The option a rule's decision picks among `options`: its once option, else its always option. */
export function ruleOption(decision: RuleDecision, options: readonly QuestionOption[]): QuestionOption | undefined {
  return options.find((o) => o.kind === `${decision}_once`) ?? options.find((o) => o.kind === `${decision}_always`);
}

/** Whole minutes left before `rule` ends (rounded up), 0 once it has. */
export function minutesLeft(rule: Rule, now: number): number {
  return Math.max(0, Math.ceil((rule.expiresAt - now) / 60_000));
}

/** `allow Bash \`npm test\` for @x`: what a rule does, in one line. */
export function ruleText(rule: RuleSpec): string {
  const what = rule.tool === ANY_TOOL ? 'every tool' : rule.tool;
  const on = rule.path === undefined ? '' : ` under ${rule.path}`;
  const cmd = rule.prefix === undefined ? '' : ` \`${rule.prefix}\``;
  return `${rule.decision} ${what}${cmd}${on} for ${scopeText(rule.scope)}`;
}

/** `@x`, `panel 3`, `lane fix-a`, `all agents`. */
export function scopeText(scope: RuleScope): string {
  switch (scope.kind) {
    case 'all':
      return 'all agents';
    case 'lane':
      return `lane ${scope.lane}`;
    case 'agent':
      return /^\d+$/.test(scope.agent) ? `panel ${scope.agent}` : `@${scope.agent.replace(/^@/, '')}`;
  }
}

/** `R3 (allow Bash \`npm test\` for @x, 12 min left)`: how a panel notes the rule that answered. */
export function ruleNote(rule: Rule, now: number): string {
  return `${rule.id} (${ruleText(rule)}, ${minutesLeft(rule, now)} min left)`;
}

/** A rule as listed at `now`. */
export function ruleRow(rule: Rule, now: number): RuleRow {
  return { ...rule, leftMs: Math.max(0, rule.expiresAt - now), text: ruleText(rule) };
}
