/**
 * `tai attach [NAME] [-r]`: attaches this terminal to a running cockpit (the
 * only one, or the one named), redrawn whole at this terminal's size; `-r`
 * read-only (only the prefix's detach is heard), for a second screen or a
 * phone over ssh. Exit: the cockpit's main program's code when it ends, 0
 * when detached, 1 when no such cockpit or the server vanished, 64 for a bad
 * line.
 */
import { messageOf } from '../core/errors.js';
import { readCommandLine, usageError } from './command-line.js';
import { fieldLines, processOutput, type CliOutput } from './output.js';

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
    import('../io/link/link-place.js'),
    import('../io/link/native-client.js'),
    import('../io/storage/log.js'),
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
