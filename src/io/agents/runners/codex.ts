/**
 * The `codex` kind: `codex exec --json` (src/core/decoders/codex.ts), the task on stdin, SIGINT the soft stop, as
 * the Codex CLI documents. A spec with `resume` runs `codex exec ... resume <id> -` (docs/restore.md); an unknown
 * thread id is said in one line, not the backtrace Codex prints after it.
 */
import { CodexDecoder } from '../../../core/decoders/codex.js';
import { RequestError } from '../../../core/errors.js';
import { runJsonLines } from './json-lines.js';
import type { Runner, RunningAgent } from './runner.js';

/** Codex's stderr line for a thread id it cannot resume. */
const RESUME_FAILED = /thread\/resume failed: (.*)$/;

/** Starts `codex exec --json`, or resumes a thread with `codex exec ... resume ID -`. */
export const runCodex: Runner = (spec, emit) => {
  const resume = spec.resume;
  let refused: string | undefined;
  const agent = runJsonLines(resume === undefined ? spec : { ...spec, argv: codexResumeArgv(spec.argv, resume) }, emit, {
    decoder: new CodexDecoder(),
    start(stdin) {
      stdin.end(spec.prompt ?? '');
    },
    soft(_stdin, group) {
      group.signal('SIGINT');
    },
    ...(resume === undefined
      ? {}
      : {
          stderrLine(line: string) {
            const said = RESUME_FAILED.exec(line)?.[1];
            if (said === undefined || refused !== undefined) return;
            refused = `codex cannot resume thread ${resume}: ${said}; start it again with tai restart ID`;
            emit({ type: 'error', text: refused });
          },
        }),
  });
  if (resume === undefined) return agent;
  return withEnded(agent, agent.ended.then((outcome) => (refused === undefined || outcome.state === 'done' ? outcome : { ...outcome, summary: refused })));
};

/**
 * The argv that resumes thread `id`: `resume <id> -` after the argv's own
 * (`codex exec --json ...`); RequestError when the argv runs no `exec`.
 */
export function codexResumeArgv(argv: readonly string[], id: string): readonly string[] {
  if (!argv.slice(1).some((arg) => arg === 'exec' || arg === 'e')) {
    throw new RequestError(`codex cannot resume thread ${id}: its command runs no 'codex exec' (${argv.join(' ')}); start it again with tai restart ID`);
  }
  return [...argv, 'resume', id, '-'];
}

/** The agent with another `ended` (its pgid still read live). */
function withEnded(agent: RunningAgent, ended: RunningAgent['ended']): RunningAgent {
  return {
    get pgid() {
      return agent.pgid;
    },
    ended,
    result: () => agent.result(),
    soft: (reason) => agent.soft(reason),
    hard: (reason) => agent.hard(reason),
    ...(agent.finished ? { finished: agent.finished.bind(agent) } : {}),
    ...(agent.steer ? { steer: agent.steer.bind(agent) } : {}),
  };
}
