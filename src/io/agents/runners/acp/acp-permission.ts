/**
 * An ACP `session/request_permission` answered by the turn's policy: `ask` puts it to the user through the board's queue, `allow` and `reject` answer at once with the
 * first such option (docs/agents.md, "Permissions"). An "always" option is remembered for the session by tool
 * kind; after a stop, or with no turn current, the answer is `cancelled` (the ACP rule).
 */
import type * as acp from '@agentclientprotocol/sdk';
import { argumentLines, diffLines } from '../../../../core/agents/question-block.js';
import type { DetailLine, OptionKind, PermissionPolicy, QuestionAnswer, QuestionAsk } from '../../../../core/agents/questions.js';
import type { AskUser, EmitEvent } from '../runner.js';

/** What the turn brings to a permission request. */
export interface PermissionTurn {
  readonly emit: EmitEvent;
  readonly policy: PermissionPolicy;
  readonly ask?: AskUser;
  readonly askTimeoutMs?: number;
  readonly askDefault?: 'allow' | 'reject';
  readonly stopping: boolean;
  /** The tool's name from an earlier tool_call update, for a request without a title. */
  toolName(toolCallId: string): string | undefined;
}

/** "Always" answers of one session: the tool's kind (or title) to the option kind chosen. */
export type Remembered = Map<string, OptionKind>;

const CANCELLED: acp.RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/** The answer to one permission request. */
export async function answerPermission(turn: PermissionTurn | undefined, params: acp.RequestPermissionRequest, remembered: Remembered): Promise<acp.RequestPermissionResponse> {
  if (!turn || turn.stopping) return CANCELLED;
  const title = params.toolCall.title ?? turn.toolName(params.toolCall.toolCallId) ?? 'a tool';
  const key = params.toolCall.kind ?? title;
  const always = remembered.get(key);
  const again = always === undefined ? undefined : params.options.find((o) => o.kind === always);
  if (again && always !== undefined) {
    turn.emit({ type: 'note', text: `permission asked for ${title}: ${again.name} (remembered: ${always.replace('_', ' ')} for ${key})` });
    return selected(again.optionId);
  }
  if (turn.policy === 'ask' && turn.ask) {
    const answer = await new Promise<QuestionAnswer>((resolve) => turn.ask?.(questionOf(params, title, turn), resolve));
    if (answer.outcome === 'cancelled') return CANCELLED;
    if (answer.option.kind.endsWith('_always')) remembered.set(key, answer.option.kind);
    return selected(answer.option.id);
  }
  const allow = turn.policy === 'allow';
  const wanted = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  const option = params.options.find((o) => o.kind === wanted[0]) ?? params.options.find((o) => o.kind === wanted[1]);
  if (!option) {
    turn.emit({ type: 'note', text: `permission asked for ${title}: no ${allow ? 'allow' : 'reject'} option, answered cancelled` });
    return CANCELLED;
  }
  turn.emit({ type: 'note', text: `permission asked for ${title}: ${allow ? 'allowed' : 'rejected'} (${option.name})${allow ? '' : '; --allow accepts'}` });
  return selected(option.optionId);
}

/** The question a permission request puts to the user. */
function questionOf(params: acp.RequestPermissionRequest, title: string, turn: PermissionTurn): QuestionAsk {
  return {
    tool: title,
    ...(params.toolCall.kind ? { toolKind: params.toolCall.kind } : {}),
    detail: detailOf(params.toolCall),
    options: params.options.map((o) => ({ id: o.optionId, name: o.name, kind: o.kind })),
    ...(turn.askTimeoutMs === undefined ? {} : { timeoutMs: turn.askTimeoutMs, defaultAnswer: turn.askDefault ?? 'reject' }),
  };
}

/** The diffs and text a tool call carries, else its raw input as arguments. */
function detailOf(toolCall: acp.RequestPermissionRequest['toolCall']): DetailLine[] {
  const lines: DetailLine[] = [];
  for (const c of toolCall.content ?? []) {
    if (c.type === 'diff') lines.push(...diffLines(c.path, c.oldText, c.newText));
    else if (c.type === 'content' && c.content.type === 'text') lines.push(...c.content.text.split('\n').map((text) => ({ text, tone: 'plain' as const })));
  }
  if (lines.length > 0) return lines;
  const where = (toolCall.locations ?? []).map((l) => ({ text: `at ${l.path}${l.line ? `:${l.line}` : ''}`, tone: 'meta' as const }));
  return [...where, ...argumentLines(toolCall.rawInput)];
}

function selected(optionId: string): acp.RequestPermissionResponse {
  return { outcome: { outcome: 'selected', optionId } };
}
