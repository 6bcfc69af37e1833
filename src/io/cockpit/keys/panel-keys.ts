/**
 * Keys typed into a focused agent panel (docs/agents.md, "Permissions"): while it asks, an option's number (or `y` /
 * `n`) answers at once; `a` / `r` make a rule for that tool and agent for RULE_KEY_MINUTES (docs/agents.md, "The inbox");
 * any other key is dropped, not the question's. Without a question keys go to `steer`, when given.
 */
import { QuestionError } from '../../../core/agents/questions.js';
import { isLive } from '../../../core/panel/panel-state.js';
import { RuleError } from '../../../core/inbox/rule-input.js';
import { ruleToolOf } from '../../../core/inbox/subject.js';
import type { Board } from '../../../../store/board.js';

/** What the panel keys act on. */
export interface PanelKeysOptions {
  readonly board: Board;
  readonly now: () => number;
  /** Keys for a panel with no open question (the steering line), with why its agent hears no more when it ended; omitted, they are dropped. */
  readonly steer?: (id: number, data: string, ended?: string) => void;
  readonly log?: (line: string) => void;
}

/** The handler for bytes typed while panel `id` has the focus. */
export function panelKeys(options: PanelKeysOptions): (id: number, data: string) => void {
  const { board, now } = options;
  return (id, data) => {
    const question = board.getState().questionOf(id);
    if (!question) {
      options.steer?.(id, data, endedNote(board, id));
      return;
    }
    // One key answers; a paste or a sequence is not an answer.
    const key = data.length === 1 ? data : '';
    if (!/^[1-9ynar]$/.test(key)) return;
    try {
      if (key === 'a' || key === 'r') board.getState().ruleFromKey(id, key === 'a' ? 'allow' : 'reject', now());
      else board.getState().answer(question.qid, key, 'key', now());
    } catch (err) {
      // A number the agent did not offer: the question stays open, its options still shown.
      if (!(err instanceof QuestionError) && !(err instanceof RuleError)) throw err;
      options.log?.(`panel ${id}: ${err.message}`);
    }
  };
}

/**
 * What the steering line says in the panel of an agent that has ended (one
 * reopened from the agent list, or lingering): it hears nothing more, and how
 * to talk to it again. Undefined while it runs, and for a feed pane.
 */
export function endedNote(board: Board, id: number): string | undefined {
  const view = board.getState().panels.find((p) => p.id === id);
  if (!view || view.kind !== 'agent' || isLive(view.state)) return undefined;
  const again = view.label.startsWith('@') ? `talk again: prefix @ ${view.label.split(/\s/)[0]}` : 'start anew: tai spawn, prefix @';
  return `ended (${view.state}) · ${again}`;
}

/**
 * The agent list's y / n: every open question of the same tool as agent
 * `id`'s open question answered with `key`; what the list then says.
 */
export function answerTool(board: Board, id: number | undefined, key: 'y' | 'n', now: number): string {
  const question = id === undefined ? undefined : board.getState().questionOf(id);
  if (id === undefined || !question) return `#${id ?? '?'} has no open question: y / n answer every open question of its tool`;
  const tool = ruleToolOf(question);
  const { answered, skipped } = board.getState().answerAll({ tool }, key, 'list key', now);
  const left = skipped.length === 0 ? '' : `; ${skipped.length} could not take it`;
  return `answered ${answered.length} question${answered.length === 1 ? '' : 's'} of ${tool} with ${key === 'y' ? 'allow' : 'reject'}${left}`;
}
