/**
 * The folder `src/cli/cockpit/`: running cockpits, their server, and the ways in. This file: `tai [-s NAME] [-- CMD
 * ARGS]`, the cockpit with `$SHELL` (or CMD) in the main pane; the main program's exit code, or a refusal's (127, 64,
 * 1: a dumb terminal). On a terminal it is a background server with this process its first client (src/io/link/),
 * so the terminal can close and the agents go on; undrawn or TAI_SERVER=0, it runs here.
 */
import type { CockpitMainOptions } from '../../io/cockpit/cockpit-main.js';
import type { CockpitTerminal } from '../../io/cockpit/cockpit-terminal.js';
import type { RunningCockpit } from '../../io/cockpit/cockpit-types.js';
import type { ServerConfig } from '../../io/link/server-launch.js';
import { dirname, join } from 'node:path';
import { StartRefusedError } from '../../core/errors.js';
import { leanImport } from '../../io/lean-import.js';
import { idleCollection } from '../../io/idle-collect.js';
import { field, processOutput } from '../output.js';

/** How the cockpit was asked for, so that a server can run the same command. */
export interface CockpitRequest {
  readonly command: ServerConfig['command'];
  readonly args: readonly string[];
  /** The main program (for the cockpit's card and `tai ls`). */
  readonly argv: readonly string[];
  /** -s NAME. */
  readonly name?: string;
  /** --wake (docs/lead.md, "Waking an idle lead"). */
  readonly wake?: boolean;
  /** --no-restore (docs/restore.md). */
  readonly noRestore?: boolean;
}

/** Set by `tai __server` (src/cli/cockpit/server.ts): the cockpit runs in this process, drawn on the link's clients. */
export interface Serving {
  readonly terminal: CockpitTerminal;
  readonly name: string;
  /** The cockpit runs: the server says it is ready. */
  started(cockpit: RunningCockpit, control: string | undefined): void;
}

let serving: Serving | undefined;

/** Makes the next cockpit of this process the server's (called once, by `tai __server`). */
export function serveHere(s: Serving): void {
  serving = s;
}

/** Runs the cockpit until the main program exits. */
export async function run(args: readonly string[], name?: string, wake = false, noRestore = false): Promise<number> {
  const env = { ...process.env }; // the main program gets the user's environment, not ours
  const lead = { ...(wake ? { wake: true } : {}), ...(noRestore ? { noRestore: true } : {}) };
  return runCockpitCommand({ argv: args, env, ...lead }, { command: 'cockpit', args, argv: args, ...(name === undefined ? {} : { name }), ...lead });
}

/** True when this cockpit should be a server with this process its client. */
function wantsServer(env: NodeJS.ProcessEnv): boolean {
  return process.stdout.isTTY === true && process.stdin.isTTY === true && env.TAI_ORCH_PANELS !== '0' && env.TAI_SERVER !== '0' && env.TERM !== 'dumb';
}

/** Runs a cockpit for a subcommand: as a server and its client on a terminal, else here; a main program that cannot start said so (127). */
export async function runCockpitCommand(options: CockpitMainOptions, request: CockpitRequest): Promise<number> {
  try {
    if (request.name !== undefined) {
      const { badName } = await import('../../io/link/link-place.js');
      const bad = badName(request.name);
      if (bad !== null) throw new StartRefusedError(`tai: ${bad}`, 64);
    }
    if (serving === undefined && wantsServer(options.env)) return await runAsClient(options, request);
    // React's development build adds performance.measure calls to every render.
    process.env.NODE_ENV ??= 'production';
    // Ink loaded without what it would keep for nothing: undici, React's development builds (src/io/lean-import.ts).
    const { runCockpit } = await leanImport(() => import('../../io/cockpit/cockpit-main.js'));
    // Start-up (loading Ink, React, yoga, xterm.js) grows V8's new space as streaming does:
    // given back once the cockpit has been quiet a while, when gc is exposed (SERVER_NODE_FLAGS).
    idleCollection.activity();
    const here = serving;
    if (here === undefined) return await runCarded(options, request, runCockpit);
    return await runCockpit({
      ...options,
      name: here.name,
      terminal: here.terminal,
      started: (cockpit, control) => {
        options.started?.(cockpit, control);
        here.started(cockpit, control);
      },
    });
  } catch (err) {
    // Refused before the screen was taken over: the main program, the prefix key, the terminal.
    if (!(err instanceof StartRefusedError)) throw err;
    processOutput.warn(`${field(err.message)}\n`);
    return err.exitCode;
  }
}

/**
 * A cockpit in one process, under a card like a server's (link-place.ts) but without a link, so `tai ls`, `-t
 * NAME` and `tai kill` find it. Its name is claimed first (taken: exit 1, as a server's); an unwritable card is
 * logged and the cockpit runs.
 */
async function runCarded(options: CockpitMainOptions, request: CockpitRequest, runCockpit: (o: CockpitMainOptions) => Promise<number>): Promise<number> {
  const [place, { claimSocketPlace, socketDir }, { mainArgv }, { fileLogger, logPath }] = await Promise.all([
    import('../../io/link/link-place.js'),
    import('../../io/socket/socket-path.js'),
    import('../../io/cockpit/main/main-program.js'),
    import('../../io/storage/log.js'),
  ]);
  const log = options.log ?? fileLogger(logPath(options.env));
  let card: { readonly path: string; readonly name: string } | undefined;
  const argv = mainArgv(request.argv, options.env);
  const base = { name: request.name ?? place.baseName(argv), pid: process.pid, ...place.ownStart(), argv, cwd: process.cwd(), startedAt: Date.now() };
  try {
    const socketPlace = claimSocketPlace(join(socketDir(options.env), `tai-${process.pid}.sock`), options.env);
    if (socketPlace.ownDir === undefined) card = place.claimCard(dirname(socketPlace.path), base, request.name === undefined);
  } catch (err) {
    if (err instanceof place.CockpitNameError && request.name !== undefined && err.message.includes('already running')) throw new StartRefusedError(`tai: ${err.message}`, 1);
    log(`no cockpit card, so tai ls does not list this cockpit: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (card === undefined) return runCockpit(options);
  const claimed = card;
  try {
    return await runCockpit({
      ...options,
      name: claimed.name,
      started: (cockpit, control) => {
        if (control !== undefined) place.updateCard(claimed.path, { ...base, name: claimed.name, control });
        options.started?.(cockpit, control);
      },
    });
  } finally {
    place.removeFile(claimed.path);
  }
}

/** Checks what can be checked here, starts the server, and attaches this terminal to it. */
async function runAsClient(options: CockpitMainOptions, request: CockpitRequest): Promise<number> {
  const [{ checkMainProgram }, { choosePrefix }, { launchServer }, { attachTerminal, nativeClientFor, NativeClientError }, { logPath }] = await Promise.all([
    import('../../io/cockpit/main/main-program.js'),
    import('../../core/input/prefix-choice.js'),
    import('../../io/link/server-launch.js'),
    import('../../io/link/native-client.js'),
    import('../../io/storage/log.js'),
  ]);
  // The refusals the user must read on the normal screen, before a server exists.
  checkMainProgram(options.argv, options.env);
  choosePrefix(options.env.TAI_PREFIX);
  try {
    nativeClientFor(process.env.TAI_NATIVE_CLIENT, undefined); // this process attaches: its own environment chooses
  } catch (err) {
    if (err instanceof NativeClientError) throw new StartRefusedError(`tai: ${err.message}`, 64);
    throw err;
  }
  const log = logPath(options.env);
  const ready = await launchServer(
    { ...request, cols: process.stdout.columns || 80, rows: process.stdout.rows || 24 },
    options.env,
    log,
  );
  if (!ready.ok) throw new StartRefusedError(`tai: ${ready.error}`, ready.code);
  return attachTerminal({ link: ready.link, name: ready.name, logPath: log, say: (line) => processOutput.warn(`${line}\n`) });
}
