/**
 * The in-process worker for library users: an async function with an AbortSignal and an `emit`; the soft stop
 * aborts the signal (docs/spec.md, "Owners and sessions"). Code in this process has no hard stop, so a worker
 * ignoring the signal is finished by the board a grace after, its promise left to settle unseen.
 */
import { messageOf } from '../../../core/errors.js';
import type { AgentEvent } from '../../../core/events.js';
import { ResultText } from './result-text.js';
import type { EmitEvent, RunOutcome, Runner, RunningAgent, RunSpec } from './runner.js';

/** The worker's body: its return value is the result; without one, its text events are. */
export type WorkerFn = (signal: AbortSignal, emit: (event: AgentEvent) => void, spec: RunSpec) => Promise<string | void>;

/** A runner that runs `fn` in this process. */
export function workerRunner(fn: WorkerFn): Runner {
  return (spec: RunSpec, emit: EmitEvent): RunningAgent => {
    const abort = new AbortController();
    const text = new ResultText();
    let returned: string | undefined;
    let open = true;
    const forward = (event: AgentEvent): void => {
      if (!open) return;
      if (event.type === 'text') text.append(event.text);
      emit(event);
    };
    const ended: Promise<RunOutcome> = (async () => {
      try {
        const value = await fn(abort.signal, forward, spec);
        if (typeof value === 'string') returned = value;
        return abort.signal.aborted
          ? { state: 'failed', summary: `stopped: ${String(abort.signal.reason)}` }
          : { state: 'done', summary: 'returned' };
      } catch (err) {
        const message = messageOf(err);
        return { state: 'failed', summary: abort.signal.aborted ? `stopped: ${message}` : message, failure: [{ error: err }] };
      } finally {
        open = false;
      }
    })();
    return {
      pgid: undefined,
      ended,
      result: () => returned ?? text.toString(),
      soft: (reason) => abort.abort(reason),
      hard: () => {
        open = false;
      },
    };
  };
}
