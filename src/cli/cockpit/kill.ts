/**
 * `tai kill NAME`: ends a running cockpit as its main program's exit would, and waits for it; one only listed to
 * restore is marked ended instead (docs/restore.md). Exit 0 ended, 1 no such cockpit or it did not end, 64 a bad line.
 */
import { messageOf } from '../../core/errors.js';
import { readCommandLine, usageError } from '../command-line.js';
import { fieldLines, processOutput, type CliOutput } from '../output.js';

const USAGE = 'usage: tai kill NAME\nEnds a running cockpit (tai ls lists them): its agents are stopped, softly then hard.\nOne listed as ended, to restore, is marked ended: it is not restored.\n';

const SPEC = { name: 'kill', usage: USAGE, options: {} } as const;

/** Runs `tai kill ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput): Promise<number> {
  const line = readCommandLine(SPEC, args, out);
  if (typeof line === 'number') return line;
  const [name, ...extra] = line.positionals;
  if (name === undefined) return usageError(SPEC, out, 'which cockpit? tai ls lists them');
  if (extra.length > 0) return usageError(SPEC, out, 'one cockpit at a time');
  const { findCockpit, linkProblem } = await import('../../io/link/link-place.js');
  const { killCockpit, killOneProcess } = await import('../../io/link/link-query.js');
  try {
    const card = findCockpit(name);
    if (card.link === undefined) {
      // Its end is asked for: a SIGTERM from tai kill is no crash, so nothing of it is restored (docs/restore.md).
      (await import('../../io/restore/stored-cockpits.js')).markEndedOnPurpose(process.env, card.pid, Date.now());
      await killOneProcess(card);
    }
    else {
      const bad = linkProblem(card);
      if (bad !== undefined) throw new Error(bad);
      await killCockpit({ ...card, link: card.link });
    }
    out.say(`cockpit ${card.name} ended (its agents are stopped)\n`);
    return 0;
  } catch (err) {
    // Not running, but listed to restore: tai kill NAME says it is not wanted (docs/restore.md).
    const { discardRestore } = await import('../../io/restore/stored-cockpits.js');
    const discarded = discardRestore(process.env, name, Date.now());
    if (discarded !== undefined) {
      out.say(`cockpit ${name} was not running; it is marked ended and will not be restored (the transcripts of its ${discarded.agents} agent${discarded.agents === 1 ? '' : 's'} stay: tai logs)\n`);
      return 0;
    }
    out.warn(`tai kill: ${fieldLines(messageOf(err))}\n`);
    return 1;
  }
}
