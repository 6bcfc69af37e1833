/**
 * The `cap` kind: a CAP agent over JSON lines on stdio (docs/spec.md, "Event sources"; src/core/decoders/cap.ts):
 * the task goes in as `cap.prompt`, the soft stop is `cap.cancel` (docs/spec.md, "Supervision"); one that ignores
 * it is killed after the grace, and the turn has its wall clock like every job.
 */
import { CapDecoder } from '../../../core/decoders/cap.js';
import { runJsonLines, writeLine } from './json-lines.js';
import type { Runner } from './runner.js';

/** Starts a CAP agent and sends it the task. */
export const runCap: Runner = (spec, emit) =>
  runJsonLines(spec, emit, {
    decoder: new CapDecoder(),
    start(stdin) {
      writeLine(stdin, { type: 'cap.prompt', text: spec.prompt ?? '' });
    },
    soft(stdin, group) {
      if (!stdin.writableEnded) writeLine(stdin, { type: 'cap.cancel' });
      else group.signal('SIGINT');
    },
  });
