/**
 * The question queue: every permission an agent asks for, waiting for the
 * user (docs/agents.md, "The inbox"). Pure data and functions of (queue, now); the board
 * holds one queue and the replies. One question an agent is open in its panel, the rest queued up to
 * QUESTIONS_PER_AGENT_MAX (a flood is refused); closed ids are remembered (CLOSED_KEEP) so a late answer is told why.
 */
import { RequestError } from '../errors.js';

/** What an agent's permission request gets: asked of the user, or answered at once. */
export const PERMISSION_POLICIES = ['ask', 'allow', 'reject'] as const;
export type PermissionPolicy = (typeof PERMISSION_POLICIES)[number];

/** The answers a question may default to after its timeout. */
export const DEFAULT_ANSWERS = ['allow', 'reject'] as const;
export type DefaultAnswer = (typeof DEFAULT_ANSWERS)[number];

/** Questions one agent may have waiting (one open, the rest queued); a flood past it is refused. */
export const QUESTIONS_PER_AGENT_MAX = 16;

/** Closed question ids remembered to explain a late answer. */
export const CLOSED_KEEP = 256;

/** The kinds of option ACP names (Claude's are mapped onto them). */
export type OptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/** One option an agent offers. */
export interface QuestionOption {
  readonly id: string;
  readonly name: string;
  readonly kind: OptionKind;
}

/** One line of what the tool would do: plain arguments, or a diff's added, removed or context line. */
export interface DetailLine {
  readonly text: string;
  readonly tone: 'plain' | 'add' | 'del' | 'meta';
}

/** What a runner asks. */
export interface QuestionAsk {
  /** The tool's title (`Edit README.md`, `Bash`). */
  readonly tool: string;
  /** The tool's kind (`edit`, `execute`, ...), when the agent says it. */
  readonly toolKind?: string;
  readonly detail: readonly DetailLine[];
  readonly options: readonly QuestionOption[];
  /** Answer `defaultAnswer` this long after the question opens. */
  readonly timeoutMs?: number;
  readonly defaultAnswer?: DefaultAnswer;
}

/** A question in the queue. */
export interface Question extends QuestionAsk {
  readonly qid: string;
  readonly panel: number;
  readonly askedAt: number;
  /** When it became the agent's open question; undefined while queued. */
  readonly openedAt?: number;
}

/** How a question was answered: an option, or cancelled (a stop, the agent gone). */
export type QuestionAnswer =
  | { readonly outcome: 'selected'; readonly option: QuestionOption; readonly by: string }
  | { readonly outcome: 'cancelled'; readonly why: string };

/** A refused answer (already answered, gone, an option not offered); the message names why. */
export class QuestionError extends RequestError {}

/** The queue: questions in the order asked, the refused flood per panel, closed ids. */
export interface QuestionQueue {
  readonly questions: readonly Question[];
  readonly flooded: ReadonlyMap<number, number>;
  readonly closed: ReadonlyMap<string, string>;
  readonly next: number;
}

/** An empty queue. */
export const EMPTY_QUEUE: QuestionQueue = { questions: [], flooded: new Map(), closed: new Map(), next: 1 };

/** A question added: `opened` when it is the panel's open one now, `flood` when refused (nothing added). */
export type Asked =
  | { readonly type: 'added'; readonly queue: QuestionQueue; readonly question: Question; readonly opened: boolean }
  | { readonly type: 'flood'; readonly queue: QuestionQueue; readonly refused: number };

/** Adds a question of `panel` asked at `now`. */
export function askQuestion(queue: QuestionQueue, panel: number, ask: QuestionAsk, now: number): Asked {
  const mine = queue.questions.filter((q) => q.panel === panel);
  if (mine.length >= QUESTIONS_PER_AGENT_MAX) {
    const refused = (queue.flooded.get(panel) ?? 0) + 1;
    return { type: 'flood', queue: { ...queue, flooded: new Map(queue.flooded).set(panel, refused) }, refused };
  }
  const opened = mine.length === 0;
  const question: Question = { ...ask, qid: `q${queue.next}`, panel, askedAt: now, ...(opened ? { openedAt: now } : {}) };
  return { type: 'added', queue: { ...queue, questions: [...queue.questions, question], next: queue.next + 1 }, question, opened };
}

/** The open question of a panel, if any. */
export function openQuestion(queue: QuestionQueue, panel: number): Question | undefined {
  return queue.questions.find((q) => q.panel === panel);
}

/** How many of a panel's questions wait behind its open one. */
export function queuedBehind(queue: QuestionQueue, panel: number): number {
  return Math.max(0, queue.questions.filter((q) => q.panel === panel).length - 1);
}

/** The agents with an open question (the status line's "waiting for you" count). */
export function agentsAsking(queue: QuestionQueue): number {
  return new Set(queue.questions.map((q) => q.panel)).size;
}

/**
 * The option `key` names in `question`: its id, its number (1-based, as
 * shown), or `y` / `n` for the first allow / reject option.
 */
export function optionOf(question: Question, key: string): QuestionOption {
  const k = key.trim();
  const byId = question.options.find((o) => o.id === k);
  if (byId) return byId;
  if (/^\d{1,3}$/.test(k)) {
    const n = Number(k);
    const o = question.options[n - 1];
    if (o) return o;
  }
  if (k === 'y' || k === 'n') {
    const o = question.options.find((opt) => opt.kind.startsWith(k === 'y' ? 'allow' : 'reject'));
    if (o) return o;
  }
  const list = question.options.map((o, i) => `${i + 1} ${o.id} (${o.name})`).join(', ');
  throw new QuestionError(`question ${question.qid} has no option ${JSON.stringify(k)}: its options are ${list}`);
}

/** A question taken out of the queue: its closing remembered, the panel's next question opened at `now`. */
export interface Closed {
  readonly queue: QuestionQueue;
  readonly question: Question;
  /** The panel's question opened in its place, if one was queued. */
  readonly opened?: Question;
}

/** Answers question `qid` with the option `key` names; throws QuestionError naming why it cannot be. */
export function answerQuestion(queue: QuestionQueue, qid: string, key: string, by: string, now: number): Closed & { readonly option: QuestionOption } {
  const question = queue.questions.find((q) => q.qid === qid);
  if (!question) {
    const why = queue.closed.get(qid);
    throw new QuestionError(why === undefined ? `no such question: ${qid}` : `question ${qid} ${why}`);
  }
  if (question.openedAt === undefined) {
    throw new QuestionError(`question ${qid} is queued behind ${openQuestion(queue, question.panel)?.qid ?? 'another'}: answer that one first`);
  }
  const option = optionOf(question, key);
  return { ...closeQuestion(queue, question, `was already answered (${option.name}, by ${by})`, now), option };
}

/** Takes `question` out; `why` completes "question qN ..." for a late answer. */
export function closeQuestion(queue: QuestionQueue, question: Question, why: string, now: number): Closed {
  const closed = new Map(queue.closed).set(question.qid, why);
  for (const old of closed.keys()) {
    if (closed.size <= CLOSED_KEEP) break;
    closed.delete(old);
  }
  let opened: Question | undefined;
  const questions = queue.questions
    .filter((q) => q !== question)
    .map((q) => {
      if (opened || q.panel !== question.panel || question.openedAt === undefined) return q;
      opened = { ...q, openedAt: now };
      return opened;
    });
  return { queue: { ...queue, questions, closed }, question, ...(opened ? { opened } : {}) };
}

/** A question answered before it was queued (by a rule): its id, remembered closed with `why`. */
export function numberQuestion(queue: QuestionQueue, why: string): { readonly queue: QuestionQueue; readonly qid: string } {
  const qid = `q${queue.next}`;
  const closed = new Map(queue.closed).set(qid, why);
  for (const old of closed.keys()) {
    if (closed.size <= CLOSED_KEEP) break;
    closed.delete(old);
  }
  return { queue: { ...queue, closed, next: queue.next + 1 }, qid };
}

/** Every question of `panel` taken out (its agent stopped or gone), each closed with `why`. */
export function closePanel(queue: QuestionQueue, panel: number, why: string): { readonly queue: QuestionQueue; readonly removed: readonly Question[] } {
  const removed = queue.questions.filter((q) => q.panel === panel);
  let q = queue;
  for (const question of removed) q = closeQuestion(q, question, why, 0).queue;
  const flooded = new Map(q.flooded);
  flooded.delete(panel);
  return { queue: { ...q, flooded }, removed };
}

/** The open questions whose default answer is due at `now`. */
export function dueQuestions(queue: QuestionQueue, now: number): Question[] {
  return queue.questions.filter((q) => q.openedAt !== undefined && q.timeoutMs !== undefined && now >= q.openedAt + q.timeoutMs);
}

/** The option a default answer picks: the first allow (or reject) option, once before always. */
export function defaultOption(question: Question, answer: DefaultAnswer): QuestionOption | undefined {
  const once = question.options.find((o) => o.kind === `${answer}_once`);
  return once ?? question.options.find((o) => o.kind === `${answer}_always`);
}

/** A question as `tai ask` lists it. */
export interface QuestionRow {
  readonly qid: string;
  readonly panel: number;
  readonly label: string;
  readonly tool: string;
  readonly toolKind?: string;
  readonly options: readonly QuestionOption[];
  readonly askedAt: number;
  readonly waitedMs: number;
  /** Open (answerable now) or queued behind the agent's open question. */
  readonly open: boolean;
  /** Questions of this agent refused as a flood so far. */
  readonly flooded: number;
}

/** What answering a question reports. */
export interface AnsweredQuestion {
  readonly qid: string;
  readonly panel: number;
  readonly option: QuestionOption;
}

/** What a batch answer (`tai ask answer --all-matching`, the agent list's key) reports. */
export interface BatchAnswered {
  readonly answered: readonly AnsweredQuestion[];
  /** Questions that matched but could not take the option, each with why. */
  readonly skipped: readonly { readonly qid: string; readonly why: string }[];
}

/** Told when a question opens, with the label of its panel. */
export type AskedListener = (question: Question, label: string) => void;
