/**
 * The board's inbox (docs/agents.md, "The inbox"): the rules this cockpit holds, the tool names its questions named
 * (what makes a tool exist for a rule), and the audit log's listeners. In memory: rules end with the cockpit unless saved.
 */
import { RequestError, messageOf } from '../src/core/errors.js';
import type { AuditEntry } from '../src/core/inbox/audit.js';
import { checkRule, RuleError, type RuleRequest } from '../src/core/inbox/rule-input.js';
import { liveRules, ruleFor, ruleRow, RULES_MAX, type Rule, type RuleRow } from '../src/core/inbox/rules.js';
import type { Subject } from '../src/core/inbox/subject.js';

/** Told of every audit entry. */
export type AuditListener = (entry: AuditEntry) => void;

/** Tool names remembered from questions (a bound on memory; the oldest are forgotten). */
const SEEN_MAX = 512;

/** The rules, the tools seen, the audit listeners. */
export class BoardInbox {
  #rules: Rule[] = [];
  #next = 1;
  readonly #seen = new Set<string>();
  readonly #audit = new Set<AuditListener>();
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  /** Remembers the names a question's tool goes by. */
  seen(subject: Subject): void {
    for (const name of subject.names) {
      this.#seen.delete(name);
      this.#seen.add(name);
    }
    for (const old of this.#seen) {
      if (this.#seen.size <= SEEN_MAX) break;
      this.#seen.delete(old);
    }
  }

  /** Holds a new rule after checking it at `now`; throws RuleError naming what is wrong. */
  add(req: RuleRequest, saved: boolean, now: number): Rule {
    const spec = checkRule(req, this.#seen, now);
    this.#rules = liveRules(this.#rules, now);
    if (this.#rules.length >= RULES_MAX) throw new RuleError(`this cockpit holds ${RULES_MAX} rules already: drop one first (tai ask rule list, tai ask rule drop ID)`);
    const rule: Rule = { ...spec, id: `R${this.#next++}`, createdAt: now, saved };
    this.#rules.push(rule);
    return rule;
  }

  /** The live rules at `now`, oldest first. */
  list(now: number): RuleRow[] {
    this.#rules = liveRules(this.#rules, now);
    return this.#rules.map((r) => ruleRow(r, now));
  }

  /** Removes rule `id`; throws naming the live ones when there is none. */
  drop(id: string, now: number): RuleRow {
    const rule = this.#rules.find((r) => r.id.toLowerCase() === id.trim().toLowerCase());
    if (!rule) {
      const live = liveRules(this.#rules, now).map((r) => r.id);
      throw new RequestError(`no such rule: ${id} (${live.length === 0 ? 'no rule is held' : `held: ${live.join(', ')}`}; an expired rule is gone already)`);
    }
    this.#rules = this.#rules.filter((r) => r !== rule);
    return ruleRow(rule, now);
  }

  /** The live rule that answers `subject` at `now`, if any. */
  ruleFor(subject: Subject, now: number): Rule | undefined {
    return ruleFor(this.#rules, subject, now);
  }

  /** Calls `listener` with every audit entry until the returned function is called. */
  onAudit(listener: AuditListener): () => void {
    this.#audit.add(listener);
    return () => this.#audit.delete(listener);
  }

  /** Hands `entry` to every listener; a failing listener is logged, never thrown. */
  audit(entry: AuditEntry): void {
    for (const listener of this.#audit) {
      try {
        listener(entry);
      } catch (err) {
        this.#log(`audit listener failed: ${messageOf(err)}`);
      }
    }
  }
}
