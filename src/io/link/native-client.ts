/**
 * The native client (src/native/client.c): the link-client.ts relay in C, so an echo skips Node's streams and loop
 * (docs/performance.md, "Optimisations that stay"). tai connects the link (a cockpit out of reach is refused as before),
 * hands the client the socket as fd 3 and reads the report on fd 4; from the launcher it execs the client instead
 * (it then execs `tai __farewell`). A client dead without a report leaves tai to write LEAVE and restore the modes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Farewell } from '../../core/protocol/link-frames.js';
import { builtNative } from '../agents/runners/reaper-binary.js';
import { handOver, launcherWaits } from '../launch/exec-plan.js';
import { LEAVE, writeNow } from '../terminal/terminal-modes.js';
import { attach, type AttachOptions } from './link-client.js';
import { brokenFarewell, DETACH_SIGNALS, farewellOf, sayFarewell, signalFarewell, silentFarewell } from './link-farewell.js';

/** Where the build puts the native client, relative to the package root. */
export const NATIVE_CLIENT = 'src/native/build/tai-client';

/** TAI_NATIVE_CLIENT makes no sense. */
export class NativeClientError extends Error {
  override readonly name = 'NativeClientError';
}

/** This package's built native client, when it is there and runnable. */
export function builtClient(): string | undefined {
  return builtNative(NATIVE_CLIENT);
}

/** The native client's binary for a TAI_NATIVE_CLIENT setting, given the built one; undefined: the node client. */
export function nativeClientFor(setting: string | undefined, built: string | undefined): string | undefined {
  if (setting === undefined || setting === '') return built;
  if (setting === '0') return undefined;
  if (isAbsolute(setting)) return setting;
  throw new NativeClientError(`TAI_NATIVE_CLIENT must be 0 or an absolute path, not '${setting}'`);
}

/**
 * Attaches this terminal to a cockpit with the native client when there is
 * one (and the terminal is this process's own), else with the node client;
 * resolves with the exit code.
 */
export async function attachTerminal(options: AttachOptions): Promise<number> {
  const binary = nativeClientFor(process.env['TAI_NATIVE_CLIENT'], builtClient());
  if (binary === undefined || options.stdin !== undefined || options.stdout !== undefined) return attach(options);
  if (launcherWaits() && handOver(handOverArgv(binary, options))) return 0;
  return attachNative(binary, options);
}

const CLI = fileURLToPath(new URL('../../cli.js', import.meta.url));

/**
 * The argv of a native client that runs in this process's place: it connects
 * the link itself, writes its report beside the link (the private socket
 * folder) and then becomes `tai __farewell REPORT NAME [LOG]`.
 */
export function handOverArgv(binary: string, options: AttachOptions): string[] {
  const report = join(dirname(options.link), `tai-farewell-${process.pid}-${Date.now()}`);
  const log = options.logPath === undefined || options.logPath === '' ? [] : [options.logPath];
  return [
    binary,
    '--link',
    options.link,
    '--report',
    report,
    ...(options.readOnly === true ? ['--read-only'] : []),
    '--then',
    process.execPath,
    CLI,
    '__farewell',
    report,
    options.name,
    ...log,
  ];
}

/** Runs the native client at `binary` on this process's terminal until the link ends. */
export async function attachNative(binary: string, options: AttachOptions): Promise<number> {
  const say = options.say ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const socket = await connectPaused(options.link);
  const args = ['--fd', '3', '--report-fd', '4', ...(options.readOnly === true ? ['--read-only'] : [])];
  // Passed on, not obeyed: the client detaches and restores the terminal; tai must outlive it to print and exit.
  // Listened for before the client starts: it may say hello (and be signalled) before this process runs again,
  // and a signal with no listener would end tai at once, leaving the client on the terminal.
  let child: ChildProcess | undefined;
  const pass = (signal: NodeJS.Signals): void => void child?.kill(signal);
  for (const s of DETACH_SIGNALS) process.on(s, pass);
  try {
    child = spawn(binary, args, { stdio: ['inherit', 'inherit', 'inherit', socket, 'pipe'] });
  } catch {
    // Node throws (rather than emits) the errors it does not expect of a spawn: the node client attaches instead.
    for (const s of DETACH_SIGNALS) process.off(s, pass);
    socket.destroy();
    return attach(options);
  }
  const started = child;
  // The client has its own copy of the socket; tai's would only keep the link open after the client is gone.
  socket.destroy();
  const report: Buffer[] = [];
  started.stdio[4]?.on('data', (chunk: Buffer) => report.push(chunk));
  const words = await new Promise<Farewell | 'not started'>((resolve) => {
    started.once('error', () => resolve('not started'));
    started.once('close', (code, signal) => {
      const told = readReport(Buffer.concat(report).toString('utf8'), options);
      if (told !== undefined) return resolve(told);
      // A binary the kernel will not run (built for another machine: ENOEXEC) is run by execvp with /bin/sh,
      // which exits 126 or 127 without a report before the client ever touched the terminal.
      if (signal === null && (code === 126 || code === 127)) return resolve('not started');
      // Killed before it could restore the terminal: tai does, and its exit puts the modes back (ResetStdio in node.cc).
      writeNow(1, LEAVE);
      resolve({ code: 1, message: `the client of cockpit ${options.name} ended ${signal === null ? `with ${String(code)}` : `by ${signal}`}; tai attach ${options.name} comes back` });
    });
  });
  for (const s of DETACH_SIGNALS) process.off(s, pass);
  // A binary that cannot run here (built for another machine): the node client attaches instead.
  if (words === 'not started') return attach(options);
  return sayFarewell(words, say);
}

/** The farewell the client's report tells (client.c, "report"), or undefined when there is none. */
export function readReport(text: string, options: Pick<AttachOptions, 'name' | 'logPath'>): Farewell | undefined {
  const cut = text.indexOf('\n');
  if (cut < 0) return undefined;
  const how = text.slice(0, cut);
  const body = text.slice(cut + 1);
  if (how === 'frame x' || how === 'frame d') return farewellOf(parsed(body));
  if (how === 'closed') return silentFarewell(options.name, options.logPath);
  if (how === 'broke') return brokenFarewell(options.name, body);
  const signal = DETACH_SIGNALS.find((s) => how === `signal ${s}`);
  return signal === undefined ? undefined : signalFarewell(options.name, signal);
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/** A connection to the link that this process never reads from: the client reads it. */
function connectPaused(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    // Paused before it connects: Node starts reading a connected socket unless it is paused.
    socket.pause();
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}
