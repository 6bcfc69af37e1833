/**
 * `tai report [--json]`: the end-of-run report of every outage on the machine,
 * read from the state database (issue 6; the format is in docs/outages.md).
 * Exit 0, or 64 for a bad command line.
 */
import { formatReport, outageReport, reportJson } from '../io/outage/outage-report.js';
import { openStateDb } from '../io/storage/state-db.js';
import { readCommandLine, usageError } from './command-line.js';
import { processOutput } from './output.js';

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
    if (json) processOutput.json(reportJson(entries));
    else processOutput.say(formatReport(entries));
    return 0;
  } finally {
    db.close();
  }
}
