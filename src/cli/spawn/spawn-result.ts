/**
 * How `tai spawn` and `tai poll` print a result: its text on stdout as the
 * shape says, the closing line on stderr, the exit code; and the lines about
 * a lane agent's place.
 */
import type { AgentResult, SpawnResult } from '../../core/agents/agent-service.js';
import type { CommandOf } from '../../core/protocol/commands.js';
import { isLive } from '../../core/panel/panel-state.js';
import { EXIT_CODES } from '../../io/agents/agent-results.js';
import { field, type CliOutput } from '../output.js';

/** A spawn and whether it waits in the queue when refused at the cap. */
export type QueuedSpawn = CommandOf<'spawn'> & { readonly queue?: boolean };

/** Says where a lane agent runs and what its maker should know (a dirty main checkout). */
export function laneLines(started: SpawnResult, out: CliOutput): void {
  if (started.lane === undefined) return;
  out.warn(`tai: agent #${started.id} runs in lane ${field(started.lane)} (${field(started.cwd ?? '')}); when it ends: tai lane diff ${field(started.lane)}\n`);
  for (const note of started.notes ?? []) out.warn(`tai: ${field(note)}\n`);
}

/** How a result is printed: sanitized text (the default), its exact bytes (`--raw`), or escaped JSON (`--json`). */
export type ResultShape = 'text' | 'raw' | 'json';

/** Prints a result so far: its text on stdout, as `shape` says. */
export function printText(text: string, shape: ResultShape, out: CliOutput): void {
  if (text !== '') out.result(text.endsWith('\n') ? text : `${text}\n`, shape === 'raw');
}

/** Prints a finished result (text on stdout, a one-line summary on stderr) and returns its exit code. */
export function printResult(result: AgentResult, shape: ResultShape, out: CliOutput): number {
  if (shape === 'json') out.json(result);
  else {
    printText(result.text, shape, out);
    const record = result.recordId
      ? ` · whole result: tai record read ${field(result.recordId)} --all`
      : result.storageError === undefined
        ? ''
        : ` · the result could not be stored (${field(result.storageError)}); ${result.resultFile === undefined ? 'the whole of it is on stdout' : `the whole of it is in ${field(result.resultFile)}`}`;
    out.warn(`tai: agent #${result.id} ${result.state}${result.reason ? ` (${field(result.reason)})` : ''}${record}\n`);
  }
  return result.exitCode ?? (isLive(result.state) ? 0 : EXIT_CODES[result.state as keyof typeof EXIT_CODES]);
}
