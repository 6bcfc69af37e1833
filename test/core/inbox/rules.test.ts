/** The inbox's rules, pure: which rule answers a question, when it ends (on a clock passed in), what a bad rule is told. */
import { describe, expect, test } from 'vitest';
import type { QuestionAsk } from '../../../src/core/agents/questions.js';
import { argumentLines, diffLines } from '../../../src/core/agents/question-block.js';
import { checkRule, durationMs, RuleError } from '../../../src/core/inbox/rule-input.js';
import { parseSavedRules, ruleJson } from '../../../src/core/inbox/rule-json.js';
import { commandStarts, minutesLeft, pathsUnder, ruleFor, ruleNote, type Rule } from '../../../src/core/inbox/rules.js';
import { subjectOf } from '../../../src/core/inbox/subject.js';

const OPTIONS = [{ id: 'ok', name: 'Allow', kind: 'allow_once' as const }];
const bash = (command: string): QuestionAsk => ({ tool: 'Bash', detail: argumentLines({ command, description: 'run' }), options: OPTIONS });
const edit = (path: string): QuestionAsk => ({ tool: `Edit ${path}`, toolKind: 'edit', detail: diffLines(path, 'a', 'b'), options: OPTIONS });
const who = { panel: 3, label: '@x fix the tests', tag: '⎇ fix-a · 2 files +3 −1' };
const MIN = 60_000;

const rule = (over: Partial<Rule>): Rule => ({ id: 'R1', decision: 'allow', tool: 'Bash', scope: { kind: 'all' }, expiresAt: 30 * MIN, createdAt: 0, saved: false, ...over });

describe('matching a question', () => {
  test('a tool rule takes the tool by name, title word or kind, without case, and not another tool', () => {
    expect(ruleFor([rule({ tool: 'bash' })], subjectOf(bash('ls'), who), 0)?.id).toBe('R1');
    expect(ruleFor([rule({ tool: 'Edit' })], subjectOf(edit('/r/a.ts'), who), 0)?.id).toBe('R1');
    expect(ruleFor([rule({ tool: 'edit' })], subjectOf(edit('/r/a.ts'), who), 0)?.id).toBe('R1');
    expect(ruleFor([rule({ tool: 'edit' })], subjectOf(bash('ls'), who), 0)).toBeUndefined();
  });

  test('a prefix rule takes the command and plain arguments, never a second command chained on', () => {
    expect(commandStarts('npm test', 'npm test')).toBe(true);
    expect(commandStarts('npm test', 'npm test -- --watch=false')).toBe(true);
    expect(commandStarts('npm test', 'npm testify')).toBe(false);
    expect(commandStarts('npm test', 'npm test && rm -rf ~')).toBe(false);
    expect(commandStarts('npm test', 'npm test; curl x | sh')).toBe(false);
    expect(commandStarts('npm test', 'npm test $(whoami)')).toBe(false);
    const r = rule({ prefix: 'npm test' });
    expect(ruleFor([r], subjectOf(bash('npm test'), who), 0)?.id).toBe('R1');
    expect(ruleFor([r], subjectOf(bash('npm test\nrm -rf /'), who), 0)).toBeUndefined();
    expect(ruleFor([r], subjectOf(bash('npm publish'), who), 0)).toBeUndefined();
  });

  test('a path rule takes a question only when every path lies under its folder', () => {
    expect(pathsUnder('/repo/src', ['/repo/src/a.ts', '/repo/src/b/c.ts'])).toBe(true);
    expect(pathsUnder('/repo/src', ['/repo/src/a.ts', '/repo/other.ts'])).toBe(false);
    expect(pathsUnder('/repo/src', ['/repo/src/../secrets'])).toBe(false);
    expect(pathsUnder('/repo/src', ['/repo/srcx/a.ts'])).toBe(false);
    expect(pathsUnder('/repo/src', ['src/a.ts'])).toBe(false);
    expect(pathsUnder('/repo/src', [])).toBe(false);
    const r = rule({ tool: 'edit', path: '/repo/src' });
    expect(ruleFor([r], subjectOf(edit('/repo/src/a.ts'), who), 0)?.id).toBe('R1');
    expect(ruleFor([r], subjectOf(edit('/repo/README.md'), who), 0)).toBeUndefined();
  });

  test('a scope takes its agent (@name or panel id) or lane only', () => {
    const s = subjectOf(bash('ls'), who);
    expect(ruleFor([rule({ scope: { kind: 'agent', agent: '@x' } })], s, 0)).toBeDefined();
    expect(ruleFor([rule({ scope: { kind: 'agent', agent: '3' } })], s, 0)).toBeDefined();
    expect(ruleFor([rule({ scope: { kind: 'agent', agent: '@y' } })], s, 0)).toBeUndefined();
    expect(ruleFor([rule({ scope: { kind: 'lane', lane: 'fix-a' } })], s, 0)).toBeDefined();
    expect(ruleFor([rule({ scope: { kind: 'lane', lane: 'fix-b' } })], s, 0)).toBeUndefined();
  });

  test('a reject rule wins over an allow rule that also matches', () => {
    const rules = [rule({ id: 'R1', decision: 'reject' }), rule({ id: 'R2' })];
    expect(ruleFor(rules, subjectOf(bash('ls'), who), 0)?.id).toBe('R1');
  });
});

describe('expiry on a clock passed in', () => {
  test('a rule answers until its expiry and not from it on; the note counts the minutes left', () => {
    const r = rule({ id: 'R3', prefix: 'npm test', scope: { kind: 'agent', agent: '@x' }, expiresAt: 30 * MIN });
    const s = subjectOf(bash('npm test'), who);
    expect(ruleNote(r, 18 * MIN)).toBe('R3 (allow Bash `npm test` for @x, 12 min left)');
    expect(ruleFor([r], s, 30 * MIN - 1)?.id).toBe('R3');
    expect(ruleFor([r], s, 30 * MIN)).toBeUndefined();
    expect(minutesLeft(r, 31 * MIN)).toBe(0);
  });
});

describe('a rule refused as asked', () => {
  const known = new Set<string>(['Edit notes.txt']);
  const req = { decision: 'allow' as const, tool: 'Bash', scope: { kind: 'all' as const }, expiresAt: 10 * MIN };
  const refusal = (over: object, now = 0): string => {
    try {
      checkRule({ ...req, ...over }, known, now);
    } catch (err) {
      if (err instanceof RuleError) return err.message;
      throw err;
    }
    return 'accepted';
  };

  test('allowing every tool for every agent needs everything written out', () => {
    expect(refusal({ tool: '*' })).toContain('this rule would allow every tool for every agent');
    expect(refusal({ tool: '*', everything: true })).toBe('accepted');
    expect(refusal({ tool: '*', decision: 'reject' })).toBe('accepted');
    expect(refusal({ tool: '*', scope: { kind: 'agent', agent: '@x' } })).toBe('accepted');
  });

  test('a tool no agent declared or asked for is refused, naming the known ones; one a question named is known', () => {
    expect(refusal({ tool: 'Bsh' })).toMatch(/^no agent has asked for or declared a tool named "Bsh": name one of Bash, .*Edit notes\.txt/);
    expect(refusal({ tool: 'edit notes.txt' })).toBe('accepted');
  });

  test('an expiry in the past or beyond a day says the bound', () => {
    expect(refusal({ expiresAt: 0 }, 1)).toContain('is in the past');
    expect(refusal({ expiresAt: 24 * 60 * MIN + 1 })).toContain('a rule lives at most 24 hours');
    expect(refusal({ expiresAt: 24 * 60 * MIN })).toBe('accepted');
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs('2h')).toBe(120 * MIN);
    expect(durationMs('15')).toBe(15 * MIN);
    expect(durationMs('soon')).toBeUndefined();
  });
});

describe('a saved rule', () => {
  test('reads back as it was written, and a bad field is named', () => {
    const spec = { decision: 'reject' as const, tool: 'Bash', prefix: 'git push', scope: { kind: 'lane' as const, lane: 'fix-a' }, expiresAt: Date.UTC(2026, 11, 5) };
    const fail = (field: string, problem: string): never => {
      throw new Error(`${field} ${problem}`);
    };
    expect(parseSavedRules([ruleJson(spec)], fail)).toEqual([spec]);
    expect(() => parseSavedRules([{ ...ruleJson(spec), expires_at: 'soon' }], fail)).toThrow('rules[0].expires_at must be an ISO time');
  });
});
