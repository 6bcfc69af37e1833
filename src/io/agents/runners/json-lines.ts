/**
 * The shared body of the JSON-lines kinds (claude, codex, cap): a program in its own process group, one JSON message
 * a stdout line, each kind supplying the task's way in, the soft stop and its decoder. Once the turn ends, stdin is
 * closed and an agent staying past END_GRACE_MS is killed: its work is over.
 */
import type { Writable } from 'node:stream';
import type { FailureInput } from '../../../core/outage/classify.js';
import { JsonLines, type MessageDecoder } from '../../../core/decoders/json-lines.js';
import { LineDecoder } from '../../../core/decoders/lines.js';
import { pacedData } from '../paced-read.js';
import { exitCodeOf, spawnGroup, type GroupChild } from './process-group.js';
import { ResultText } from './result-text.js';
import type { EmitEvent, RunOutcome, RunningAgent, RunSpec } from './runner.js';

/** An agent still running this long after its turn ended is killed. */
export const END_GRACE_MS = 2_000;

/** How long the end of a run waits for stderr's last lines once stdout ended. */
const STDERR_GRACE_MS = 500;

/** The last stderr lines kept to explain a failure. */
const STDERR_KEEP = 5;

/** What one JSON-lines kind adds to the shared body. */
export interface JsonLinesProtocol {
  readonly decoder: MessageDecoder;
  /** Hands the task to the agent once it is started (and closes stdin if nothing else will be sent). */
  start(stdin: Writable, spec: RunSpec): void;
  /** Asks the agent to stop at its next step. */
  soft(stdin: Writable, group: GroupChild): void;
  /** A follow-up message from the user; absent, the kind takes none. */
  steer?(stdin: Writable, text: string): 'sent' | 'queued';
  /** Sees each whole stderr line (Codex says a refused resume only there). */
  stderrLine?(line: string): void;
}

/** Starts a JSON-lines agent. */
export function runJsonLines(spec: RunSpec, emit: EmitEvent, protocol: JsonLinesProtocol): RunningAgent {
  const group = spawnGroup(spec.argv, { ...(spec.cwd ? { cwd: spec.cwd } : {}), ...(spec.env ? { env: spec.env } : {}) });
  const frames = new JsonLines(protocol.decoder);
  const result = new ResultText();
  const stderr = new LineDecoder(2_000);
  const lastErr: string[] = [];
  let ended = false;
  let stopAsked = false;
  let endTimer: NodeJS.Timeout | undefined;
  const onDecoded = (d: { events: readonly Parameters<EmitEvent>[0][]; text: string }): void => {
    result.append(d.text);
    for (const event of d.events) emit(event);
    if (!ended && protocol.decoder.end) {
      ended = true;
      group.stdin.end();
      endTimer = setTimeout(() => group.kill(), END_GRACE_MS);
      endTimer.unref();
    }
  };
  pacedData<Buffer>(group.stdout, (chunk) => onDecoded(frames.push(chunk)));
  pacedData<Buffer>(group.stderr, (chunk) => {
    // An over-long stderr line explains nothing: only whole lines are kept.
    for (const line of stderr.push(chunk)) {
      if (!line.ok) continue;
      protocol.stderrLine?.(line.text);
      lastErr.push(line.text);
      if (lastErr.length > STDERR_KEEP) lastErr.shift();
    }
  });
  protocol.start(group.stdin, spec);
  const finished: Promise<RunOutcome> = (async () => {
    const exit = await group.exited;
    await new Promise<void>((resolve) => {
      if (group.stdout.readableEnded) resolve();
      group.stdout.once('end', resolve);
      group.stdout.once('close', resolve);
    });
    // The last stderr lines explain the exit (a refused resume): read to its end, unless a child holds it open.
    await new Promise<void>((resolve) => {
      const bound = setTimeout(resolve, STDERR_GRACE_MS);
      const done = (): void => (clearTimeout(bound), resolve());
      if (group.stderr.readableEnded) done();
      group.stderr.once('end', done);
      group.stderr.once('close', done);
    });
    clearTimeout(endTimer);
    onDecoded(frames.end());
    const end = protocol.decoder.end;
    const code = exitCodeOf(exit);
    // The failures the decoder read, newest first: the message that ended the turn decides before earlier retries.
    const failure: FailureInput[] = [...protocol.decoder.failures].reverse().map((agent) => ({ agent }));
    if (lastErr.length > 0) failure.push({ stderr: lastErr.join('\n'), exitCode: code });
    if (end) return end.state === 'failed' ? { state: end.state, summary: end.summary, failure } : { state: end.state, summary: end.summary };
    const why = exit.signal ? `killed by ${exit.signal}` : `exit ${code}`;
    if (code === 0) return { state: 'done', summary: `${why} without the end of its turn` };
    // Stopped on request, what it printed on its way out (Codex: "Reading prompt from stdin...") is no reason.
    if (stopAsked) return { state: 'failed', summary: `stopped (${why})`, failure };
    return { state: 'failed', summary: lastErr.length > 0 ? `${why}: ${lastErr.join(' | ')}` : why, failure };
  })();
  return {
    get pgid() {
      return group.pgid();
    },
    ended: finished,
    result: () => protocol.decoder.end?.text ?? result.toString(),
    soft: () => {
      stopAsked = true;
      protocol.soft(group.stdin, group);
    },
    hard: () => group.kill(),
    ...(protocol.steer ? { steer: (text: string) => protocol.steer?.(group.stdin, text) ?? 'sent' } : {}),
  };
}

/** Writes one JSON message as a line, ignoring a closed pipe (the agent may be gone). */
export function writeLine(stdin: Writable, message: unknown): void {
  if (stdin.writableEnded || stdin.destroyed) return;
  stdin.write(`${JSON.stringify(message)}\n`);
}
