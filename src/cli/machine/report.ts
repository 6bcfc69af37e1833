/**
 * `tai report [--json]`: the end-of-run report of every outage on the machine,
 * read from the state database (the format is in docs/outages.md, "The report format").
 * Exit 0, or 64 for a bad command line.
 */
import { formatReport, outageReport, reportJson } from '../../io/outage/outage-report.js';
import { openStateDb } from '../../io/storage/state-db.js';
import { hostOutageJson, hostOutageLine, hostOutagesNow } from '../../io/host-holds/host-outage-view.js';
import { readCommandLine, usageError } from '../command-line.js';
import { processOutput } from '../output.js';

const SPEC = { name: 'report', usage: 'usage: tai report [--json]\n', options: { json: { type: 'boolean' } } } as const;

/** Runs `tai report ARGS`; returns the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const parsed = readCommandLine(SPEC, args, processOutput);
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length > 0) return usageError(SPEC, processOutput, `unexpected argument '${parsed.positionals[0]}'`);
  const json = parsed.values.json === true;
  const db = openStateDb();
  try {
    const entries = outageReport(db, Date.now());
    // The hosts waited for now (docs/remote.md): kept beside their connections, not in the database.
    const hosts = hostOutagesNow();
    if (json) processOutput.json([...(reportJson(entries) as unknown[]), ...hosts.map(hostOutageJson)]);
    else {
      const machine = entries.length === 0 && hosts.length > 0 ? `tai report: no outage of this machine; ${hosts.length} host${hosts.length === 1 ? '' : 's'} waited for now\n` : formatReport(entries);
      processOutput.say(machine + hosts.map((view) => `${hostOutageLine(view)}\n`).join(''));
    }
    return 0;
  } finally {
    db.close();
  }
}
