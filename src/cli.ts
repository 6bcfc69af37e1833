#!/usr/bin/env node
/**
 * argv -> one subcommand. Each subcommand lives in src/cli/<name>.ts and
 * returns the process exit code; this file only routes.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { field, processOutput } from './cli/output.js';

/** A subcommand: receives the arguments after its name, returns the exit code. */
export type Subcommand = (args: readonly string[]) => Promise<number>;

const SUBCOMMANDS: Record<string, () => Promise<{ run: Subcommand }>> = {
  demo: () => import('./cli/demo.js'),
  vpane: () => import('./cli/vpane.js'),
  status: () => import('./cli/status.js'),
  cancel: () => import('./cli/cancel.js'),
  spawn: () => import('./cli/spawn.js'),
  poll: () => import('./cli/poll.js'),
  record: () => import('./cli/record.js'),
  outage: () => import('./cli/outage.js'),
  net: () => import('./cli/net.js'),
  report: () => import('./cli/report.js'),
  agents: () => import('./cli/agents.js'),
  ask: () => import('./cli/ask.js'),
};

/** The usage text. */
export const USAGE = `tai: a terminal cockpit for supervising AI coding sub-agents

usage:
  tai [-- CMD ARGS...]     the cockpit: $SHELL (or CMD) on the left, agent panels on the right
  tai demo                 the cockpit with example agents (no model needed)
  tai spawn [options] -- ARGV...   start a supervised agent
  tai status [--json]      agents and their states
  tai agents               the agent registry: names, kinds, available or not
  tai poll ID | tai cancel ID
  tai ask | tai ask answer QID OPTION   the questions agents wait on; answer one
  tai record read|search|gc
  tai vpane open|write|close|list
  tai outage status|wait|probe | tai net -- CMD... | tai report
  tai --version | tai --help
`;

/** Runs tai with `argv` (without node and the script) and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    processOutput.say(USAGE);
    return 0;
  }
  if (first === '--version' || first === '-V') {
    processOutput.say(`${await version()}\n`);
    return 0;
  }
  if (first === undefined || first === '--') {
    const { run } = await import('./cli/cockpit.js');
    return run(first === '--' ? rest : []);
  }
  const load = SUBCOMMANDS[first];
  if (!load) {
    processOutput.warn(`tai: unknown command '${field(first)}'\n\n${USAGE}`);
    return 2;
  }
  return (await load()).run(rest);
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
      processOutput.warn(`tai: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
