/**
 * `tai spawn` outside a cockpit: the agent is supervised in this process on
 * a board with drawing off (the same clocks, no panel) and the state
 * database; an outage's hold and progress go to stderr, the live status
 * line to a terminal's stderr, and Ctrl-C stops the agent softly, then hard.
 */
import { AgentsFullError, RequestError } from '../../core/errors.js';
import { CANNOT_START_EXIT, CannotStartError } from '../../io/agents/spawn/startable.js';
import { createBoard, type Board } from '../../../store/board.js';
import { EXIT_CODES, EXIT_REFUSED, EXIT_STORAGE } from '../../io/agents/agent-results.js';
import type { LocalAgentService } from '../../io/agents/agent-service.js';
import { openAgentService, type OpenedAgentService } from '../../io/agents/open-agent-service.js';
import { StateDbError } from '../../io/storage/state-db.js';
import { startBoardClock } from '../../io/cockpit/board-clock.js';
import type { CliIo } from '../cli-io.js';
import { USAGE_EXIT } from '../command-line.js';
import { progressLine } from '../machine/outage.js';
import { field, type CliOutput } from '../output.js';
import { spawnQueued } from './spawn-queued.js';
import { laneLines, printResult, type QueuedSpawn, type ResultShape } from './spawn-result.js';
import { LastText, startLiveStatus, type LiveStatus } from './spawn-status.js';

/** Supervises the agent here: a board without drawing, its clock, the state DB. */
export async function inProcess(queued: QueuedSpawn, shape: ResultShape, io: CliIo, out: CliOutput): Promise<number> {
  const board = createBoard({ drawingOff: 'outside a cockpit: no panel' });
  const clock = startBoardClock(board);
  let live: LiveStatus | undefined;
  let opened: OpenedAgentService;
  try {
    opened = openHere(board, io, out, () => live);
  } catch (err) {
    clock.stop();
    if (!(err instanceof StateDbError)) throw err;
    out.warn(`tai spawn: ${field(err.message)}\n`);
    return EXIT_STORAGE;
  }
  const { service } = opened;
  let off = (): void => {};
  const texts = lastTexts(board);
  try {
    const started = await startHere(service, queued, io, out);
    if (typeof started === 'number') return started;
    const { id } = started;
    live = liveStatus(id, board, service, texts.of, io, out);
    off = stopOnInterrupt(id, board, service, io, out, () => live);
    for (;;) {
      const result = await service.poll(id, 60_000);
      if (result?.finished) {
        live.stop();
        return printResult(result, shape, out);
      }
    }
  } finally {
    live?.stop();
    texts.off();
    off();
    clock.stop();
    opened.close();
  }
}

/**
 * The agent service on `board` and the state database. No panel shows a held agent here: its hold, the outage's
 * stage and next probe, and its restart go to stderr, as `tai net` prints them.
 */
function openHere(board: Board, io: CliIo, out: CliOutput, live: () => LiveStatus | undefined): OpenedAgentService {
  return openAgentService(board, io.env, Date.now, {
    onProgress: (outage) => {
      live()?.clear();
      out.warn(`tai: ${field(progressLine(outage, Date.now()))}\n`);
    },
    tell: (panelId, line) => {
      live()?.clear();
      out.warn(`tai: agent #${panelId} ${field(line)}\n`);
    },
  });
}

/** Each panel's last line of text, for the live status line. */
function lastTexts(board: Board): { of: (panel: number) => string; off: () => void } {
  const texts = new Map<number, LastText>();
  const off = board.getState().listen((panel, event) => {
    if (event.type !== 'text') return;
    const t = texts.get(panel) ?? new LastText();
    texts.set(panel, t);
    t.push(event.text);
  });
  return { of: (panel) => texts.get(panel)?.line ?? '', off };
}

/** Starts the agent (waiting for a slot with --queue); its id, or the exit code after saying why it did not start. */
async function startHere(service: LocalAgentService, queued: QueuedSpawn, io: CliIo, out: CliOutput): Promise<{ readonly id: number } | number> {
  const { queue, ...request } = queued;
  try {
    const started = await service.spawn(request, Date.now()).catch(async (err: unknown) => {
      if (!(queue && err instanceof AgentsFullError)) throw err;
      return spawnQueued(request.label ?? request.argv.join(' '), request.prompt ?? '', () => service.spawn(request, Date.now()).catch((e: unknown) => {
        if (e instanceof AgentsFullError) return undefined;
        throw e;
      }), io, out);
    });
    if (started === null) return EXIT_CODES.cancelled;
    laneLines(started, out);
    return { id: started.id };
  } catch (err) {
    if (err instanceof AgentsFullError) {
      out.warn(`tai spawn: ${field(err.message)}\n`);
      return EXIT_REFUSED;
    }
    if (err instanceof RequestError) {
      out.warn(`tai spawn: ${field(err.message)}\n`);
      return err instanceof CannotStartError ? CANNOT_START_EXIT : USAGE_EXIT;
    }
    if (err instanceof StateDbError) {
      out.warn(`tai spawn: the agent was not started: ${field(err.message)}\n`);
      return EXIT_STORAGE;
    }
    throw err;
  }
}

/** The live status line of the attempt now running (a retry opens a new panel): its row and its last line. */
function liveStatus(first: number, board: Board, service: LocalAgentService, lastText: (panel: number) => string, io: CliIo, out: CliOutput): LiveStatus {
  return startLiveStatus(first, { out, columns: io.errColumns }, () => {
    const now = Date.now();
    const current = service.currentAttempt(first) ?? first;
    const row = board.getState().status(now).agents.find((r) => r.id === current);
    return row && { state: row.state, elapsedMs: row.elapsedMs, tools: row.tools, tokens: row.tokens, last: lastText(current) };
  });
}

/** Ctrl-C asks the agent to stop softly; a second kills it now. Returns the unsubscribe. */
function stopOnInterrupt(id: number, board: Board, service: LocalAgentService, io: CliIo, out: CliOutput, live: () => LiveStatus | undefined): () => void {
  let interrupts = 0;
  return io.onInterrupt(() => {
    interrupts++;
    live()?.clear();
    if (interrupts === 1) {
      out.warn(`tai: stopping agent #${id} (Ctrl-C again to kill it now)\n`);
      board.getState().cancel(id, 'interrupted (Ctrl-C)', Date.now(), 'user');
    } else service.kill(id);
  });
}
