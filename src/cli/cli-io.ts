/**
 * The folder `src/cli/`: what every subcommand shares; the subcommands are in its folders. This file: where a
 * subcommand reads and writes: the process's stdio, environment, terminal width and Ctrl-C, or a test's own (its
 * writes go through src/cli/output.ts).
 */
import { processSinks, type CliSinks } from './output.js';

/** Where the CLI reads and writes (its writes through src/cli/output.ts); tests pass their own. */
export interface CliIo extends CliSinks {
  /** The whole of stdin when it is not a terminal, else undefined. */
  readStdin(): Promise<string | undefined>;
  /** True when stdin is a terminal: someone is there to answer an agent's questions (default policy `ask`). */
  readonly stdinIsTerminal?: boolean;
  readonly env: NodeJS.ProcessEnv;
  /** The width of the terminal stderr goes to (the live status line's); undefined: 80. */
  readonly errColumns?: number;
  /** Calls `handler` on each Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
}

/** The real process's stdio, environment and SIGINT. */
export const processIo: CliIo = {
  out: (text) => processSinks.out(text),
  err: (text) => processSinks.err(text),
  get outIsTerminal() {
    return processSinks.outIsTerminal;
  },
  get errIsTerminal() {
    return processSinks.errIsTerminal;
  },
  readStdin: async () => {
    if (process.stdin.isTTY) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  get stdinIsTerminal() {
    return process.stdin.isTTY === true;
  },
  env: process.env,
  get errColumns() {
    return process.stderr.columns;
  },
  onInterrupt: (handler) => {
    process.on('SIGINT', handler);
    return () => void process.off('SIGINT', handler);
  },
};
