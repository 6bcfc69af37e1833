/**
 * `tai attach [NAME] [-r]`: this terminal attached to a running cockpit, redrawn at its size; `-r` read-only, for a
 * second screen. Exit: the main program's code when it ends, 0 detached, 1 no such cockpit or the server vanished,
 * 64 a bad line.
 */
import { messageOf } from '../../core/errors.js';
import type { CockpitCard } from '../../io/link/link-place.js';
import { readCommandLine, usageError } from '../command-line.js';
import { field, fieldLines, processOutput, type CliOutput } from '../output.js';

const USAGE =
  'usage: tai attach [NAME] [-r]\n' +
  'Shows a running cockpit on this terminal (tai ls lists them; with one running, NAME may be left out).\n' +
  '  -r, --read-only   watch only: keys other than the prefix + d (detach) are ignored\n' +
  'Prefix + d detaches again; closing the terminal detaches too. The cockpit and its agents go on.\n';

const SPEC = { name: 'attach', usage: USAGE, options: { 'read-only': { type: 'boolean', short: 'r' } } } as const;

/** Runs `tai attach ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput): Promise<number> {
  const line = readCommandLine(SPEC, args, out);
  if (typeof line === 'number') return line;
  const [name, ...extra] = line.positionals;
  if (extra.length > 0) return usageError(SPEC, out, `one cockpit at a time, got ${line.positionals.length} names`);
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
    out.warn('tai attach: needs a terminal (stdin and stdout); tai status and tai logs work from a script\n');
    return 1;
  }
  const [{ chooseCockpit, linkProblem }, { attachTerminal, nativeClientFor }, { logPath }] = await Promise.all([
    import('../../io/link/link-place.js'),
    import('../../io/link/native-client.js'),
    import('../../io/storage/log.js'),
  ]);
  try {
    nativeClientFor(process.env.TAI_NATIVE_CLIENT, undefined);
  } catch (err) {
    out.warn(`tai attach: ${messageOf(err)}\n`);
    return 64;
  }
  let card;
  try {
    // Inside a cockpit, that cockpit is no choice: attaching it in its own main pane would draw it into itself, forever.
    card = chooseCockpit(name, process.env, process.env.TAI_COCKPIT);
  } catch (err) {
    // Not running: one that ended without tai kill or its main program's exit is restored (docs/restore.md).
    const restored = name === undefined ? undefined : await restoreAndAttach(name, out);
    if (restored !== undefined) return restored;
    out.warn(`tai attach: ${fieldLines(messageOf(err))}\n`);
    return 1;
  }
  if (process.env.TAI_COCKPIT === card.name) {
    out.warn(`tai attach: this shell runs inside cockpit ${card.name} already; attach from another terminal\n`);
    return 1;
  }
  const bad = linkProblem(card);
  if (bad !== undefined || card.link === undefined) {
    out.warn(`tai attach: ${fieldLines(bad ?? 'no link')}\n`);
    return 1;
  }
  try {
    return await attachTerminal({
      link: card.link,
      name: card.name,
      readOnly: line.values['read-only'] === true,
      logPath: logPath(),
      say: (text) => out.warn(`${text}\n`),
    });
  } catch (err) {
    out.warn(`tai attach: cannot reach cockpit ${card.name}: ${messageOf(err)}\n`);
    return 1;
  }
}

/** Restores the stored cockpit `name` (its server started again) and attaches this terminal; undefined when there is none to restore. */
async function restoreAndAttach(name: string, out: CliOutput): Promise<number | undefined> {
  const [{ storedCockpit, restoreWanted }, { launchServer }, { attachTerminal }, { logPath }, { findCockpit, linkProblem }] = await Promise.all([
    import('../../io/restore/stored-cockpits.js'),
    import('../../io/link/server-launch.js'),
    import('../../io/link/native-client.js'),
    import('../../io/storage/log.js'),
    import('../../io/link/link-place.js'),
  ]);
  if (!restoreWanted(process.env, false)) return undefined;
  const stored = storedCockpit(process.env, name);
  if (stored === undefined) return undefined;
  if ('refused' in stored) {
    out.warn(`tai attach: ${fieldLines(stored.refused)}\n`);
    return 1;
  }
  const { cockpit } = stored.restore;
  out.warn(`tai attach: restoring cockpit ${field(name)} (ended, ${stored.restore.agents} agent${stored.restore.agents === 1 ? '' : 's'} to restore)\n`);
  const log = logPath();
  const ready = await launchServer({ command: 'cockpit', args: cockpit.argv, argv: cockpit.argv, name, cols: process.stdout.columns || 80, rows: process.stdout.rows || 24 }, process.env, log);
  let link = ready.ok ? ready.link : undefined;
  // Another tai attach restored it first (the name is claimed once): this terminal attaches to that one once it listens.
  if (!ready.ok && ready.error.includes('already running')) link = await linkWhenReady(() => findCockpit(name), linkProblem);
  if (link === undefined) {
    out.warn(`tai attach: ${fieldLines(ready.ok ? 'no link' : ready.error)}\n`);
    return 1;
  }
  return attachTerminal({ link, name, logPath: log, say: (text) => out.warn(`${text}\n`) });
}

/** How long a losing attach waits for the cockpit another attach restores to listen (its server's start). */
const RESTORED_WAIT_MS = 20_000;

/** The link of the cockpit `find` finds, once it accepts clients; undefined when it does not within RESTORED_WAIT_MS. */
async function linkWhenReady(find: () => CockpitCard, problem: (card: CockpitCard) => string | undefined): Promise<string | undefined> {
  const deadline = Date.now() + RESTORED_WAIT_MS;
  for (;;) {
    try {
      const card = find();
      if (card.link !== undefined && problem(card) === undefined) return card.link;
    } catch {
      // Not yet, or it failed to start: tried again until the deadline.
    }
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
}
