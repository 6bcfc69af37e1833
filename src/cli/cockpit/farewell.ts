/**
 * `tai __farewell REPORT NAME [LOG]`: what the native client becomes once it
 * has restored the terminal, when it ran in tai's place (src/bin/tai,
 * src/io/launch/exec-plan.ts): reads the client's report, removes it, prints
 * the farewell as tai attach would and exits with its code.
 */
import { readFileSync, rmSync } from 'node:fs';
import { sayFarewell } from '../../io/link/link-farewell.js';
import { readReport } from '../../io/link/native-client.js';
import { processOutput } from '../output.js';

/** Runs `tai __farewell ARGS`; returns the farewell's exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const [report, name, logPath] = args;
  if (report === undefined || name === undefined) {
    processOutput.warn('usage: tai __farewell REPORT NAME [LOG] (run by the native client, not by hand)\n');
    return 64;
  }
  let text = '';
  try {
    text = readFileSync(report, 'utf8');
  } catch {
    // No report: said below.
  }
  rmSync(report, { force: true });
  const words = readReport(text, { name, logPath }) ?? { code: 1, message: `the client of cockpit ${name} ended without a report; tai attach ${name} comes back` };
  return sayFarewell(words, (line) => processOutput.warn(`${line}\n`));
}
