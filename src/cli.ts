#!/usr/bin/env node
/**
 * argv -> one subcommand. Each subcommand lives in src/cli/<name>.ts and
 * returns the process exit code; this file only routes.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readCommandLine, usageError } from './cli/command-line.js';
import { processOutput } from './cli/output.js';

/** A subcommand: receives the arguments after its name, returns the exit code. */
export type Subcommand = (args: readonly string[]) => Promise<number>;

const SUBCOMMANDS: Record<string, () => Promise<{ run: Subcommand }>> = {
  demo: () => import('./cli/demo.js'),
  vpane: () => import('./cli/vpane.js'),
  status: () => import('./cli/status.js'),
  cancel: () => import('./cli/cancel.js'),
  spawn: () => import('./cli/spawn.js'),
  poll: () => import('./cli/poll.js'),
  logs: () => import('./cli/logs.js'),
  record: () => import('./cli/record.js'),
  outage: () => import('./cli/outage.js'),
  net: () => import('./cli/net.js'),
  report: () => import('./cli/report.js'),
  agents: () => import('./cli/agents.js'),
  doctor: () => import('./cli/doctor.js'),
  lane: () => import('./cli/lane.js'),
  ask: () => import('./cli/ask.js'),
};

/** The usage text. */
export const USAGE = `tai: a terminal cockpit for supervising AI coding sub-agents

usage:
  tai [-- CMD ARGS...]     the cockpit: $SHELL (or CMD) on the left, agent panels on the right
  tai demo [options]       the cockpit with example agents (no model needed)
  tai spawn [options] -- ARGV...   start a supervised agent (or: tai spawn @NAME PROMPT)
  tai status [--json]      agents and their states
  tai agents               the agent registry: names, kinds, available or not
  tai lane list|diff|merge|drop|restart   agents' git worktrees (tai spawn --lane)
  tai poll ID | tai cancel ID
  tai logs ID [-f]         an agent's whole transcript, live or finished, with or without a cockpit
  tai ask | tai ask answer QID OPTION   the questions agents wait on; answer one
  tai record read|search|gc
  tai vpane open|write|close|list
  tai outage status|wait|probe | tai net -- CMD... | tai report
  tai doctor [--reset-db]  check the state database; move a damaged one aside and start fresh
  tai --version | tai --help
Every command answers --help (or -h) with its own usage.
`;

const SPEC = { name: 'tai', usage: USAGE, options: { version: { type: 'boolean', short: 'V' } }, command: true } as const;

/** Runs tai with `argv` (without node and the script) and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first !== undefined && first !== '--' && !first.startsWith('-')) {
    if (first === 'help') return main(['--help']);
    const load = SUBCOMMANDS[first];
    if (!load) return usageError(SPEC, processOutput, `unknown command '${first}'`);
    return (await load()).run(rest);
  }
  // No command: options of tai itself, then the cockpit's main program after --.
  const line = readCommandLine(SPEC, argv, processOutput);
  if (typeof line === 'number') return line;
  if (line.values.version === true) {
    processOutput.say(`${await version()}\n`);
    return 0;
  }
  const { run } = await import('./cli/cockpit.js');
  return run(line.command);
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const invoked = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invoked === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // A storage fault says what to do (docs/security.md, "Storage faults"); a stack trace would bury it.
      const fault = err instanceof Error && (err.name.startsWith('StateDb') || err.name === 'SqliteError');
      processOutput.warn(`tai: ${err instanceof Error ? (fault ? err.message : (err.stack ?? err.message)) : String(err)}\n`);
      process.exitCode = fault ? 74 : 1;
    },
  );
}
