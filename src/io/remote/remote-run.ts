/**
 * The local side of a remote agent, the program the `command` runner runs for `tai spawn --host`: ssh in a group
 * of its own, so the runner's soft stop becomes a `stop` line for the host's reaper, not the connection's end. A
 * lost connection is an outage of the host, not the agent's end: held, then a new session reads on from the
 * bytes it has (docs/remote.md, "A lost link: an outage of the host, then a reattach").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ORCH_IDLE_WARN } from '../../core/policy.js';
import { attachCommandLine, JOB_MADE_MARK, namedStartLine, REMOTE_BEAT_S, REMOTE_SPOOL_BYTES } from '../../core/remote/remote-reaper.js';
import { SessionDecoder, SpoolOffsets, type SessionItem, type SpoolStream } from '../../core/remote/spool-frames.js';
import { clearHold, writeHold, type HostHold } from '../host-holds/host-holds.js';
import { hostOutageFile, waitForHost, type HostOutage } from './host-outage.js';
import { lastLine } from './ssh-run.js';

/** This file, as the runner's argv names it (the built one under dist/). */
export const REMOTE_RUN_SCRIPT = fileURLToPath(import.meta.url);

/** Exit codes by signal, as a shell reports them. */
const SIGNAL_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGKILL: 137, SIGTERM: 143 };

/** The exit code when the agent's job cannot be followed any more (gone from the host, or the wait gave up). */
export const REMOTE_LOST_EXIT = 255;

const STREAM_NAME: Record<SpoolStream, string> = { o: 'stdout', e: 'stderr' };

/** One remote agent's link: the current ssh session and what outlives it. */
interface Link {
  readonly host: string;
  readonly ssh: readonly string[];
  /** The job's name on the host, chosen here (its folder is known before the host answers). */
  readonly job: string;
  /** The host's lost grace in seconds, when known: it stops the agent itself that long after the link is lost. */
  readonly graceS: number | undefined;
  /** The host made the job's folder (its reaper said so on stderr): a lost first session can be attached to. */
  made: boolean;
  /** While waiting for the host: the hold as written for the cockpit. */
  hold?: HostHold;
  /** The exit code of the stop asked for, once one was. */
  stopCode?: number;
  /** Sessions started so far (the first, then each attach). */
  sessions: number;
  readonly offsets: SpoolOffsets;
  readonly inputs: string[];
  inputEnded: boolean;
  stopAsked: boolean;
  /** The job's folder on the host, once a session began. */
  dir?: string;
  child?: ChildProcess;
  begun: boolean;
  waiting: boolean;
  finished: boolean;
  /** The agent's exit code, once its exit frame came and was acknowledged: this side ends when ssh has carried the ack. */
  exited?: number;
  readonly told: Set<string>;
  /** The agent's stderr after its last newline: held so a note of ours never splits one of its lines. */
  errPartial: Buffer;
}

/** What the caller knows besides the argv. */
export interface RemoteRunOptions {
  /** The host's lost grace in seconds (what the reaper was started with), for the pending stop's words. */
  readonly graceS?: number;
}

/** A name for this agent's job on the host: unique enough across tais and hosts, letters and digits only. */
function jobName(): string {
  return `j${Date.now().toString(36)}${process.pid.toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

/** Runs the wrapper: `HOST -- ssh ARGS... START-COMMAND-LINE`. */
export function main(args: readonly string[], options: RemoteRunOptions = {}): void {
  const given = args.slice(args.indexOf('--') + 1);
  if (args[1] !== '--' || given.length < 2) {
    process.stderr.write('tai: usage: remote-run HOST -- ssh ARGS... COMMAND-LINE\n');
    process.exit(64);
  }
  const job = jobName();
  const ssh = [...given.slice(0, -1), namedStartLine(given.at(-1) ?? '', job)];
  const link: Link = {
    host: args[0] ?? '',
    ssh,
    job,
    graceS: options.graceS,
    made: false,
    sessions: 0,
    offsets: new SpoolOffsets(),
    inputs: [],
    inputEnded: false,
    stopAsked: false,
    begun: false,
    waiting: false,
    finished: false,
    told: new Set(),
    errPartial: Buffer.alloc(0),
  };
  const beat = setInterval(() => send(link, '.'), REMOTE_BEAT_S * 1000);
  beat.unref();
  forwardStdin(link);
  // A runner that stops reading (an ACP session closed at its turn's end) must not end this side by EPIPE
  // before the host's exit frame: the job's end is still followed and acknowledged, its last bytes dropped.
  for (const out of [process.stdout, process.stderr]) out.on('error', () => {});
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => stopAsked(link, SIGNAL_CODES[sig] ?? 1));
  connect(link, ssh);
}

/**
 * The runner's soft stop: a `stop` line to the host's reaper or, while the link is down, said in the panel, kept
 * in the hold and sent at the reattach (the host's grace stops the agent if tai never gets back).
 */
function stopAsked(link: Link, code: number): void {
  const first = !link.stopAsked;
  link.stopAsked = true;
  link.stopCode ??= code;
  if (!link.waiting) {
    if (send(link, 'stop')) link.told.add('stop.sent');
    return;
  }
  if (!first) return;
  const hostStopsAt = link.hold?.hostStopsAt;
  const within = hostStopsAt === undefined ? 'after its grace' : `within about ${Math.max(0, Math.ceil((hostStopsAt - Date.now()) / 1000))} s`;
  note(`tai: stopping: ${link.host} does not answer; the agent is stopped when it does, or by the host itself ${within}`);
  if (link.hold !== undefined) hold(link, { ...link.hold, stopPending: true });
}

/** Writes the hold for the cockpit (a state folder that cannot be written loses only the panel's held state). */
function hold(link: Link, value: HostHold): void {
  link.hold = value;
  try {
    writeHold(value);
  } catch (err) {
    note(`tai: cannot record the wait for ${link.host} (${(err as Error).message}); the panel is not shown as held`);
  }
}

function unhold(link: Link): void {
  if (link.hold === undefined) return;
  link.hold = undefined;
  clearHold(process.pid);
}

/** Starts one ssh session (the first, or an attach) and follows it. */
function connect(link: Link, argv: readonly string[]): void {
  const [file, ...rest] = argv;
  const child = spawn(file ?? 'ssh', rest, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const decoder = new SessionDecoder();
  let sshErr = '';
  link.child = child;
  link.begun = false;
  link.sessions += 1;
  child.stdin?.on('error', () => {});
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const item of decoder.push(chunk)) take(link, item);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    let text = sshErr + chunk.toString('utf8');
    // The reaper's word that the job's folder exists: said on stderr before any output, so a cut before the begin line can be attached to.
    if (text.includes(`${JOB_MADE_MARK}\n`)) {
      link.made = true;
      text = text.split(`${JOB_MADE_MARK}\n`).join('');
    }
    sshErr = text.slice(-4096);
  });
  child.on('error', (err) => {
    process.stderr.write(`tai: cannot run ssh for ${link.host}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('close', (code, signal) => {
    for (const item of decoder.end()) take(link, item);
    if (link.finished || link.child !== child || link.exited !== undefined) return;
    const status = code ?? (signal ? (SIGNAL_CODES[signal] ?? 128) : 1);
    if (link.dir === undefined && !link.made) {
      // The job was never made on the host: ssh's own word (or the host's) is the whole story.
      process.stderr.write(sshErr.split(JOB_MADE_MARK).join(''));
      if (status === 255 && !link.stopAsked) note(`tai: the ssh connection to ${link.host} failed (exit 255); see what it lacks with: tai hosts check ${link.host}`);
      return finish(link, status);
    }
    // A stop the host had (it ends the agent, and ssh's end after it is the hard stop's); one never sent waits for the host.
    if (link.told.has('stop.sent')) return finish(link, status);
    void waitAndAttach(link, lastLine(sshErr) || `ssh exited ${status}`);
  });
}

/** One item of the session's stream. */
function take(link: Link, item: SessionItem): void {
  switch (item.kind) {
    case 'banner':
      return once(link, 'banner', `tai: ${link.host} printed ${item.bytes.length} bytes before the agent's output (its login shell's startup files?); they are left out of the output: ${JSON.stringify(item.bytes.toString('utf8').slice(0, 60))}`);
    case 'garbage':
      return note(`tai: ${link.host} sent ${item.bytes.length} bytes outside the agent's output; they are left out`);
    case 'begin':
      return begin(link, item);
    case 'data': {
      const { fresh, missing } = link.offsets.accept(item.stream, item.offset, item.bytes);
      if (missing > 0) note(`tai: ${missing} bytes of the agent's ${STREAM_NAME[item.stream]} never reached tai (the host skipped them)`);
      return item.stream === 'o' ? void process.stdout.write(fresh) : agentStderr(link, fresh);
    }
    case 'full':
      return once(link, `full.${item.stream}`, fullNote(link, item.stream));
    case 'exit':
      send(link, 'ack');
      link.child?.stdin?.end();
      for (const stream of ['o', 'e'] as const) if (link.told.has(`full.${stream}`)) note(fullNote(link, stream));
      return acknowledged(link, item.code);
    case 'gone':
      if (link.dir === undefined) {
        note(`tai: the agent's job is no longer on ${link.host}: the link was lost as it started, and it ended or the host stopped it after its grace before tai read any of its output`);
        return finish(link, link.stopCode ?? REMOTE_LOST_EXIT);
      }
      if (link.stopAsked) {
        note(`tai: the agent on ${link.host} was stopped by the host itself (its grace ran out before the link was back); what it wrote after the ${link.offsets.have('o')} bytes shown is lost`);
        return finish(link, link.stopCode ?? REMOTE_LOST_EXIT);
      }
      note(`tai: the agent's job is no longer on ${link.host}: the host stopped it after its grace without tai; what it wrote after the ${link.offsets.have('o')} bytes shown is lost`);
      return finish(link, REMOTE_LOST_EXIT);
  }
}

function fullNote(link: Link, stream: SpoolStream): string {
  return `tai: the agent's ${STREAM_NAME[stream]} filled its spool on ${link.host} (${REMOTE_SPOOL_BYTES / 1024 / 1024} MiB, or TAI_REMOTE_SPOOL_BYTES there): all ${link.offsets.have(stream)} bytes before it are shown; its further writes wait on the host until it is stopped`;
}

/** How long ssh may take to carry the exit frame's acknowledgement to the host before this side ends anyway. */
const ACK_CARRY_MS = 5_000;

/**
 * The exit frame acknowledged: this side ends once ssh has (the host read the ack and drops the job's folder), or
 * after ACK_CARRY_MS; ending at once let the reaper kill ssh before it sent the ack, and the host kept the folder
 * (docs/remote.md, "The reaper on the host: the POSIX `sh` path").
 */
function acknowledged(link: Link, code: number): void {
  const child = link.child;
  link.exited = code;
  if (!child || child.exitCode !== null || child.signalCode !== null) return finish(link, code);
  const timer = setTimeout(() => finish(link, code), ACK_CARRY_MS);
  child.once('close', () => {
    clearTimeout(timer);
    finish(link, code);
  });
}

/** A session began: the stdin lines the host lacks, and a stop asked for while the link was down. */
function begin(link: Link, item: Extract<SessionItem, { kind: 'begin' }>): void {
  const again = link.sessions > 1;
  link.dir = item.dir;
  link.begun = true;
  if (again) note(`tai: reattached to the agent on ${link.host}; reading on from byte ${link.offsets.have('o')} of its output`);
  // The hold ends once the agent can be reached again: a stop that waited gets its whole grace from here.
  unhold(link);
  for (const line of link.inputs.slice(item.inputLines)) send(link, `i${line}`);
  if (link.inputEnded && !item.inputEnded) send(link, 'e');
  if (link.stopAsked) {
    if (again) note(`tai: delivering the stop asked while ${link.host} did not answer`);
    if (send(link, 'stop')) link.told.add('stop.sent');
  }
}

/** The connection is lost: held, wait for the host on the shared schedule, then attach a new session to the same job. */
async function waitAndAttach(link: Link, why: string): Promise<void> {
  const lostAt = Date.now();
  link.begun = false;
  link.waiting = true;
  hold(link, {
    host: link.host,
    pid: process.pid,
    since: lostAt,
    outageFile: hostOutageFile(link.host),
    ...(link.stopAsked ? { stopPending: true } : {}),
    ...(link.graceS === undefined ? {} : { hostStopsAt: lostAt + link.graceS * 1000 }),
  });
  note(`tai: lost the link to ${link.host} (${why}); the agent goes on there; waiting for the host (outage of ssh://${link.host})`);
  let latest: HostOutage | undefined;
  const nextAt = (outage: HostOutage): string => `${new Date(outage.nextProbeAt).toISOString().slice(11, 19)} UTC`;
  const tell = (outage: HostOutage): void => {
    latest = outage;
    note(`tai: waiting for ${link.host}: ${outage.attempts === 0 ? 'first' : `${outage.attempts} failed, next`} probe at ${nextAt(outage)}${outage.detail === undefined ? '' : ` (${outage.detail})`}`);
  };
  // The wait is said while it lasts, so the panel's idle clock does not take it for the agent's silence.
  const still = setInterval(() => note(`tai: still waiting for ${link.host}${latest === undefined ? '' : `: next probe at ${nextAt(latest)}`}`), ORCH_IDLE_WARN / 2);
  const end = await waitForHost(link.host, lostAt, { tell }).finally(() => clearInterval(still));
  if (link.finished) return;
  link.waiting = false;
  if (end.kind === 'gave-up') {
    note(`tai: gave up waiting for ${link.host} (${end.outage.attempts} probes); the host stops the agent itself after its grace`);
    return finish(link, REMOTE_LOST_EXIT);
  }
  note(`tai: ${link.host} answers again; reattaching to the agent`);
  connect(link, [...link.ssh.slice(0, -1), attachCommandLine(link.dir ?? link.job, link.offsets.have('o'), link.offsets.have('e'))]);
}

/** A control line to the current session, once it began (before, it waits: the begin line says what the host has); true when written. */
function send(link: Link, line: string): boolean {
  const stdin = link.child?.stdin;
  if (!link.begun || !stdin || stdin.destroyed || stdin.writableEnded) return false;
  stdin.write(`${line}\n`);
  return true;
}

/** The agent's stderr: whole lines through, the partial last one held. */
function agentStderr(link: Link, bytes: Buffer): void {
  const all = Buffer.concat([link.errPartial, bytes]);
  const cut = all.lastIndexOf(0x0a) + 1;
  if (cut > 0) process.stderr.write(all.subarray(0, cut));
  link.errPartial = all.subarray(cut);
}

/** A line of tai's own on stderr, between the agent's whole stderr lines (its partial one is held). */
function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

function once(link: Link, key: string, text: string): void {
  if (link.told.has(key)) return;
  link.told.add(key);
  note(text);
}

function finish(link: Link, code: number): void {
  if (link.finished) return;
  link.finished = true;
  unhold(link);
  if (link.errPartial.length > 0) process.stderr.write(link.errPartial);
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** This process's stdin (the prompt, steering lines), kept for a reattach and sent as `i` lines, then `e` at its end. */
function forwardStdin(link: Link): void {
  let partial = '';
  process.stdin.setEncoding('utf8');
  const line = (text: string): void => {
    link.inputs.push(text);
    send(link, `i${text}`);
  };
  process.stdin.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) line(text);
  });
  const end = (): void => {
    if (link.inputEnded) return;
    if (partial !== '') line(partial);
    link.inputEnded = true;
    send(link, 'e');
  };
  process.stdin.on('end', end);
  process.stdin.on('error', end);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
