/**
 * The board's questions (docs/agents.md, "The inbox"): the pure queue
 * (src/core/agents/questions.ts) and the replies that go back to the agents,
 * applied to the records. An open question puts its panel in `asking` (the heartbeat paused); each reply is
 * called exactly once (an answer, a default after its timeout, or `cancelled`), and the heartbeat starts again.
 */
import {
  answerQuestion,
  agentsAsking,
  askQuestion,
  closePanel,
  closeQuestion,
  defaultOption,
  dueQuestions,
  EMPTY_QUEUE,
  numberQuestion,
  openQuestion,
  QUESTIONS_PER_AGENT_MAX,
  queuedBehind,
  type Question,
  type QuestionAnswer,
  type QuestionAsk,
  type AnsweredQuestion,
  type AskedListener,
  type BatchAnswered,
  type QuestionOption,
  type QuestionRow,
  QuestionError,
} from '../src/core/agents/questions.js';
import type { RuleRequest } from '../src/core/inbox/rule-input.js';
import { ANY_TOOL, matches, ruleNote, ruleOption, ruleRow, RULE_KEY_MINUTES, type BatchFilter, type RuleAdded, type RuleDecision, type RuleScope } from '../src/core/inbox/rules.js';
import { ruleToolOf, subjectOf, type Subject } from '../src/core/inbox/subject.js';
import { messageOf } from '../src/core/errors.js';
import { isLive } from '../src/core/panel/panel-state.js';
import { maskSecrets } from '../src/core/text/secrets.js';
import { BoardInbox } from './board-inbox.js';
import type { PanelRecord } from './panel-record.js';
import { QuestionDisplay, type QuestionSink } from './question-display.js';

/** The parts of the board the questions act on. */
export interface QuestionHost extends QuestionSink {
  record(id: number): PanelRecord | undefined;
}

/** The board's questions and their replies. */
export class BoardQuestions {
  #queue = EMPTY_QUEUE;
  readonly #replies = new Map<string, (answer: QuestionAnswer) => void>();
  readonly #host: QuestionHost;
  /** The rules and the audit log's listeners. */
  readonly inbox: BoardInbox;
  readonly #display: QuestionDisplay;

  constructor(host: QuestionHost) {
    this.#host = host;
    this.inbox = new BoardInbox((line) => host.log(line));
    this.#display = new QuestionDisplay(host, this.inbox);
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
    const subject = this.#subject(rec, shown);
    this.inbox.seen(subject);
    const rule = this.inbox.ruleFor(subject, now);
    const byRule = rule === undefined ? undefined : ruleOption(rule.decision, ask.options);
    if (rule && byRule) {
      // Answered at once: never queued, its id kept so a late answer is told.
      const numbered = numberQuestion(this.#queue, `was already answered (${byRule.name}, by rule ${rule.id})`);
      this.#queue = numbered.queue;
      const note = ruleNote(rule, now);
      this.#display.audit(rec, numbered.qid, shown, 'asked', now);
      this.#display.audit(rec, numbered.qid, shown, 'answered', now, { option: byRule, by: `rule ${rule.id}`, rule: rule.id });
      this.#display.answeredByRule(rec, numbered.qid, shown.tool, note, byRule.name);
      this.#call(reply, { outcome: 'selected', option: byRule, by: `rule ${rule.id}` });
      return undefined;
    }
    const asked = askQuestion(this.#queue, id, shown, now);
    this.#queue = asked.queue;
    if (asked.type === 'added') this.#display.audit(rec, asked.question.qid, shown, 'asked', now);
    if (asked.type === 'flood') {
      // A flooding agent: refused, and said so once per ten refusals so the panel is not flooded too.
      if (asked.refused === 1 || asked.refused % 10 === 0) {
        this.#display.note(rec, `question flood: ${QUESTIONS_PER_AGENT_MAX} questions wait already; ${asked.refused} refused`);
      }
      const reject = ask.options.find((o) => o.kind === 'reject_once') ?? ask.options.find((o) => o.kind === 'reject_always');
      this.#display.audit(rec, 'flood', shown, reject ? 'answered' : 'cancelled', now, reject ? { option: reject, by: 'flood' } : { why: 'question flood' });
      this.#call(reply, reject ? { outcome: 'selected', option: reject, by: 'flood' } : { outcome: 'cancelled', why: 'question flood' });
      return undefined;
    }
    this.#replies.set(asked.question.qid, reply);
    if (asked.opened) this.#opened(rec, asked.question);
    else this.#display.note(rec, `question ${asked.question.qid} (${ask.tool}) queued behind ${openQuestion(this.#queue, id)?.qid ?? 'the open one'}`);
    return asked.question.qid;
  }

  /** Answers an open question with the option `key` names; throws QuestionError naming why it cannot. */
  answer(qid: string, key: string, by: string, now: number): AnsweredQuestion {
    const closed = answerQuestion(this.#queue, qid, key, by, now);
    this.#queue = closed.queue;
    return this.#answered(closed.question, closed.option, by, now, closed.opened);
  }

  /** Closes a waiting question (open or queued) with `option`: the reply, the panel's note, the audit entry. */
  #answered(question: Question, option: QuestionOption, by: string, now: number, opened?: Question, rule?: string): AnsweredQuestion {
    if (opened === undefined && this.#queue.questions.includes(question)) {
      const closed = closeQuestion(this.#queue, question, `was already answered (${option.name}, by ${by})`, now);
      this.#queue = closed.queue;
      opened = closed.opened;
    }
    this.#reply(question, { outcome: 'selected', option, by });
    const rec = this.#host.record(question.panel);
    if (rec) {
      this.#display.audit(rec, question.qid, question, 'answered', now, { option, by, ...(rule === undefined ? {} : { rule }) });
      this.#display.answered(rec, question.qid, `${option.name} (${by})`);
      rec.lastEventAt = now; // the heartbeat starts again from the answer
      if (opened) this.#opened(rec, opened);
      else if (rec.state === 'asking' && openQuestion(this.#queue, rec.id) === undefined) rec.state = 'running';
    }
    return { qid: question.qid, panel: question.panel, option };
  }

  /**
   * Holds a new rule (throws RuleError naming what is wrong) and answers at once every waiting question it
   * covers; `saved` marks one also written to the registry.
   */
  addRule(req: RuleRequest, saved: boolean, now: number): RuleAdded {
    const rule = this.inbox.add(req, saved, now);
    let answered = 0;
    // By id: answering one opens the next of its panel as a new object.
    for (const qid of this.#queue.questions.map((q) => q.qid)) {
      const question = this.#queue.questions.find((q) => q.qid === qid);
      const rec = question && this.#host.record(question.panel);
      const option = question && ruleOption(rule.decision, question.options);
      if (!question || !rec || !option || !matches(rule, this.#subject(rec, question))) continue;
      this.#answered(question, option, `rule ${rule.id}`, now, undefined, rule.id);
      answered++;
    }
    return { rule: ruleRow(rule, now), answered };
  }

  /** A rule from the panel key on panel `id`'s open question: its tool, for its agent, RULE_KEY_MINUTES. */
  ruleFromKey(id: number, decision: RuleDecision, now: number): RuleAdded {
    const question = openQuestion(this.#queue, id);
    const rec = this.#host.record(id);
    if (!question || !rec) throw new QuestionError(`panel ${id} has no open question`);
    const subject = this.#subject(rec, question);
    const scope: RuleScope = { kind: 'agent', agent: subject.agent === undefined ? String(id) : subject.agent };
    return this.addRule({ decision, tool: ruleToolOf(question), scope, expiresAt: now + RULE_KEY_MINUTES * 60_000 }, false, now);
  }

  /**
   * Answers every open question the filter takes, and each that opens behind one, with the option `key` names;
   * one without such an option is skipped, with why.
   */
  answerAll(filter: BatchFilter, key: string, by: string, now: number): BatchAnswered {
    const scope: RuleScope = filter.agent === undefined ? { kind: 'all' } : { kind: 'agent', agent: filter.agent };
    const spec = { decision: 'allow' as const, tool: filter.tool ?? ANY_TOOL, scope, expiresAt: Infinity };
    const answered: AnsweredQuestion[] = [];
    const skipped: { qid: string; why: string }[] = [];
    const tried = new Set<string>();
    for (;;) {
      const next = this.#queue.questions.find((q) => {
        const rec = this.#host.record(q.panel);
        return q.openedAt !== undefined && !tried.has(q.qid) && rec !== undefined && matches(spec, this.#subject(rec, q));
      });
      if (!next) break;
      tried.add(next.qid);
      try {
        answered.push(this.answer(next.qid, key, by, now));
      } catch (err) {
        if (!(err instanceof QuestionError)) throw err;
        skipped.push({ qid: next.qid, why: err.message });
      }
    }
    return { answered, skipped };
  }

  /** Every question of a panel closed: answered `cancelled` (a stop) or removed (the agent gone). */
  closePanel(id: number, why: string, now?: number): void {
    const { queue, removed } = closePanel(this.#queue, id, why);
    this.#queue = queue;
    const rec = this.#host.record(id);
    for (const question of removed) {
      if (rec) this.#display.audit(rec, question.qid, question, 'cancelled', now ?? rec.lastEventAt, { why });
      this.#reply(question, { outcome: 'cancelled', why });
    }
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
      if (rec) this.#display.audit(rec, question.qid, question, 'cancelled', now, { why: `no ${answer} option after ${secs}s` });
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
    return this.#display.onAsked(listener);
  }

  #subject(rec: PanelRecord, ask: QuestionAsk): Subject {
    return subjectOf(ask, { panel: rec.id, label: rec.label, ...(rec.tag === undefined ? {} : { tag: rec.tag }) });
  }

  #opened(rec: PanelRecord, question: Question): void {
    if (rec.state !== 'waiting') rec.state = 'asking';
    this.#display.opened(rec, question, queuedBehind(this.#queue, rec.id));
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

