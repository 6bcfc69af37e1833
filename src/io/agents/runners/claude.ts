/**
 * The `claude` kind: Claude Code headless, stream-json out
 * (`claude -p --output-format stream-json --verbose`, src/core/decoders/claude.ts).
 * With `--input-format stream-json` in the argv the task goes in as a user
 * message and the soft stop is the interrupt control request; without it the
 * task goes in as plain stdin and the soft stop is SIGINT.
 */
import { ClaudeDecoder } from '../../../core/decoders/claude.js';
import { runJsonLines, writeLine } from './json-lines.js';
import type { Runner } from './runner.js';

/** The control request that interrupts Claude's turn. */
export const CLAUDE_INTERRUPT = { type: 'control_request', request_id: 'tai-interrupt', request: { subtype: 'interrupt' } } as const;

/** True when the argv asks Claude for stream-json input. */
export function streamJsonInput(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === '--input-format=stream-json' || (a === '--input-format' && argv[i + 1] === 'stream-json'));
}

/** Starts Claude Code in stream-json mode. */
export const runClaude: Runner = (spec, emit) => {
  const structured = streamJsonInput(spec.argv);
  const decoder = new ClaudeDecoder();
  return runJsonLines(spec, emit, {
    decoder,
    start(stdin) {
      if (!structured) {
        stdin.end(spec.prompt ?? '');
        return;
      }
      // stdin stays open for the interrupt; it is closed when the result arrives.
      writeLine(stdin, { type: 'user', message: { role: 'user', content: [{ type: 'text', text: spec.prompt ?? '' }] } });
    },
    soft(stdin, group) {
      decoder.stopAsked();
      if (structured && !stdin.writableEnded) writeLine(stdin, CLAUDE_INTERRUPT);
      else group.signal('SIGINT');
    },
  });
};
