/**
 * Rules saved to the agents registry (docs/agents-registry.md, "Saved rules"): the file's `rules` list, each rule's
 * JSON with an ISO expiry. Pure: the form and its validation.
 */
import { RULE_DECISIONS, type RuleDecision, type RuleScope, type RuleSpec } from './rules.js';

/** A saved rule as the registry file holds it. */
export interface SavedRuleJson {
  readonly decision: RuleDecision;
  readonly tool: string;
  readonly path?: string;
  readonly prefix?: string;
  /** One of agent and lane, or neither (all agents). */
  readonly agent?: string;
  readonly lane?: string;
  readonly expires_at: string;
}

const FIELDS = ['decision', 'tool', 'path', 'prefix', 'agent', 'lane', 'expires_at'];

/** The JSON form of `spec`. */
export function ruleJson(spec: RuleSpec): SavedRuleJson {
  return {
    decision: spec.decision,
    tool: spec.tool,
    ...(spec.path === undefined ? {} : { path: spec.path }),
    ...(spec.prefix === undefined ? {} : { prefix: spec.prefix }),
    ...(spec.scope.kind === 'agent' ? { agent: spec.scope.agent } : spec.scope.kind === 'lane' ? { lane: spec.scope.lane } : {}),
    expires_at: new Date(spec.expiresAt).toISOString(),
  };
}

/** True when two specs are the same rule (how a dropped saved rule is found in the file). */
export function sameRule(a: RuleSpec, b: RuleSpec): boolean {
  return JSON.stringify(ruleJson(a)) === JSON.stringify(ruleJson(b));
}

/**
 * Reads the registry's `rules` value; `fail(field, problem)` throws with the
 * exact field (`rules[2].expires_at`).
 */
export function parseSavedRules(raw: unknown, fail: (field: string, problem: string) => never): RuleSpec[] {
  if (!Array.isArray(raw)) return fail('rules', 'must be a list of rules written by tai ask rule add --save');
  return (raw as unknown[]).map((r, i) => parseOne(r, `rules[${i}]`, fail));
}

function parseOne(r: unknown, at: string, fail: (field: string, problem: string) => never): RuleSpec {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return fail(at, 'must be an object like {"decision": "allow", "tool": "Bash", "expires_at": "..."}');
  const o = r as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => !FIELDS.includes(k));
  if (extra !== undefined) return fail(`${at}.${extra}`, `is not a rule field (known: ${FIELDS.join(', ')})`);
  const decision = o['decision'];
  if (!RULE_DECISIONS.some((d) => d === decision)) return fail(`${at}.decision`, 'must be allow or reject');
  const text = (k: string, required: boolean): string | undefined => {
    const v = o[k];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || v.trim() === '') return fail(`${at}.${k}`, 'must be a non-empty string');
    return v;
  };
  const tool = text('tool', true) ?? '';
  const expires = Date.parse(text('expires_at', true) ?? '');
  if (!Number.isFinite(expires)) return fail(`${at}.expires_at`, 'must be an ISO time like 2026-12-05T10:00:00.000Z');
  const agent = text('agent', false);
  const lane = text('lane', false);
  if (agent !== undefined && lane !== undefined) return fail(at, 'names both agent and lane: keep one');
  const scope: RuleScope = agent !== undefined ? { kind: 'agent', agent } : lane !== undefined ? { kind: 'lane', lane } : { kind: 'all' };
  const path = text('path', false);
  const prefix = text('prefix', false);
  return {
    decision: decision as RuleDecision,
    tool,
    ...(path === undefined ? {} : { path }),
    ...(prefix === undefined ? {} : { prefix }),
    scope,
    expiresAt: expires,
  };
}
