/** A CLI io for running a subcommand's `run` in the test process: output recorded, its own state folder, a Ctrl-C button. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/cli-io.js';

/** How the io is made. */
export interface RecordingIoOptions {
  /** The state folder (XDG_STATE_HOME); a new temporary one by default. */
  readonly state?: string;
  /** The environment under XDG_STATE_HOME (lane tests pass process.env: git needs PATH and HOME). */
  readonly inherit?: NodeJS.ProcessEnv;
  /** Variables over XDG_STATE_HOME. */
  readonly env?: NodeJS.ProcessEnv;
  /** What reading stdin gives. */
  readonly stdin?: string;
  /** Whether stderr says it is a terminal, and how wide (the live status line). */
  readonly errIsTerminal?: boolean;
  readonly errColumns?: number;
}

/** An io whose `stdout`/`stderr` hold what was written and whose `interrupt()` is the subcommand's Ctrl-C handler. */
export function recordingIo(options: RecordingIoOptions = {}) {
  const state = options.state ?? mkdtempSync(join(tmpdir(), 'tai-cli-'));
  const io = {
    stdout: '',
    stderr: '',
    interrupt: (): void => {},
    state,
    ...(options.errIsTerminal === undefined ? {} : { errIsTerminal: options.errIsTerminal, errColumns: options.errColumns ?? 80 }),
    out(text: string) {
      io.stdout += text;
    },
    err(text: string) {
      io.stderr += text;
    },
    readStdin: async () => options.stdin,
    env: { ...options.inherit, XDG_STATE_HOME: state, ...options.env } as NodeJS.ProcessEnv,
    onInterrupt(handler: () => void) {
      io.interrupt = handler;
      return () => {
        io.interrupt = () => {};
      };
    },
  } satisfies CliIo & Record<string, unknown>;
  return io;
}
