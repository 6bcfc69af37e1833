/**
 * `tai report [--json]`: the end-of-run report of every outage on the machine,
 * read from the state database (issue 6; the format is in docs/outages.md).
 * Exit 0, or 64 for a bad command line.
 */
import { parseArgs } from 'node:util';
import { formatReport, outageReport, reportJson } from '../io/outage/outage-report.js';
import { openStateDb } from '../io/storage/state-db.js';
import { USAGE_EXIT } from './command-line.js';
import { field, processOutput } from './output.js';
import { messageOf } from '../core/errors.js';

/** Runs `tai report ARGS`; returns the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  let json: boolean;
  try {
    json = parseArgs({ args: [...args], options: { json: { type: 'boolean' } } }).values.json === true;
  } catch (error) {
    processOutput.warn(`tai report: ${field(messageOf(error))}\nusage: tai report [--json]\n`);
    return USAGE_EXIT;
  }
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
