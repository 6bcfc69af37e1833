/**
 * The `claude` kind: Claude Code headless, stream-json out (src/core/decoders/claude.ts; docs/agents.md,
 * "`claude`: Claude Code headless stream-json"). With stream-json input the task is a user message, the soft stop
 * the interrupt request, and a permission policy is asked through claude-permission.ts; else plain stdin and
 * SIGINT. A spec with `resume` runs `--resume <id>` (docs/restore.md).
 */
import { ClaudeDecoder } from '../../../core/decoders/claude.js';
import type { Writable } from 'node:stream';
import { RequestError } from '../../../core/errors.js';
import type { Decoded, MessageDecoder } from '../../../core/decoders/json-lines.js';
import { runJsonLines, writeLine } from './json-lines.js';
import { policyOf, type Runner, type RunSpec } from './runner.js';
import { answerCanUseTool, canUseToolOf, type ClaudeAsking } from './claude-permission.js';

/** The control request that interrupts Claude's turn. */
export const CLAUDE_INTERRUPT = { type: 'control_request', request_id: 'tai-interrupt', request: { subtype: 'interrupt' } } as const;

/** True when the argv asks Claude for stream-json input. */
export function streamJsonInput(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === '--input-format=stream-json' || (a === '--input-format' && argv[i + 1] === 'stream-json'));
}

/** Starts Claude Code in stream-json mode. */
export const runClaude: Runner = (spec, emit, ask) => {
  const structured = streamJsonInput(spec.argv);
  const asks = structured && (spec.permissions !== undefined || spec.allow === true) && !spec.argv.includes('--permission-prompt-tool');
  let input: Writable | undefined;
  const run: ClaudeAsking = {
    policy: policyOf(spec),
    ...(ask ? { ask } : {}),
    ...(spec.askTimeoutMs === undefined ? {} : { askTimeoutMs: spec.askTimeoutMs }),
    ...(spec.askDefault === undefined ? {} : { askDefault: spec.askDefault }),
    emit,
    always: new Set(),
    stdin: () => input,
  };
  const decoder = new ClaudeDecoder(spec.resume === undefined ? {} : { resume: spec.resume });
  const argv = claudeArgv(spec, asks);
  return runJsonLines(argv === spec.argv ? spec : { ...spec, argv }, emit, {
    decoder: asks ? askingDecoder(decoder, run) : decoder,
    start(stdin) {
      input = stdin;
      if (!structured) {
        stdin.end(spec.prompt ?? '');
        return;
      }
      // stdin stays open for the interrupt; it is closed when the result arrives.
      writeLine(stdin, { type: 'user', message: { role: 'user', content: [{ type: 'text', text: spec.prompt ?? '' }] } });
    },
    ...(structured
      ? {
          steer(stdin: Writable, text: string) {
            // The turn's result closes stdin: after it Claude takes no more messages.
            if (stdin.writableEnded || stdin.destroyed) throw new RequestError('its turn has ended');
            writeLine(stdin, { type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } });
            return 'sent' as const;
          },
        }
      : {}),
    soft(stdin, group) {
      decoder.stopAsked();
      if (structured && !stdin.writableEnded) writeLine(stdin, CLAUDE_INTERRUPT);
      else group.signal('SIGINT');
    },
  });
};

/** The argv Claude runs: the spec's, with the permission tool when tai answers, and `--resume <id>` for a resume. */
export function claudeArgv(spec: RunSpec, asks: boolean): readonly string[] {
  if (!asks && spec.resume === undefined) return spec.argv;
  return [...spec.argv, ...(asks ? ['--permission-prompt-tool', 'stdio'] : []), ...(spec.resume === undefined ? [] : ['--resume', spec.resume])];
}

/** The Claude decoder with can_use_tool requests taken out and answered (the rest decoded as before). */
function askingDecoder(inner: ClaudeDecoder, run: ClaudeAsking): MessageDecoder {
  return {
    message(msg: unknown): Decoded {
      const req = canUseToolOf(msg);
      if (!req) return inner.message(msg);
      answerCanUseTool(req, run);
      return { events: [], text: '' };
    },
    get end() {
      return inner.end;
    },
    get failures() {
      return inner.failures;
    },
  };
}
