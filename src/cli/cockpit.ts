/**
 * `tai [-s NAME] [-- CMD ARGS]`: the cockpit with `$SHELL` (or CMD) in the
 * main pane; returns the main program's exit code, or the refusal's code
 * with its reason when it cannot start (127: no main program, 64: a bad
 * TAI_PREFIX or name, 1: a dumb terminal).
 *
 * On a terminal the cockpit is a server in the background and this process
 * its first client (src/io/link/): the terminal can close and the agents go
 * on. Nothing drawn (TAI_ORCH_PANELS=0, stdout not a terminal) or
 * TAI_SERVER=0: the cockpit runs in this process, as an embedder runs it.
 */
import type { CockpitMainOptions } from '../io/cockpit/cockpit-main.js';
import type { CockpitTerminal } from '../io/cockpit/cockpit-terminal.js';
import type { RunningCockpit } from '../io/cockpit/cockpit-types.js';
import type { ServerConfig } from '../io/link/server-launch.js';
import { StartRefusedError } from '../core/errors.js';
import { leanImport } from '../io/lean-import.js';
import { idleCollection } from '../io/idle-collect.js';
import { field, processOutput } from './output.js';

/** How the cockpit was asked for, so that a server can run the same command. */
export interface CockpitRequest {
  readonly command: ServerConfig['command'];
  readonly args: readonly string[];
  /** The main program (for the cockpit's card and `tai ls`). */
  readonly argv: readonly string[];
  /** -s NAME. */
  readonly name?: string;
}

/** Set by `tai __server` (src/cli/server.ts): the cockpit runs in this process, drawn on the link's clients. */
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
export async function run(args: readonly string[], name?: string): Promise<number> {
  const env = { ...process.env }; // the main program gets the user's environment, not ours
  return runCockpitCommand({ argv: args, env }, { command: 'cockpit', args, argv: args, ...(name === undefined ? {} : { name }) });
}

/** True when this cockpit should be a server with this process its client. */
function wantsServer(env: NodeJS.ProcessEnv): boolean {
  return process.stdout.isTTY === true && process.stdin.isTTY === true && env.TAI_ORCH_PANELS !== '0' && env.TAI_SERVER !== '0' && env.TERM !== 'dumb';
}

/** Runs a cockpit for a subcommand: as a server and its client on a terminal, else here; a main program that cannot start said so (127). */
export async function runCockpitCommand(options: CockpitMainOptions, request: CockpitRequest): Promise<number> {
  try {
    if (request.name !== undefined) {
      const { badName } = await import('../io/link/link-place.js');
      const bad = badName(request.name);
      if (bad !== null) throw new StartRefusedError(`tai: ${bad}`, 64);
    }
    if (serving === undefined && wantsServer(options.env)) return await runAsClient(options, request);
    // React's development build adds performance.measure calls to every render.
    process.env.NODE_ENV ??= 'production';
    // Ink loaded without what it would keep for nothing: undici, React's development builds (src/io/lean-import.ts).
    const { runCockpit } = await leanImport(() => import('../io/cockpit/cockpit-main.js'));
    // Start-up (loading Ink, React, yoga, xterm.js) grows V8's new space as streaming does:
    // given back once the cockpit has been quiet a while, when gc is exposed (SERVER_NODE_FLAGS).
    idleCollection.activity();
    const here = serving;
    if (here === undefined) return await runCockpit(options);
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

/** Checks what can be checked here, starts the server, and attaches this terminal to it. */
async function runAsClient(options: CockpitMainOptions, request: CockpitRequest): Promise<number> {
  const [{ checkMainProgram }, { choosePrefix }, { launchServer }, { attachTerminal, nativeClientFor, NativeClientError }, { logPath }] = await Promise.all([
    import('../io/cockpit/main/main-program.js'),
    import('../core/input/prefix-choice.js'),
    import('../io/link/server-launch.js'),
    import('../io/link/native-client.js'),
    import('../io/storage/log.js'),
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
