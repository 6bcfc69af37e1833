/**
 * The agent service on the user's state database (docs/architecture.md,
 * "Persistence"): the records of the claim check, the agents' rows, the one
 * outage watch of this process and the kept ACP sessions, opened together and
 * closed together. The cockpit and an in-process `tai spawn` both start here.
 */
import { join } from 'node:path';
import type { Board } from '../../../store/board.js';
import { LocalAgentService } from './agent-service.js';
import { AgentsStore, currentRun } from '../storage/agents-store.js';
import { AgentSlots } from '../storage/agent-slots.js';
import { importUnsaved } from '../storage/unsaved.js';
import { LaneWatch } from '../lanes/lane-watch.js';
import { fileLogger, logPath } from '../storage/log.js';
import { outageTimeScale, type Outage } from '../outage/outage-store.js';
import { createOutageWatch, type OutageWatch } from '../outage/outage-watch.js';
import type { Sleep } from '../outage/outage-wait.js';
import { defaultProbes, type ProbeSource } from '../outage/probes.js';
import { RecordStore } from '../storage/records.js';
import { TranscriptStore } from '../storage/transcripts.js';
import { attachInbox } from '../inbox/inbox-wiring.js';
import { RestoreStore } from '../restore/restore-store.js';
import { AcpSessionPool } from './runners/acp/acp-pool.js';
import { runnersWithSessions } from './runners/table.js';
import { openStateDb, STATE_DB_BUSY_TIMEOUT_MS, stateDbWaitMs, stateDir, STATE_DB_FILE, type StateDb } from '../storage/state-db.js';

/** What `openAgentService` may be given instead of its defaults (tests inject the watch, the probes and the clock). */
export interface OpenAgentServiceOptions {
  /** The outage watch; omitted, one is created on the state database with the options below. */
  readonly watch?: OutageWatch;
  /** The probes; defaults to `defaultProbes` (the git remote of the cwd, `TAI_NETWORK_PROBE`, `TAI_MODEL_PROBE`). */
  readonly probes?: ProbeSource;
  /** The outage waits' sleep; defaults to a real timer. */
  readonly sleep?: Sleep;
  /** The lab time scale of an outage this process opens; defaults to `TAI_OUTAGE_TIME_SCALE`. */
  readonly scale?: number;
  /** Writes the give-up bell and OSC 9 to the user's terminal (the cockpit's). */
  readonly terminal?: (bytes: string) => void;
  /** Told whenever a held agent's outage moves on its schedule (an in-process `tai spawn` prints the stage and next probe). */
  readonly onProgress?: (outage: Outage) => void;
  /** Told a held agent's hold, restart and give-up, for a supervisor without panels (AgentOutages.tell). */
  readonly tell?: (panelId: number, line: string) => void;
  /** How long opening waits for a locked database (ms); omitted, as long as any write (src/io/agents/open-when-ready.ts opens with a short one). */
  readonly openBusyMs?: number;
}

/** An agent service on the user's state database, and how to close it. */
export interface OpenedAgentService {
  readonly service: LocalAgentService;
  readonly records: RecordStore;
  readonly agents: AgentsStore;
  /** The one outage watch of this process: the cockpit arms its standing wake-up (`watch.armWakeUp()`). */
  readonly watch: OutageWatch;
  /** Stops listening to the board, closes the kept ACP sessions and the database (live agents' reapers stop them when this process exits). */
  close(): void;
}

/**
 * Opens the state database, marks the rows of agents whose supervisor died, and starts a service on `board`:
 * what the cockpit and an in-process `tai spawn` both need.
 */
export function openAgentService(
  board: Board,
  env: NodeJS.ProcessEnv = process.env,
  now: () => number = Date.now,
  options: OpenAgentServiceOptions = {},
): OpenedAgentService {
  const dir = stateDir(env);
  const waitMs = stateDbWaitMs(env);
  const busyTimeoutMs = Math.min(STATE_DB_BUSY_TIMEOUT_MS, waitMs);
  const db = openStateDb(join(dir, STATE_DB_FILE), { busyTimeoutMs: options.openBusyMs ?? busyTimeoutMs });
  try {
    const records = new RecordStore(db);
    const agents = new AgentsStore(db);
    const run = currentRun();
    const slots = new AgentSlots(db, { run });
    // What an earlier process could not store first: its rows end in their real state, not as "supervisor gone".
    try {
      importUnsaved(dir, records, agents, now());
    } catch {
      // Not writable now: the upkeep tries again.
    }
    agents.settleDead(now());
    // Opened with a short wait (a cockpit starting must not stall); from now on writes wait as usual.
    if (options.openBusyMs !== undefined) db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    const watch =
      options.watch ??
      createOutageWatch({
        db,
        board,
        probes: options.probes ?? defaultProbes({ env }),
        now,
        ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
        scale: options.scale ?? outageTimeScale(env),
        notify: { env, ...(options.terminal === undefined ? {} : { terminal: options.terminal }) },
      });
    const sessions = new AcpSessionPool({ now });
    const service = new LocalAgentService({
      board,
      records,
      agents,
      now,
      run,
      slots,
      stateDir: dir,
      storeWaitMs: waitMs,
      runners: runnersWithSessions(sessions),
      transcripts: new TranscriptStore(db),
      launches: new RestoreStore(db),
      lanes: new LaneWatch({ db, board, run, now, log: fileLogger(logPath(env), now) }),
      outages: { watch, db, stateDir: dir, ...(options.tell === undefined ? {} : { tell: options.tell }) },
    });
    const detachInbox = attachInbox(board, db, run, env, now(), fileLogger(logPath(env), now));
    const close = closer(service, sessions, db, slots);
    return {
      service,
      records,
      agents,
      watch,
      close: () => {
        detachInbox();
        close();
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** How a service on a database ends: it stops listening to the board, its kept ACP sessions end, the database closes. */
export function closer(service: LocalAgentService, sessions: AcpSessionPool, db: StateDb, slots?: AgentSlots): () => void {
  return () => {
    service.dispose();
    void sessions.close();
    try {
      // Its agents end with it (their reapers stop them); a slot left behind is reclaimed as its pid is gone.
      slots?.releaseAll();
    } catch {
      // Locked: reclaimed by the next claim once this process has exited.
    }
    db.close();
  };
}
