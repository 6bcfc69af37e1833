/**
 * What the user sees and the audit log keeps of the board's questions: a question's block in its panel, a note when
 * it is answered or refused, the listeners told when one opens (src/io/cockpit/notifier.ts rings once a question),
 * and each audit entry (store/board-inbox.ts).
 */
import { answeredRow, questionRows, ruleAnsweredRow } from '../src/core/agents/question-block.js';
import type { AskedListener, Question, QuestionAsk, QuestionOption } from '../src/core/agents/questions.js';
import { argsLine, type AuditEntry } from '../src/core/inbox/audit.js';
import { messageOf } from '../src/core/errors.js';
import { maskSecrets } from '../src/core/text/secrets.js';
import type { BoardInbox } from './board-inbox.js';
import type { PanelRecord } from './panel-record.js';

/** Where the display writes: a panel's output queue and the board's log. */
export interface QuestionSink {
  queue(rec: PanelRecord, data: string): void;
  log(line: string): void;
}

/** What an audit entry adds to the question it is about. */
export interface AuditMore {
  readonly option?: QuestionOption;
  readonly by?: string;
  readonly rule?: string;
  readonly why?: string;
}

/** The questions' blocks and notes in their panels, their listeners and their audit entries. */
export class QuestionDisplay {
  readonly #asked = new Set<AskedListener>();
  readonly #sink: QuestionSink;
  readonly #inbox: BoardInbox;

  constructor(sink: QuestionSink, inbox: BoardInbox) {
    this.#sink = sink;
    this.#inbox = inbox;
  }

  /** Calls `listener` whenever a question opens, until the returned function is called. */
  onAsked(listener: AskedListener): () => void {
    this.#asked.add(listener);
    return () => this.#asked.delete(listener);
  }

  /** A question opened: its block in the panel (`queued` more wait behind it), and each listener told. */
  opened(rec: PanelRecord, question: Question, queued: number): void {
    if (rec.formatter) this.#sink.queue(rec, rec.formatter.rows(questionRows(question, rec.cols - 1, rec.rows, queued)));
    for (const listener of this.#asked) {
      try {
        listener(question, rec.label);
      } catch (err) {
        this.#sink.log(`question listener failed: ${messageOf(err)}`);
      }
    }
  }

  /** The panel's line for an answered question: what was said, and by whom. */
  answered(rec: PanelRecord, qid: string, said: string): void {
    this.#sink.queue(rec, rec.formatter?.rows([answeredRow(qid, said, rec.cols - 1)]) ?? '');
  }

  /** The panel's line for a question a rule answered as it was asked. */
  answeredByRule(rec: PanelRecord, qid: string, tool: string, note: string, option: string): void {
    this.#sink.queue(rec, rec.formatter?.rows([ruleAnsweredRow(qid, tool, note, option, rec.cols - 1)]) ?? '');
  }

  /** A note in the panel's output. */
  note(rec: PanelRecord, text: string): void {
    this.#sink.queue(rec, rec.formatter?.event({ type: 'note', text }) ?? '');
  }

  /** The audit log's entry of question `qid` of panel `rec`. */
  audit(rec: PanelRecord, qid: string, ask: QuestionAsk, event: AuditEntry['event'], now: number, more: AuditMore = {}): void {
    this.#inbox.audit({
      at: now,
      event,
      qid,
      panel: rec.id,
      label: rec.label,
      tool: ask.tool,
      args: maskSecrets(argsLine(ask.detail)),
      ...(more.option === undefined ? {} : { option: `${more.option.name} (${more.option.id})` }),
      ...(more.by === undefined ? {} : { by: more.by }),
      ...(more.rule === undefined ? {} : { rule: more.rule }),
      ...(more.why === undefined ? {} : { why: more.why }),
    });
  }
}
