/** The board's inbox on a clock passed in: rules answering as questions are asked, until they expire; the audit entries of every way a question ends. */
import { describe, expect, test } from 'vitest';
import type { QuestionAnswer, QuestionAsk } from '../../src/core/agents/questions.js';
import type { AuditEntry } from '../../src/core/inbox/audit.js';
import { createBoard } from '../../store/board.js';
import { dispatch } from '../../store/dispatch.js';

const ASK: QuestionAsk = {
  tool: 'Bash',
  detail: [{ text: 'command: npm test --token=abcdefghijklmnopqrstuvwxyz', tone: 'plain' }],
  options: [{ id: 'ok', name: 'Allow', kind: 'allow_once' }, { id: 'no', name: 'Reject', kind: 'reject_once' }],
};
const MIN = 60_000;

function rig() {
  const board = createBoard();
  const id = board.getState().open({ label: '@x fix' }, 0);
  const log: AuditEntry[] = [];
  board.getState().onAudit((e) => log.push(e));
  const got: QuestionAnswer[] = [];
  const ask = (at: number, ask: QuestionAsk = ASK) => board.getState().ask(id, ask, at, (a) => got.push(a));
  return { board, id, log, got, ask };
}

describe('rules on the board', () => {
  test('a rule answers a question asked before its expiry and none from its expiry on', () => {
    const r = rig();
    r.board.getState().addRule({ decision: 'allow', tool: 'Bash', prefix: 'npm test', scope: { kind: 'agent', agent: '@x' }, expiresAt: MIN }, false, 0);
    expect(r.ask(MIN - 1)).toBeUndefined();
    expect(r.got).toEqual([{ outcome: 'selected', option: ASK.options[0], by: 'rule R1' }]);
    expect(r.ask(MIN)).toBe('q2');
    expect(r.got).toHaveLength(1);
    expect(r.board.getState().rules(MIN)).toEqual([]);
    expect(() => r.board.getState().dropRule('R1', MIN)).toThrow('no such rule: R1 (no rule is held; an expired rule is gone already)');
  });

  test('a reject rule made from the key answers the open question and the queued one of the same tool, not one of another', () => {
    const r = rig();
    r.ask(0);
    r.ask(0);
    r.ask(0, { ...ASK, tool: 'Edit a.txt', toolKind: 'edit' });
    const added = r.board.getState().ruleFromKey(r.id, 'reject', 1_000);
    expect(added.answered).toBe(2);
    expect(added.rule.text).toBe('reject Bash for @x');
    expect(r.got.map((a) => (a.outcome === 'selected' ? a.by : a.why))).toEqual(['rule R1', 'rule R1']);
    expect(r.board.getState().questions(1_000).map((q) => [q.qid, q.open])).toEqual([['q3', true]]);
  });
});

describe('the audit entries', () => {
  test('say who answered (key, default, flood) and why one was cancelled, with the time and the arguments masked', () => {
    const r = rig();
    const q1 = r.ask(1_000) ?? '';
    r.board.getState().answer(q1, 'y', 'key', 2_000);
    r.ask(3_000, { ...ASK, timeoutMs: 30_000, defaultAnswer: 'reject' });
    r.board.getState().tick(33_000);
    r.ask(40_000);
    r.board.getState().cancel(r.id, 'enough', 50_000);
    expect(r.log.map((e) => [e.at, e.qid, e.event, e.by ?? e.why ?? ''])).toEqual([
      [1_000, 'q1', 'asked', ''],
      [2_000, 'q1', 'answered', 'key'],
      [3_000, 'q2', 'asked', ''],
      [33_000, 'q2', 'answered', 'default after 30s'],
      [40_000, 'q3', 'asked', ''],
      [50_000, 'q3', 'cancelled', 'was cancelled: its agent was stopped (enough)'],
    ]);
    expect(r.log[0]?.args).toBe('command: npm test --token=[hidden]');
  });
});

describe('the socket door', () => {
  test('an answer by the MCP lead is logged as the lead', async () => {
    const r = rig();
    const qid = r.ask(1_000) ?? '';
    expect(await dispatch({ cmd: 'ask_answer', qid, option: 'n', by: 'lead' }, { board: r.board, now: 2_000 })).toMatchObject({ ok: true });
    expect(r.log.at(-1)).toMatchObject({ qid, event: 'answered', by: 'lead', option: 'Reject (no)' });
  });
});
