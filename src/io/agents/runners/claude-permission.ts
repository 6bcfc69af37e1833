/**
 * Claude Code's permission prompts over stdio. Started
 * with `--permission-prompt-tool stdio`, Claude asks with a `can_use_tool` control request and waits for the
 * response (docs/agents.md, "Permissions"). "Allow always" answers with the request's `permission_suggestions`
 * (how the SDK makes Claude remember a rule) and is remembered here for the run by tool name too.
 */
import type { Writable } from 'node:stream';
import { argumentLines, diffLines } from '../../../core/agents/question-block.js';
import type { DetailLine, PermissionPolicy, QuestionAnswer, QuestionOption } from '../../../core/agents/questions.js';
import { writeLine } from './json-lines.js';
import type { AskUser, EmitEvent } from './runner.js';

/** The can_use_tool request, as Claude sends it. */
export interface CanUseTool {
  readonly requestId: string;
  readonly toolName: string;
  readonly input: Record<string, unknown>;
  readonly suggestions?: readonly unknown[];
  readonly toolUseId?: string;
}

/** Reads a message as a can_use_tool control request, or undefined. */
export function canUseToolOf(msg: unknown): CanUseTool | undefined {
  if (!isObject(msg) || msg['type'] !== 'control_request' || typeof msg['request_id'] !== 'string') return undefined;
  const req = msg['request'];
  if (!isObject(req) || req['subtype'] !== 'can_use_tool' || typeof req['tool_name'] !== 'string') return undefined;
  const input = isObject(req['input']) ? req['input'] : {};
  const suggestions = Array.isArray(req['permission_suggestions']) ? req['permission_suggestions'] : undefined;
  return {
    requestId: msg['request_id'],
    toolName: req['tool_name'],
    input,
    ...(suggestions ? { suggestions } : {}),
    ...(typeof req['tool_use_id'] === 'string' ? { toolUseId: req['tool_use_id'] } : {}),
  };
}

/** What the run brings to Claude's permission requests. */
export interface ClaudeAsking {
  readonly policy: PermissionPolicy;
  readonly ask?: AskUser;
  readonly askTimeoutMs?: number;
  readonly askDefault?: 'allow' | 'reject';
  readonly emit: EmitEvent;
  /** Tools the user allowed always, for this run. */
  readonly always: Set<string>;
  readonly stdin: () => Writable | undefined;
}

const ALLOW: QuestionOption = { id: 'allow', name: 'Allow', kind: 'allow_once' };
const ALWAYS: QuestionOption = { id: 'allow-always', name: 'Allow always', kind: 'allow_always' };
const DENY: QuestionOption = { id: 'deny', name: 'Deny', kind: 'reject_once' };

/** Answers one can_use_tool request (now, or once the user has). */
export function answerCanUseTool(req: CanUseTool, run: ClaudeAsking): void {
  const respond = (allow: boolean, always: boolean, message: string): void => {
    const stdin = run.stdin();
    if (!stdin) return;
    const result = allow
      ? { behavior: 'allow', updatedInput: req.input, ...(always && req.suggestions ? { updatedPermissions: req.suggestions } : {}) }
      : { behavior: 'deny', message };
    writeLine(stdin, {
      type: 'control_response',
      response: { subtype: 'success', request_id: req.requestId, response: { ...result, ...(req.toolUseId ? { toolUseID: req.toolUseId } : {}) } },
    });
  };
  if (run.always.has(req.toolName)) {
    run.emit({ type: 'note', text: `permission asked for ${req.toolName}: allowed (remembered: allow always)` });
    respond(true, false, '');
    return;
  }
  if (run.policy !== 'ask' || !run.ask) {
    const allow = run.policy === 'allow';
    run.emit({ type: 'note', text: `permission asked for ${req.toolName}: ${allow ? 'allowed' : 'denied'}${allow ? '' : '; --allow accepts'}` });
    respond(allow, false, 'denied by tai (permissions reject)');
    return;
  }
  const options = req.suggestions && req.suggestions.length > 0 ? [ALLOW, ALWAYS, DENY] : [ALLOW, DENY];
  run.ask(
    {
      tool: req.toolName,
      detail: detailOf(req.input),
      options,
      ...(run.askTimeoutMs === undefined ? {} : { timeoutMs: run.askTimeoutMs, defaultAnswer: run.askDefault ?? 'reject' }),
    },
    (answer: QuestionAnswer) => {
      if (answer.outcome === 'cancelled') {
        respond(false, false, `cancelled: ${answer.why}`);
        return;
      }
      const allow = answer.option.kind.startsWith('allow');
      if (answer.option.kind === 'allow_always') run.always.add(req.toolName);
      respond(allow, answer.option.kind === 'allow_always', `denied by the user (${answer.by})`);
    },
  );
}

/** An Edit's old and new string as a diff, a Write's content as a new file, else the arguments. */
function detailOf(input: Record<string, unknown>): DetailLine[] {
  const path = typeof input['file_path'] === 'string' ? input['file_path'] : '';
  if (typeof input['old_string'] === 'string' && typeof input['new_string'] === 'string') return diffLines(path, input['old_string'], input['new_string']);
  if (path !== '' && typeof input['content'] === 'string') return diffLines(path, '', input['content']);
  return argumentLines(input);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
