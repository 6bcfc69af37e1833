/**
 * The `command` kind: any program (docs/agents.md, "`command`: any program"). Its stdout is the result and the
 * panel's text, its stderr streams in marked, its exit code decides; with `--stdin` steering lines go to its stdin.
 * Soft stop: SIGINT to its group, as Ctrl-C would; hard stop: SIGKILL.
 */
import { StringDecoder } from 'node:string_decoder';
import { LineDecoder } from '../../../core/decoders/lines.js';
import { RequestError } from '../../../core/errors.js';
import { pacedData } from '../paced-read.js';
import { exitCodeOf, spawnGroup } from './process-group.js';
import { ResultText } from './result-text.js';
import type { EmitEvent, RunOutcome, RunSpec, RunningAgent, Runner } from './runner.js';

/** stderr lines are shown with this mark so they stand apart from stdout. */
export const STDERR_MARK = 'stderr│ ';

/** The last stderr lines kept as the evidence of a failure. */
const STDERR_KEEP = 20;

/** The signal a command's soft stop sends. */
export const COMMAND_SOFT_SIGNAL: NodeJS.Signals = 'SIGINT';

/** Starts a program as a `command` agent. */
export const runCommand: Runner = (spec: RunSpec, emit: EmitEvent): RunningAgent => {
  const group = spawnGroup(spec.argv, { ...(spec.cwd ? { cwd: spec.cwd } : {}), ...(spec.env ? { env: spec.env } : {}) });
  const result = new ResultText();
  const out = new StringDecoder('utf8');
  const err = new LineDecoder(8_192);
  const lastErr: string[] = [];
  // One text event per read, not per line: a flood of short lines is millions of them.
  const stderrLines = (lines: readonly string[]): void => {
    if (lines.length === 0) return;
    for (const line of lines.slice(-STDERR_KEEP)) {
      lastErr.push(line);
      if (lastErr.length > STDERR_KEEP) lastErr.shift();
    }
    emit({ type: 'text', text: lines.map((line) => `${STDERR_MARK}${line}\n`).join('') });
  };
  pacedData<Buffer>(group.stdout, (chunk) => {
    const text = out.write(chunk);
    if (text === '') return;
    result.append(text);
    emit({ type: 'text', text });
  });
  // stderr is paced like stdout: a flood on it must not wake the loop per write (docs/performance.md).
  pacedData<Buffer>(group.stderr, (chunk) => {
    stderrLines(err.push(chunk).map((line) => (line.ok ? line.text : `[an over-long line skipped: over the ${line.max}-byte limit]`)));
  });
  // With `stdin`, the pipe stays open for steering lines (opt-in: most programs wait for EOF).
  if (spec.stdin) {
    if (spec.prompt !== undefined) group.stdin.write(spec.prompt.endsWith('\n') ? spec.prompt : `${spec.prompt}\n`);
  } else if (spec.prompt !== undefined) group.stdin.end(spec.prompt);
  else group.stdin.end();
  const drained = (stream: NodeJS.ReadableStream & { readableEnded?: boolean }): Promise<void> =>
    new Promise((resolve) => {
      if (stream.readableEnded) resolve();
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
  const ended: Promise<RunOutcome> = (async () => {
    const exit = await group.exited;
    // The reaper killed the group on exit, so the pipes close promptly.
    await Promise.all([drained(group.stdout), drained(group.stderr)]);
    const rest = out.end();
    if (rest) {
      result.append(rest);
      emit({ type: 'text', text: rest });
    }
    stderrLines(err.end().flatMap((line) => (line.ok ? [line.text] : [])));
    const code = exitCodeOf(exit);
    if (code === 0) return { state: 'done', summary: 'exit 0' };
    const failure = [{ stderr: lastErr.join('\n'), exitCode: code, ...(spec.argv[0] === undefined ? {} : { command: spec.argv[0] }) }];
    return { state: 'failed', summary: exit.signal ? `killed by ${exit.signal}` : `exit ${code}`, failure };
  })();
  return {
    get pgid() {
      return group.pgid();
    },
    ended,
    result: () => result.toString(),
    soft: () => group.signal(COMMAND_SOFT_SIGNAL),
    hard: () => group.kill(),
    ...(spec.stdin
      ? {
          steer: (text: string) => {
            if (group.stdin.writableEnded || group.stdin.destroyed) throw new RequestError('its stdin is closed');
            group.stdin.write(`${text}\n`);
            return 'sent' as const;
          },
        }
      : {}),
  };
};
