/**
 * `tai net [--] CMD ARGS...`: a network step that waits an outage out instead of failing (docs/outages.md, "The
 * commands"). CMD's stderr passes through and is kept for the classifier; a lost network joins the machine's
 * outage and runs CMD again once back; anything else passes through with CMD's exit code (69: gave up, 130:
 * Ctrl-C, 64: bad command line).
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { constants } from 'node:os';
import { classify, outageServiceOf } from '../../core/outage/classify.js';
import { notifyGiveUp } from '../../io/outage/notify.js';
import { log, outageTimeScale, reportFailure } from '../../io/outage/outage-store.js';
import { waitOutOutage } from '../../io/outage/outage-wait.js';
import { defaultProbes } from '../../io/outage/probes.js';
import { openStateDb, type StateDb } from '../../io/storage/state-db.js';
import { OUTAGE_GAVE_UP_EXIT, noProbeHint, progressLine } from './outage.js';
import { readCommandLine, usageError } from '../command-line.js';
import { field, processOutput } from '../output.js';

/** The end of CMD's stderr kept for the classifier (the deciding line is near the end). */
const STDERR_KEEP = 64 * 1024;

/** `tai net` exits with this when CMD could not be started (as a shell does). */
export const NET_NOT_FOUND_EXIT = 127;

/** `tai net` exits with this when Ctrl-C ended its wait (128 + SIGINT). */
export const NET_INTERRUPTED_EXIT = 130;

/** How one run of CMD ended. */
interface StepRun {
  readonly code: number;
  readonly stderr: string;
}

const SPEC = {
  name: 'net',
  usage:
    'usage: tai net [--] CMD ARGS...\n' +
    'Runs CMD; when it fails for a lost network, waits the outage out (docs/outages.md) and runs it again.\n' +
    "Options of tai net come before CMD; everything from CMD on (or after --) is CMD's own.\n",
  options: {},
  command: true,
} as const;

/** Runs `tai net ARGS`; returns the exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const parsed = readCommandLine(SPEC, args, processOutput);
  if (typeof parsed === 'number') return parsed;
  const argv = parsed.command;
  const [program] = argv;
  if (program === undefined) return usageError(SPEC, processOutput, 'a command to run is needed');
  const step = argv.join(' ');
  let db: StateDb | undefined;
  try {
    let waitedOn: number | undefined;
    for (;;) {
      const { code, stderr } = await runStep(argv);
      if (code === 0) {
        if (waitedOn !== undefined && db !== undefined) {
          log(db, { at: Date.now(), kind: 'net-done', service: 'network', outageId: waitedOn, detail: step });
        }
        return 0;
      }
      const verdict = classify({ stderr, exitCode: code, command: program }, Date.now());
      const service = outageServiceOf(verdict);
      if (service === undefined) {
        if (verdict.kind === 'rate_limit') {
          const reset = verdict.resetAt === undefined ? '' : `; it resets at ${new Date(verdict.resetAt).toISOString()}`;
          processOutput.warn(`tai net: a rate limit, not an outage: ${field(verdict.detail)}${reset}\n`);
        }
        if (waitedOn !== undefined && db !== undefined) {
          log(db, { at: Date.now(), kind: 'net-failed', service: 'network', outageId: waitedOn, detail: `${step}: exit ${code}: ${verdict.detail}` });
        }
        return code;
      }
      db ??= openStateDb();
      const { outage, opened } = reportFailure(db, service, `${program}: ${verdict.detail}`, Date.now(), outageTimeScale());
      log(db, { at: Date.now(), kind: 'net-wait', service, outageId: outage.id, detail: step });
      processOutput.warn(
        `tai net: ${service === 'network' ? 'the network is lost' : 'the model service is down'} (${field(verdict.detail)}); ` +
          `${opened ? 'opened' : 'joined'} outage #${outage.id}\n`,
      );
      const probes = defaultProbes();
      if (probes(service) === undefined) processOutput.warn(`tai net: ${noProbeHint(service)}\n`);
      // Ctrl-C while waiting leaves the step undone, on the record; while CMD runs, CMD gets it.
      const interrupt = new AbortController();
      const onSigint = (): void => interrupt.abort();
      process.once('SIGINT', onSigint);
      const end = await waitOutOutage(
        {
          db,
          probes,
          signal: interrupt.signal,
          onProgress: (current) => processOutput.warn(`tai net: ${progressLine(current, Date.now())}\n`),
        },
        outage.id,
      ).finally(() => process.removeListener('SIGINT', onSigint));
      if (end.kind === 'aborted') {
        log(db, { at: Date.now(), kind: 'net-left', service, outageId: outage.id, detail: `${step} (interrupted)` });
        processOutput.warn(`tai net: interrupted while waiting; not run: ${field(step)}\n`);
        return NET_INTERRUPTED_EXIT;
      }
      if (end.kind === 'gave-up') {
        log(db, { at: Date.now(), kind: 'net-left', service, outageId: outage.id, detail: step });
        await notifyGiveUp(db, end.outage, { now: Date.now(), terminal: processOutput.notifier() });
        processOutput.warn(`tai net: gave up waiting (outage #${outage.id}); not run: ${field(step)}\n`);
        return OUTAGE_GAVE_UP_EXIT;
      }
      waitedOn = outage.id;
      processOutput.warn(`tai net: ${service} is back; running again: ${field(step)}\n`);
    }
  } finally {
    db?.close();
  }
}

/** Runs CMD once: stdin and stdout shared, stderr passed through and kept. */
function runStep(argv: readonly string[]): Promise<StepRun> {
  const [file, ...rest] = argv;
  return new Promise((resolve) => {
    let stderr = '';
    const decoder = new StringDecoder('utf8');
    const child = spawn(file ?? '', rest, { stdio: ['inherit', 'inherit', 'pipe'] });
    child.stderr.on('data', (chunk: Buffer) => {
      const text = decoder.write(chunk);
      processOutput.passStderr(text);
      stderr = (stderr + text).slice(-STDERR_KEEP);
    });
    child.on('error', (error) => {
      processOutput.warn(`tai net: could not run ${field(file ?? '')}: ${field(error.message)}\n`);
      resolve({ code: NET_NOT_FOUND_EXIT, stderr: '' });
    });
    child.on('close', (code, signal) => {
      const rest = decoder.end();
      if (rest !== '') processOutput.passStderr(rest);
      const bySignal = signal === null ? undefined : constants.signals[signal];
      resolve({ code: code ?? 128 + (bySignal ?? 0), stderr });
    });
  });
}
