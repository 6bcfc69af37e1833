/** The question queue as pure data: one open question per agent, the flood bound, answers and why a late one is refused. */
import { describe, expect, test } from 'vitest';
import {
  answerQuestion,
  askQuestion,
  closePanel,
  dueQuestions,
  EMPTY_QUEUE,
  openQuestion,
  QUESTIONS_PER_AGENT_MAX,
  type QuestionAsk,
  type QuestionQueue,
} from '../../../src/core/agents/questions.js';
import { watchdog } from '../../../src/core/panel/panel-state.js';
import { ORCH_IDLE_KILL } from '../../../src/core/policy.js';

const ASK: QuestionAsk = {
  tool: 'Edit a.txt',
  toolKind: 'edit',
  detail: [],
  options: [
    { id: 'ok', name: 'Allow', kind: 'allow_once' },
    { id: 'always', name: 'Always', kind: 'allow_always' },
    { id: 'no', name: 'Reject', kind: 'reject_once' },
  ],
};

const added = (q: QuestionQueue, panel: number, now = 0, ask: QuestionAsk = ASK) => {
  const r = askQuestion(q, panel, ask, now);
  if (r.type !== 'added') throw new Error('flood');
  return r;
};

describe('the question queue', () => {
  test('opens the first question of an agent and queues the next behind it', () => {
    const a = added(EMPTY_QUEUE, 1);
    const b = added(a.queue, 1);
    const c = added(b.queue, 2);
    expect([a.opened, b.opened, c.opened]).toEqual([true, false, true]);
    expect(openQuestion(c.queue, 1)?.qid).toBe('q1');
    expect(() => answerQuestion(c.queue, 'q2', '1', 'key', 5)).toThrow('question q2 is queued behind q1: answer that one first');
    const answered = answerQuestion(c.queue, 'q1', 'y', 'key', 5);
    expect(answered.option.id).toBe('ok');
    expect(answered.opened).toMatchObject({ qid: 'q2', openedAt: 5 });
  });

  test('names the option by id, number, y or n, and refuses one not offered with the list', () => {
    const { queue } = added(EMPTY_QUEUE, 1);
    expect(answerQuestion(queue, 'q1', 'always', 'key', 0).option.id).toBe('always');
    expect(answerQuestion(queue, 'q1', '3', 'key', 0).option.id).toBe('no');
    expect(answerQuestion(queue, 'q1', 'n', 'key', 0).option.id).toBe('no');
    expect(() => answerQuestion(queue, 'q1', 'maybe', 'key', 0)).toThrow(
      'question q1 has no option "maybe": its options are 1 ok (Allow), 2 always (Always), 3 no (Reject)',
    );
    expect(() => answerQuestion(queue, 'q1', '4', 'key', 0)).toThrow('has no option "4"');
  });

  test('refuses a second answer, and one whose agent is gone, saying why', () => {
    const { queue } = added(EMPTY_QUEUE, 1);
    const once = answerQuestion(queue, 'q1', '1', 'key', 0).queue;
    expect(() => answerQuestion(once, 'q1', '1', 'key', 0)).toThrow('question q1 was already answered (Allow, by key)');
    const gone = closePanel(added(once, 1).queue, 1, 'is gone: its agent ended (done)');
    expect(gone.removed.map((q) => q.qid)).toEqual(['q2']);
    expect(() => answerQuestion(gone.queue, 'q2', '1', 'key', 0)).toThrow('question q2 is gone: its agent ended (done)');
    expect(() => answerQuestion(gone.queue, 'q9', '1', 'key', 0)).toThrow('no such question: q9');
  });

  test(`holds at most ${QUESTIONS_PER_AGENT_MAX} questions of one agent and counts the flood past it`, () => {
    let q = EMPTY_QUEUE;
    for (let i = 0; i < QUESTIONS_PER_AGENT_MAX; i++) q = added(q, 1).queue;
    const flood = askQuestion(q, 1, ASK, 0);
    expect(flood).toMatchObject({ type: 'flood', refused: 1 });
    expect(askQuestion(flood.queue, 1, ASK, 0)).toMatchObject({ type: 'flood', refused: 2 });
    expect(askQuestion(flood.queue, 2, ASK, 0).type).toBe('added');
  });

  test('a question with a timeout is due that long after it opened, not after it was asked', () => {
    const timed = { ...ASK, timeoutMs: 30_000, defaultAnswer: 'reject' as const };
    const a = added(EMPTY_QUEUE, 1, 0, timed);
    const b = added(a.queue, 1, 10_000, timed);
    expect(dueQuestions(b.queue, 29_999)).toEqual([]);
    expect(dueQuestions(b.queue, 30_000).map((q) => q.qid)).toEqual(['q1']);
    const next = answerQuestion(b.queue, 'q1', '3', 'default', 30_000).queue;
    expect(dueQuestions(next, 59_999)).toEqual([]);
    expect(dueQuestions(next, 60_000).map((q) => q.qid)).toEqual(['q2']);
  });
});

describe('the watchdog while asking', () => {
  test('pauses the heartbeat but keeps the wall clock running', () => {
    const panel = { state: 'asking' as const, startedAt: 0, lastEventAt: 0, deadline: 600_000, timeoutMs: 600_000 };
    expect(watchdog(panel, ORCH_IDLE_KILL + 1)).toEqual([]);
    expect(watchdog(panel, 600_000)).toEqual([{ type: 'soft_stop', cause: 'wall_clock', reason: 'time limit reached (600s)' }]);
  });
});
