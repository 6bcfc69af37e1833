/**
 * The folder `src/cli/machine/`: the machine's state, no cockpit needed. This file: `tai doctor [--reset-db]`, SQLite's
 * quick check of the state database; `--reset-db` moves a damaged one aside (kept, never deleted) for a fresh one,
 * leaving a healthy or locked one alone. Exit 0 healthy, missing or reset; 74 unusable; 64 a bad line.
 */
import { join } from 'node:path';
import { assertNever } from '../../core/never.js';
import { checkStateDb, moveAside } from '../../io/storage/db-doctor.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../../io/storage/state-db.js';
import { EXIT_STORAGE } from '../../io/agents/agent-results.js';
import { readCommandLine } from '../command-line.js';
import { CliOutput, field } from '../output.js';
import { processIo, type CliIo } from '../cli-io.js';

const USAGE = 'usage: tai doctor [--reset-db]\n';

/** Runs `tai doctor ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const parsed = readCommandLine({ name: 'doctor', usage: USAGE, options: { 'reset-db': { type: 'boolean' } } }, args, out);
  if (typeof parsed === 'number') return parsed;
  const path = join(stateDir(io.env), STATE_DB_FILE);
  const health = checkStateDb(path);
  switch (health.kind) {
    case 'missing':
      out.say(`the state database ${field(path)} does not exist yet; tai makes it when it first needs it\n`);
      return 0;
    case 'healthy':
      out.say(`the state database ${field(path)} is healthy${parsed.values['reset-db'] ? '; nothing to reset' : ''}\n`);
      return 0;
    case 'faulty': {
      if (!parsed.values['reset-db']) {
        out.warn(`tai doctor: ${field(health.fault.message)}\n`);
        return EXIT_STORAGE;
      }
      const aside = moveAside(path, health, Date.now());
      if (aside === undefined) {
        out.warn(`tai doctor: not reset, since the file is not damaged: ${field(health.fault.message)}\n`);
        return EXIT_STORAGE;
      }
      openStateDb(path).close();
      out.say(`moved the damaged state database to ${field(aside)} (kept) and started a fresh one at ${field(path)}\n`);
      return 0;
    }
    default:
      return assertNever(health);
  }
}
