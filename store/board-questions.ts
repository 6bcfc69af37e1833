/**
 * The board's questions (issue: approvals): the pure queue
 * (src/core/agents/questions.ts) and the replies that go back to the agents,
 * applied to the records. A question opening puts its panel in `asking`
 * (header `waiting for you`, the heartbeat paused: panel-state.ts) and its
 * block in the panel's output; its answer goes back at once, the panel notes
 * it, and the heartbeat starts again from the answer.
 *
 * Vocabulary:
 * - reply: the runner's callback for one question; called exactly once (an
 *   answer, a default after its timeout, or `cancelled` when its agent stops
 *   or is gone).
 * - asked listener: told when a question opens (a notification rings once
 *   per question: src/io/cockpit/notifier.ts).
 */
import { answeredRow, questionRows } from '../src/core/agents/question-block.js';
import {
  answerQuestion,
  agentsAsking,
  askQuestion,
  closePanel,
  closeQuestion,
  defaultOption,
  dueQuestions,
  EMPTY_QUEUE,
  openQuestion,
  QUESTIONS_PER_AGENT_MAX,
  queuedBehind,
  type Question,
  type QuestionAnswer,
  type QuestionAsk,
  type AnsweredQuestion,
  type AskedListener,
  type QuestionRow,
} from '../src/core/agents/questions.js';
import { messageOf } from '../src/core/errors.js';
import { isLive } from '../src/core/panel/panel-state.js';
import { maskSecrets } from '../src/core/text/secrets.js';
import type { PanelRecord } from './panel-record.js';

/** The parts of the board the questions act on. */
export interface QuestionHost {
  record(id: number): PanelRecord | undefined;
  queue(rec: PanelRecord, data: string): void;
  log(line: string): void;
}

/** The board's questions and their replies. */
export class BoardQuestions {
  #queue = EMPTY_QUEUE;
  readonly #replies = new Map<string, (answer: QuestionAnswer) => void>();
  readonly #asked = new Set<AskedListener>();
  readonly #host: QuestionHost;

  constructor(host: QuestionHost) {
    this.#host = host;
  }

  /** Agents with an open question. */
  get asking(): number {
    return agentsAsking(this.#queue);
  }

  /** Asks the user; the reply is called once. Undefined (and `cancelled` at once) when the panel has no live agent. */
  ask(id: number, ask: QuestionAsk, now: number, reply: (answer: QuestionAnswer) => void): string | undefined {
    const rec = this.#host.record(id);
    if (!rec || rec.kind !== 'agent' || !isLive(rec.state) || rec.stop) {
      this.#call(reply, { outcome: 'cancelled', why: rec?.stop ? 'the agent is stopping' : 'the agent is gone' });
      return undefined;
    }
    // The detail is the agent's arguments or diff: masked like a tool's arguments (docs/security.md).
    const shown: QuestionAsk = { ...ask, tool: maskSecrets(ask.tool), detail: ask.detail.map((d) => ({ ...d, text: maskSecrets(d.text) })) };
    const asked = askQuestion(this.#queue, id, shown, now);
    this.#queue = asked.queue;
    if (asked.type === 'flood') {
      // A flooding agent: refused, and said so once per ten refusals so the panel is not flooded too.
      if (asked.refused === 1 || asked.refused % 10 === 0) {
        this.#note(rec, `question flood: ${QUESTIONS_PER_AGENT_MAX} questions wait already; ${asked.refused} refused`);
      }
      const reject = ask.options.find((o) => o.kind === 'reject_once') ?? ask.options.find((o) => o.kind === 'reject_always');
      this.#call(reply, reject ? { outcome: 'selected', option: reject, by: 'flood' } : { outcome: 'cancelled', why: 'question flood' });
      return undefined;
    }
    this.#replies.set(asked.question.qid, reply);
    if (asked.opened) this.#opened(rec, asked.question);
    else this.#note(rec, `question ${asked.question.qid} (${ask.tool}) queued behind ${openQuestion(this.#queue, id)?.qid ?? 'the open one'}`);
    return asked.question.qid;
  }

  /** Answers an open question with the option `key` names; throws QuestionError naming why it cannot. */
  answer(qid: string, key: string, by: string, now: number): AnsweredQuestion {
    const closed = answerQuestion(this.#queue, qid, key, by, now);
    this.#queue = closed.queue;
    const { question, option } = closed;
    this.#reply(question, { outcome: 'selected', option, by });
    const rec = this.#host.record(question.panel);
    if (rec) {
      this.#host.queue(rec, rec.formatter?.rows([answeredRow(qid, `${option.name} (${by})`, rec.cols - 1)]) ?? '');
      rec.lastEventAt = now; // the heartbeat starts again from the answer
      if (closed.opened) this.#opened(rec, closed.opened);
      else if (rec.state === 'asking') rec.state = 'running';
    }
    return { qid, panel: question.panel, option };
  }

  /** Every question of a panel closed: answered `cancelled` (a stop) or removed (the agent gone). */
  closePanel(id: number, why: string): void {
    const { queue, removed } = closePanel(this.#queue, id, why);
    this.#queue = queue;
    for (const question of removed) this.#reply(question, { outcome: 'cancelled', why });
    const rec = this.#host.record(id);
    if (rec && rec.state === 'asking') rec.state = 'running';
  }

  /** Open questions whose default answer is due get it (or `cancelled` when no such option exists). */
  tick(now: number): boolean {
    const due = dueQuestions(this.#queue, now);
    for (const question of due) {
      const answer = question.defaultAnswer ?? 'reject';
      const option = defaultOption(question, answer);
      const secs = Math.round((question.timeoutMs ?? 0) / 1000);
      if (option) {
        this.answer(question.qid, option.id, `default after ${secs}s`, now);
        continue;
      }
      const closed = closeQuestion(this.#queue, question, `timed out after ${secs}s`, now);
      this.#queue = closed.queue;
      this.#reply(question, { outcome: 'cancelled', why: `no ${answer} option after ${secs}s` });
      const rec = this.#host.record(question.panel);
      if (rec && closed.opened) this.#opened(rec, closed.opened);
      else if (rec && rec.state === 'asking') rec.state = 'running';
    }
    return due.length > 0;
  }

  /** The open question of a panel (what its number keys answer). */
  openOf(id: number): Question | undefined {
    return openQuestion(this.#queue, id);
  }

  /** Every question waiting, oldest first, as `tai ask` lists them. */
  list(now: number): QuestionRow[] {
    return this.#queue.questions.map((q) => ({
      qid: q.qid,
      panel: q.panel,
      label: this.#host.record(q.panel)?.label ?? '',
      tool: q.tool,
      ...(q.toolKind === undefined ? {} : { toolKind: q.toolKind }),
      options: q.options,
      askedAt: q.askedAt,
      waitedMs: now - q.askedAt,
      open: q.openedAt !== undefined,
      flooded: this.#queue.flooded.get(q.panel) ?? 0,
    }));
  }

  /** Calls `listener` whenever a question opens, until the returned function is called. */
  onAsked(listener: AskedListener): () => void {
    this.#asked.add(listener);
    return () => this.#asked.delete(listener);
  }

  #opened(rec: PanelRecord, question: Question): void {
    if (rec.state !== 'waiting') rec.state = 'asking';
    this.#show(rec, question);
    for (const listener of this.#asked) {
      try {
        listener(question, rec.label);
      } catch (err) {
        this.#host.log(`question listener failed: ${messageOf(err)}`);
      }
    }
  }

  #show(rec: PanelRecord, question: Question | undefined): void {
    if (!question || !rec.formatter) return;
    const queued = queuedBehind(this.#queue, rec.id);
    this.#host.queue(rec, rec.formatter.rows(questionRows(question, rec.cols - 1, rec.rows, queued)));
  }

  #note(rec: PanelRecord, text: string): void {
    this.#host.queue(rec, rec.formatter?.event({ type: 'note', text }) ?? '');
  }

  #reply(question: Question, answer: QuestionAnswer): void {
    const reply = this.#replies.get(question.qid);
    this.#replies.delete(question.qid);
    if (reply) this.#call(reply, answer);
  }

  #call(reply: (answer: QuestionAnswer) => void, answer: QuestionAnswer): void {
    try {
      reply(answer);
    } catch (err) {
      this.#host.log(`question reply failed: ${messageOf(err)}`);
    }
  }
}
