#!/usr/bin/env node
/**
 * argv -> one subcommand. Each subcommand lives in a folder of src/cli/ and
 * returns the process exit code; this file only routes.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readCommandLine, usageError } from './cli/command-line.js';
import { processOutput } from './cli/output.js';
import { takeExecFd } from './io/launch/exec-plan.js';

/** A subcommand: receives the arguments after its name, returns the exit code. */
export type Subcommand = (args: readonly string[]) => Promise<number>;

const SUBCOMMANDS: Record<string, () => Promise<{ run: Subcommand }>> = {
  demo: () => import('./cli/cockpit/demo.js'),
  vpane: () => import('./cli/cockpit/vpane.js'),
  status: () => import('./cli/results/status.js'),
  cancel: () => import('./cli/spawn/cancel.js'),
  spawn: () => import('./cli/spawn/spawn.js'),
  poll: () => import('./cli/results/poll.js'),
  logs: () => import('./cli/results/logs.js'),
  record: () => import('./cli/results/record.js'),
  outage: () => import('./cli/machine/outage.js'),
  net: () => import('./cli/machine/net.js'),
  report: () => import('./cli/machine/report.js'),
  agents: () => import('./cli/machine/agents.js'),
  doctor: () => import('./cli/machine/doctor.js'),
  lane: () => import('./cli/lanes/lane.js'),
  hosts: () => import('./cli/machine/hosts.js'),
  ask: () => import('./cli/ask/ask.js'),
  attach: () => import('./cli/cockpit/attach.js'),
  ls: () => import('./cli/cockpit/ls.js'),
  kill: () => import('./cli/cockpit/kill.js'),
  restart: () => import('./cli/cockpit/restart.js'),
  mcp: () => import('./cli/cockpit/mcp.js'),
  wait: () => import('./cli/results/wait.js'),
  __server: () => import('./cli/cockpit/server.js'),
  __farewell: () => import('./cli/cockpit/farewell.js'),
};

/** The usage text. */
export const USAGE = `tai: a terminal cockpit for supervising AI coding sub-agents

usage:
  tai [-s NAME] [--wake] [--no-restore] [-- CMD ARGS...]   the cockpit: $SHELL (or CMD) on the left, agent panels on the right
                           (--wake, or TAI_WAKE=1: types a line into CMD, a lead, when its agents end or ask;
                           a cockpit of that name that crashed is restored unless --no-restore or TAI_RESTORE=0)
  tai attach [NAME] [-r]   show a running cockpit here (prefix + d detaches; -r: read-only)
  tai ls | tai kill NAME   the running cockpits (and the ones to restore); end one
  tai restart ID           start again an agent that ended with its cockpit, from its stored launch
  tai demo [options]       the cockpit with example agents (no model needed)
  tai spawn [options] -- ARGV...   start a supervised agent (or: tai spawn @NAME PROMPT)
  tai status [--json]      agents and their states
  tai agents               the agent registry: names, kinds, available or not
  tai lane list|diff|merge|drop|restart   agents' git worktrees (tai spawn --lane)
  tai hosts [check NAME]   the hosts of remote agents (tai spawn --host NAME); what a host lacks
  tai poll ID | tai cancel ID
  tai wait [ID...] [--all] [--timeout S]   the next agent to finish or ask
  tai mcp [--config claude|codex|gemini|opencode]   tai's tools for a lead agent (MCP on stdio)
  tai logs ID [-f]         an agent's whole transcript, live or finished, with or without a cockpit
  tai ask | tai ask answer QID OPTION   the questions agents wait on; answer one
  tai record read|search|gc
  tai vpane open|write|close|list
  tai outage status|wait|probe | tai net -- CMD... | tai report
  tai doctor [--reset-db]  check the state database; move a damaged one aside and start fresh
  tai --version | tai --help
Commands that talk to a cockpit (spawn, status, poll, cancel, vpane, ask, lane, logs, wait, mcp) take -t NAME
(a cockpit of tai ls) or --socket PATH; inside a cockpit they talk to it.
Every command answers --help (or -h) with its own usage.
`;

const SPEC = { name: 'tai', usage: USAGE, options: { version: { type: 'boolean', short: 'V' }, session: { type: 'string', short: 's' }, wake: { type: 'boolean' }, 'no-restore': { type: 'boolean' } }, command: true } as const;

/** The subcommands that talk to a cockpit: each takes `-t NAME` (tai ls) before its `--`. */
const TALKS_TO_A_COCKPIT = new Set(['spawn', 'status', 'poll', 'cancel', 'vpane', 'ask', 'lane', 'mcp', 'wait', 'restart']);

/**
 * A subcommand's arguments with `-t NAME` / `--target NAME` (before any `--`)
 * turned, in place, into `--socket PATH` of the cockpit of that name; the exit code
 * when there is no such cockpit.
 */
async function target(args: readonly string[]): Promise<readonly string[] | number> {
  const end = args.indexOf('--');
  const head = end < 0 ? args : args.slice(0, end);
  const at = head.findIndex((a) => a === '-t' || a === '--target' || a.startsWith('--target='));
  if (at < 0) return args;
  const flag = head[at] ?? '';
  const name = flag.startsWith('--target=') ? flag.slice('--target='.length) : args[at + 1];
  if (name === undefined || name === '' || name === '--') return usageError(SPEC, processOutput, `${flag} needs a cockpit's name (tai ls lists them)`);
  const { findCockpit, socketProblem } = await import('./io/link/link-place.js');
  let control: string | undefined;
  try {
    const card = findCockpit(name);
    control = card.control;
    if (control === undefined) throw new Error(`cockpit ${name} has no control socket (see its log)`);
    const bad = socketProblem(card, 'control socket', control);
    if (bad !== undefined) throw new Error(bad);
  } catch (err) {
    processOutput.warn(`tai: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  // In its place: each subcommand reads --socket where it reads its options (`tai lane restart -t X NAME`).
  return [...args.slice(0, at), '--socket', control, ...args.slice(at + (flag.startsWith('--target=') ? 1 : 2))];
}

/** Runs tai with `argv` (without node and the script) and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first !== undefined && first !== '--' && !first.startsWith('-')) {
    if (first === 'help') return main(['--help']);
    const load = SUBCOMMANDS[first];
    if (!load) return usageError(SPEC, processOutput, `unknown command '${first}'`);
    const targeted = TALKS_TO_A_COCKPIT.has(first) ? await target(rest) : rest;
    if (typeof targeted === 'number') return targeted;
    return (await load()).run(targeted);
  }
  // No command: options of tai itself, then the cockpit's main program after --.
  const line = readCommandLine(SPEC, argv, processOutput);
  if (typeof line === 'number') return line;
  if (line.values.version === true) {
    processOutput.say(`${await version()}\n`);
    return 0;
  }
  const { run } = await import('./cli/cockpit/cockpit.js');
  return run(line.command, line.values.session, line.values.wake === true || process.env.TAI_WAKE === '1', line.values['no-restore'] === true);
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const invoked = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invoked === fileURLToPath(import.meta.url)) {
  // Before anything starts a program that would inherit the launcher's pipe (src/bin/tai).
  takeExecFd();
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
