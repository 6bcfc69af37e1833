/**
 * The probes that decide whether an outage is over, each testing only what failed (docs/outages.md, "The model").
 * A probe runs in its own process group, killed whole past its timeout (git has no connect timeout). The default
 * git probe counts a refusal the classifier does not call a lost network (bad credentials, no such repository)
 * as the remote answering: the network is back.
 */
import { spawn, spawnSync } from 'node:child_process';
import { classify, type OutageService } from '../../core/outage/classify.js';
import { isNetworkRemote } from '../../core/outage/remote-url.js';

/** A probe gets this long before its process group is killed and it counts as failed. */
export const PROBE_TIMEOUT_MS = 30_000;

/** A probe's output is kept up to this many characters (its last line is the detail). */
const PROBE_OUTPUT_MAX = 4_096;

/** The outcome of one probe. */
export interface ProbeOutcome {
  readonly ok: boolean;
  /** What decided: "exit 0", the last line the command printed, or the timeout. */
  readonly detail: string;
}

/** One probe, ready to run; `undefined` from a ProbeSource means no probe is configured. */
export type Probe = () => Promise<ProbeOutcome>;

/** Finds the probe for a service, or says there is none (the outcome then comes by hand). */
export type ProbeSource = (service: OutageService) => Probe | undefined;

/**
 * A command a probe runs: an argv, or a command line given to `/bin/sh -c`;
 * `answerIsOk` counts a failure the classifier does not call a lost network as success.
 */
export type ProbeCommand = ({ readonly argv: readonly string[] } | { readonly shell: string }) & { readonly answerIsOk?: boolean };

/** Where the probes run and what configures them. */
export interface ProbeOptions {
  /** The repository whose remote the default network probe reads. */
  readonly cwd?: string;
  /** `TAI_NETWORK_PROBE` and `TAI_MODEL_PROBE` are read from here. */
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** The network probe's command: `TAI_NETWORK_PROBE`, else `git ls-remote REMOTE HEAD`, else none (no remote). */
export function networkProbeCommand(options: ProbeOptions = {}): ProbeCommand | undefined {
  const configured = (options.env ?? process.env)['TAI_NETWORK_PROBE'];
  if (configured !== undefined && configured.trim() !== '') return { shell: configured };
  const remote = defaultRemote(options.cwd ?? process.cwd());
  return remote === undefined ? undefined : { argv: ['git', 'ls-remote', '--quiet', remote, 'HEAD'], answerIsOk: true };
}

/** The model probe's command: the canary in `TAI_MODEL_PROBE`, or none. */
export function modelProbeCommand(options: ProbeOptions = {}): ProbeCommand | undefined {
  const configured = (options.env ?? process.env)['TAI_MODEL_PROBE'];
  return configured !== undefined && configured.trim() !== '' ? { shell: configured } : undefined;
}

/** The machine's probes: each service's configured command, run with the timeout. */
export function defaultProbes(options: ProbeOptions = {}): ProbeSource {
  return (service) => {
    const command = service === 'network' ? networkProbeCommand(options) : modelProbeCommand(options);
    if (command === undefined) return undefined;
    return () => runProbe(command, options);
  };
}

/** Runs one probe command in its own process group; exit 0 is success, a timeout kills the group and fails. */
export function runProbe(command: ProbeCommand, options: ProbeOptions = {}): Promise<ProbeOutcome> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const [file, ...args] = 'shell' in command ? ['/bin/sh', '-c', command.shell] : command.argv;
  if (file === undefined) return Promise.resolve({ ok: false, detail: 'the probe command is empty' });
  return new Promise((resolve) => {
    let output = '';
    let timedOut = false;
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-PROBE_OUTPUT_MAX);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, detail: `the probe could not start: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ ok: false, detail: `no answer within ${timeoutMs} ms` });
      if (code === 0) return resolve({ ok: true, detail: 'exit 0' });
      const last = output.trim().split('\n').at(-1)?.trim() ?? '';
      const how = code === null ? `killed by ${signal ?? 'a signal'}` : `exit ${code}`;
      const detail = last === '' ? how : `${how}: ${last}`;
      if (command.answerIsOk === true && code !== null && classify({ stderr: output, exitCode: code, command: file }).kind !== 'network') {
        return resolve({ ok: true, detail: `the remote answered (${detail})` });
      }
      resolve({ ok: false, detail });
    });
  });
}

/** Kills a probe's whole process group, ignoring one that is already gone. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone: nothing to kill.
  }
}

/**
 * The default probe's remote: `origin`, else the first, among remotes that cross the network (a path or a
 * `file://` remote answers without it).
 */
function defaultRemote(cwd: string): string | undefined {
  const listed = spawnSync('git', ['remote', '-v'], { cwd, encoding: 'utf8', timeout: 5_000 });
  if (listed.status !== 0) return undefined;
  const remotes = new Set<string>();
  for (const line of listed.stdout.split('\n')) {
    const [name, url, use] = line.trim().split(/\s+/);
    if (name !== undefined && url !== undefined && use === '(fetch)' && isNetworkRemote(url)) remotes.add(name);
  }
  return remotes.has('origin') ? 'origin' : [...remotes][0];
}
