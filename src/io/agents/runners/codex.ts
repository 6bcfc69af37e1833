/**
 * The `codex` kind: `codex exec --json` (src/core/decoders/codex.ts). The
 * task goes in on stdin (codex reads its prompt from stdin when none is in
 * the argv); the soft stop is SIGINT, as the Codex CLI documents.
 */
import { CodexDecoder } from '../../../core/decoders/codex.js';
import { runJsonLines } from './json-lines.js';
import type { Runner } from './runner.js';

/** Starts `codex exec --json`. */
export const runCodex: Runner = (spec, emit) =>
  runJsonLines(spec, emit, {
    decoder: new CodexDecoder(),
    start(stdin) {
      stdin.end(spec.prompt ?? '');
    },
    soft(_stdin, group) {
      group.signal('SIGINT');
    },
  });
