/**
 * `tai ls [--json]`: the user's running cockpits, each asked over its link (one that does not answer is listed from
 * its card). Exit 0, also when none runs.
 */
import { readCommandLine, usageError } from '../command-line.js';
import { field, processOutput, type CliOutput } from '../output.js';
import type { CockpitInfo } from '../../core/protocol/link-frames.js';
import { isLive } from '../../core/panel/panel-state.js';
import type { CockpitCard } from '../../io/link/link-place.js';

const USAGE = 'usage: tai ls [--json]\nThe running cockpits of this user (tai attach NAME shows one, tai kill NAME ends one),\nand those that ended without tai kill or their main program\'s exit (tai attach NAME restores one).\n';

const SPEC = { name: 'ls', usage: USAGE, options: { json: { type: 'boolean' } } } as const;

/** Runs `tai ls ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput, now: () => number = Date.now): Promise<number> {
  const line = readCommandLine(SPEC, args, out);
  if (typeof line === 'number') return line;
  if (line.positionals.length > 0) return usageError(SPEC, out, `no arguments, got '${line.positionals[0]}'`);
  const { linkProblem, runningCockpits, socketProblem } = await import('../../io/link/link-place.js');
  const { queryCockpit } = await import('../../io/link/link-query.js');
  const cards = runningCockpits();
  // A link that is not a private socket of this user is not asked (link-place.ts); a cockpit in one process has none: its control socket tells its agents.
  const asked = async (card: CockpitCard): Promise<CockpitInfo | undefined> => {
    if (card.link !== undefined) return linkProblem(card) === undefined ? queryCockpit(card.link) : undefined;
    const known = { name: card.name, pid: card.pid, argv: card.argv, cwd: card.cwd, startedAt: card.startedAt, clients: 0 };
    if (card.control === undefined || socketProblem(card, 'control socket', card.control) !== undefined) return undefined;
    const { call } = await import('../../io/socket/control-client.js');
    const reply = await call(card.control, { cmd: 'status' }, { timeoutMs: 2_000 }).catch(() => undefined);
    if (!reply?.ok) return undefined;
    const agents = reply.data.agents.filter((a) => a.kind === 'agent');
    return { ...known, running: agents.filter((a) => isLive(a.state) && a.state !== 'asking').length, asking: agents.filter((a) => a.state === 'asking').length, done: agents.filter((a) => !isLive(a.state)).length };
  };
  const rows = await Promise.all(
    cards.map(async (card) => (await asked(card)) ?? { name: card.name, pid: card.pid, argv: card.argv, cwd: card.cwd, startedAt: card.startedAt, clients: card.link === undefined ? 0 : -1, running: -1, asking: -1, done: -1 }),
  );
  // The cockpits that ended without tai kill or their main program's exit, restored by tai attach NAME (docs/restore.md).
  const { cockpitsToRestore, restoreWanted } = await import('../../io/restore/stored-cockpits.js');
  const ended = restoreWanted(process.env, false) ? cockpitsToRestore(process.env, new Set(cards.map((c) => c.name))) : [];
  if (line.values.json === true) {
    out.json([...rows, ...ended.map((r) => ({ name: r.cockpit.name, ended: true, agentsToRestore: r.agents, argv: r.cockpit.argv, cwd: r.cockpit.cwd, startedAt: r.cockpit.startedAt, aliveAt: r.cockpit.aliveAt }))]);
    return 0;
  }
  if (rows.length === 0 && ended.length === 0) {
    out.say('no cockpit is running (tai starts one)\n');
    return 0;
  }
  const endedCells = ended.map((r) => [field(r.cockpit.name), '-', field(r.cockpit.argv.join(' ')), field(r.cockpit.cwd), `ended, ${r.agents} agent${r.agents === 1 ? '' : 's'} to restore (tai attach ${field(r.cockpit.name)})`, '-', age(now() - r.cockpit.startedAt)]);
  const table = [['NAME', 'PID', 'PROGRAM', 'DIRECTORY', 'AGENTS', 'CLIENTS', 'AGE'], ...rows.map((r) => cells(r, now())), ...endedCells];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) out.say(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
  return 0;
}

function cells(r: CockpitInfo, now: number): string[] {
  const agents = r.running < 0 ? '?' : `${r.running} running, ${r.asking} ask you, ${r.done} finished`;
  return [field(r.name), String(r.pid), field(r.argv.join(' ')), field(r.cwd), agents, r.clients < 0 ? '?' : String(r.clients), age(now - r.startedAt)];
}

/** A duration as tmux and ps show an age: 42s, 5m, 3h12m, 2d4h. */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600)}h`;
}
