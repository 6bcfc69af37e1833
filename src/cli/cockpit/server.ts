/**
 * `tai __server CONFIG`: a cockpit's server, started by its first client (src/io/link/server-launch.ts), never by
 * hand: it claims the name and link socket, runs the cockpit drawn on the link's clients, says on fd 3 that it is
 * ready (or why not), and at the main program's exit bids every client farewell and exits with its code.
 */
import { closeSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { messageOf, StartRefusedError } from '../../core/errors.js';
import { choosePrefix } from '../../core/input/prefix-choice.js';
import { isLive } from '../../core/panel/panel-state.js';
import { mainArgv } from '../../io/cockpit/main/main-program.js';
import { baseName, claimCard, ownStart, removeFile, updateCard, type CockpitCard } from '../../io/link/link-place.js';
import { startLinkHub, type LinkHub } from '../../io/link/link-hub.js';
import { READY_FD, type ServerConfig, type ServerReady } from '../../io/link/server-launch.js';
import { claimSocketPlace, socketDir } from '../../io/socket/socket-path.js';
import { fileLogger, logPath } from '../../io/storage/log.js';
import { serveHere } from './cockpit.js';

/** Runs the server until its cockpit ends; returns the main program's exit code. */
export async function run(args: readonly string[]): Promise<number> {
  const log = fileLogger(logPath(process.env));
  let config: ServerConfig;
  try {
    config = JSON.parse(args[0] ?? '') as ServerConfig;
  } catch {
    return ready({ ok: false, error: 'tai __server is started by tai itself, with its configuration', code: 64 });
  }
  let card: { path: string; name: string } | undefined;
  let hub: LinkHub | undefined;
  try {
    const place = claimSocketPlace(join(socketDir(process.env), `tai-${process.pid}.link`), process.env);
    if (place.warning !== undefined) log(place.warning);
    const dir = dirname(place.path);
    const argv = mainArgv(config.argv, process.env);
    const base: CockpitCard = { name: config.name ?? baseName(argv), pid: process.pid, ...ownStart(), link: place.path, argv, cwd: process.cwd(), startedAt: Date.now() };
    card = claimCard(dir, base, config.name === undefined);
    hub = await startLinkHub({ path: place.path, name: card.name, prefix: choosePrefix(process.env.TAI_PREFIX), cols: config.cols, rows: config.rows, directTty: process.env.TAI_DIRECT_TTY !== '0', log });
    const named: CockpitCard = { ...base, name: card.name };
    const { path: cardFile, name } = card;
    const linkHub = hub;
    let killed = false;
    serveHere({
      terminal: hub.terminal,
      name,
      started(cockpit, control) {
        // A restored cockpit runs in its own folder (docs/restore.md): the card says where it is now.
        const here: CockpitCard = { ...named, cwd: process.cwd() };
        updateCard(cardFile, { ...here, ...(control === undefined ? {} : { control }) });
        linkHub.describe(() => {
          // Agents only: a feed pane or a lane's diff view is no agent of the cockpit's.
          const agents = cockpit.board.getState().status(cockpit.now()).agents.filter((a) => a.kind === 'agent');
          return {
            name,
            pid: process.pid,
            argv,
            cwd: here.cwd,
            startedAt: named.startedAt,
            running: agents.filter((a) => isLive(a.state) && a.state !== 'asking').length,
            asking: agents.filter((a) => a.state === 'asking').length,
            done: agents.filter((a) => !isLive(a.state)).length,
          };
        });
        linkHub.onKill(() => {
          killed = true;
          cockpit.stop(0);
        });
        ready({ ok: true, name, link: place.path });
      },
    });
    const code = config.command === 'demo' ? await (await import('./demo.js')).run(config.args) : await (await import('./cockpit.js')).run(config.args, config.name, config.wake === true, config.noRestore === true);
    if (!readySaid) ready({ ok: false, error: `the cockpit did not start (exit ${code}); see ${logPath(process.env)}`, code });
    await hub.end({ code, ...(killed ? { message: `cockpit ${name} was ended by tai kill` } : {}) });
    return code;
  } catch (err) {
    const refused = err instanceof StartRefusedError;
    log(`server: ${messageOf(err)}`);
    ready({ ok: false, error: messageOf(err).replace(/^tai: /, ''), code: refused ? err.exitCode : 1 });
    await hub?.end({ code: 1, message: messageOf(err) });
    return refused ? err.exitCode : 1;
  } finally {
    if (card !== undefined) removeFile(card.path);
  }
}

/** Says on fd 3, once, that the server is ready or why it is not; returns the exit code for a refusal. */
function ready(words: ServerReady): number {
  if (readySaid) return words.ok ? 0 : words.code;
  readySaid = true;
  try {
    writeSync(READY_FD, `${JSON.stringify(words)}\n`);
    closeSync(READY_FD);
  } catch {
    // Started by hand, or the client is gone: nobody to tell.
  }
  return words.ok ? 0 : words.code;
}
let readySaid = false;
