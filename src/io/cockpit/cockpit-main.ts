/**
 * The whole cockpit as `tai` runs it: the control socket listening before the main program starts (so it never finds
 * TAI_PLEXER_SOCKET missing), the board, the agent service, the outage watch and one dispatcher for keys and socket.
 * Anything that fails to start is logged and the cockpit runs without it.
 */
import { dispatch } from '../../../store/dispatch.js';
import { choosePrefix } from '../../core/input/prefix-choice.js';
import { messageOf, StartRefusedError } from '../../core/errors.js';
import { createLeadTraffic } from '../socket/lead-traffic.js';
import { openAgentServiceWhenReady } from '../agents/open-when-ready.js';
import { createCockpitBoard } from './cockpit-board.js';
import { startCockpit } from './cockpit.js';
import { checkMainProgram } from './main/main-program.js';
import { checkWebhook } from '../notify/webhook-env.js';
import { putTaiOnPath } from './main/tai-on-path.js';
import type { RunningCockpit } from './cockpit-types.js';
import type { CockpitTerminal } from './cockpit-terminal.js';
import { fileLogger, logPath, type Logger } from '../storage/log.js';
import { startControlServer, type ControlServer } from '../socket/socket-server.js';
import { socketDir, socketPath } from '../socket/socket-path.js';
import { recordCockpit, restoreWanted, type CockpitRecord } from '../restore/cockpit-restore.js';

/** Why `--wake` needs a drawn cockpit. */
export const WAKE_UNDRAWN =
  'tai: --wake types into the main program, and a cockpit that draws nothing (TAI_ORCH_PANELS=0, or stdout not a terminal) leaves the main program on the terminal, out of its reach: run tai --wake on a terminal without TAI_ORCH_PANELS=0';

/** How to run the cockpit. */
export interface CockpitMainOptions {
  readonly argv: readonly string[];
  /** The environment of the main program (the user's, untouched). */
  readonly env: NodeJS.ProcessEnv;
  /** Called once everything runs, e.g. to start the demo's agents; `control` is the control socket's path, when it listens. */
  readonly started?: (cockpit: RunningCockpit, control: string | undefined) => void;
  /** The cockpit's name (its status line; the main pane gets it as TAI_COCKPIT). */
  readonly name?: string;
  /** Where it draws: the link's clients when it is a server; default this process's terminal. */
  readonly terminal?: CockpitTerminal;
  readonly log?: Logger;
  /** `tai --wake`: the lead in the main pane is woken when its agents end or ask (docs/lead.md). */
  readonly wake?: boolean;
  /** `--no-restore`: a named cockpit records itself but restores no earlier run of its name (docs/restore.md). */
  readonly noRestore?: boolean;
}

/** Runs the cockpit until the main program exits; returns its exit code. */
export async function runCockpit(options: CockpitMainOptions): Promise<number> {
  const { env } = options;
  const log = options.log ?? fileLogger(logPath(env));
  const now = Date.now;
  // Before anything opens or the screen is taken over: the prefix key, the main program (the terminal: createCockpitBoard).
  const prefix = choosePrefix(env.TAI_PREFIX);
  const early: string[] = [];
  // A named cockpit is recorded, and restores the run of its name that ended without a deliberate end (docs/restore.md).
  const record = options.name === undefined ? undefined : recordCockpit({ name: options.name, argv: options.argv, env, restore: restoreWanted(env, options.noRestore), now }, (why) => (log(why), early.push(why)));
  early.push(...(record?.notices ?? []));
  const argv = record?.argv ?? options.argv;
  const signalled = noteSignals(options.terminal !== undefined);
  try {
    return await runRecorded({ ...options, argv }, { log, now, prefix, early, record });
  } finally {
    signalled.off();
    // tai kill and the main program's exit are deliberate ends; a signal leaves the cockpit to be restored.
    record?.end(!signalled.seen());
  }
}

/** What runCockpit settled before the cockpit runs. */
interface Settled {
  readonly log: Logger;
  readonly now: () => number;
  readonly prefix: string;
  /** Lines for the main pane from before the board existed. */
  readonly early: readonly string[];
  readonly record: CockpitRecord | undefined;
}

/** Notes whether a signal that ends the cockpit arrived (SIGINT only for a server: a cockpit on its terminal hears the user's Ctrl-C). */
function noteSignals(server: boolean): { seen(): boolean; off(): void } {
  let seen = false;
  const on = (): void => void (seen = true);
  const signals: NodeJS.Signals[] = server ? ['SIGTERM', 'SIGHUP', 'SIGINT'] : ['SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, on);
  return { seen: () => seen, off: () => signals.forEach((signal) => process.off(signal, on)) };
}

async function runRecorded(options: CockpitMainOptions, settled: Settled): Promise<number> {
  const { env } = options;
  const { log, now, prefix, record } = settled;
  checkMainProgram(options.argv, env);
  checkWebhook(env);
  // The board first: the agents and the socket hold it before the main program starts.
  const made = createCockpitBoard({ env, now, log, ...(options.terminal === undefined ? {} : { size: options.terminal }) });
  const { board } = made;
  if (options.wake === true && made.screens === null) throw new StartRefusedError(WAKE_UNDRAWN, 64);
  const notices: string[] = [...settled.early];
  // The agents open now, or, while the database is locked or unusable, in the background with a line on screen each change.
  let cockpit: RunningCockpit | undefined;
  const pending = openAgentServiceWhenReady(board, env, now, {
    terminal: (bytes) => (options.terminal === undefined ? void process.stdout.write(bytes) : options.terminal.write(bytes)),
    onStatus: (line) => {
      log(line);
      if (cockpit === undefined) notices.push(line);
      else cockpit.notice(line);
    },
  });
  const agents = pending.agents;
  let service: { pgidOf(id: number): number | undefined } | undefined;
  void pending.ready.then((opened) => (service = opened?.service));
  const traffic = options.wake === true ? createLeadTraffic((id) => agents.currentAttempt(id)) : undefined;

  let server: ControlServer | undefined;
  try {
    server = await startControlServer({ board, agents, path: socketPath(process.pid, socketDir(env)), log, ...(traffic === undefined ? {} : { traffic }) });
    if (server.warning !== undefined) notices.push(server.warning);
  } catch (err) {
    notices.push(`no control socket, so tai spawn and tai status cannot reach this cockpit: ${messageOf(err)}`);
    log(notices[notices.length - 1] ?? '');
  }

  // The main program finds this very tai on its PATH.
  const onPath = putTaiOnPath(options.name === undefined ? env : { ...env, TAI_COCKPIT: options.name });
  cockpit = startCockpit({
    argv: options.argv,
    env: onPath.env,
    log,
    now,
    board: made,
    notices,
    prefix,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.terminal === undefined ? {} : { terminal: options.terminal }),
    ...(server === undefined ? {} : { socketPath: server.path }),
    ...(traffic === undefined || server === undefined ? {} : { lead: traffic }),
    dispatch: (command, running) => dispatch(command, { board: running.board, now: running.now(), log, agents }),
    pgidOf: (id) => service?.pgidOf(id),
  });
  let wake: { stop(): void } | undefined;
  void pending.ready.then((opened) => {
    wake = opened?.watch.armWakeUp(undefined, (err) => log(`outage wake-up: ${messageOf(err)}`));
    if (opened) record?.restoreAgents(opened.service, board, (line) => cockpit?.notice(line));
  });
  const running = cockpit;
  options.started?.(running, server?.path);
  try {
    return await running.done;
  } finally {
    wake?.stop();
    onPath.remove();
    await server?.close();
    pending.close();
  }
}
