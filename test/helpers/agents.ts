/** Helpers for tests that run real agent fixtures under a real board. */
import { fileURLToPath } from 'node:url';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBoard } from '../../store/board.js';
import { xtermScreens, type XtermScreen } from '../../src/io/terminal/screen.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { RecordStore } from '../../src/io/storage/records.js';
import { AgentsStore } from '../../src/io/storage/agents-store.js';
import { LocalAgentService } from '../../src/io/agents/agent-service.js';
import type { Runner } from '../../src/io/agents/runners/runner.js';
import { FakeClock } from './fake-clock.js';

/** The absolute path of a fixture program. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
}

/** What harness() builds. */
export interface Harness {
  readonly clock: FakeClock;
  readonly board: ReturnType<typeof createBoard>;
  readonly db: StateDb;
  readonly records: RecordStore;
  readonly agents: AgentsStore;
  readonly service: LocalAgentService;
  /** Advances the test clock and runs the watchdog at the new time. */
  tick(ms: number): void;
  /** Flushes pending output and returns the panel's visible rows as text. */
  screen(id: number): Promise<string>;
  close(): void;
  readonly dir: string;
}

/** A board that draws into real headless terminals, a fresh state DB and a service on a test clock. */
export function harness(options: { maxLive?: number; runners?: Readonly<Record<string, Runner>> } = {}): Harness {
  const clock = new FakeClock(1_000_000);
  const board = createBoard({ createScreen: xtermScreens, cols: 160, rows: 48, ...(options.maxLive ? { maxLive: options.maxLive } : {}) });
  const dir = mkdtempSync(join(tmpdir(), 'tai-agents-'));
  const db: StateDb = openStateDb(join(dir, 'tai.db'));
  const records = new RecordStore(db);
  const agents = new AgentsStore(db);
  const service = new LocalAgentService({ board, records, agents, now: clock.now, run: 'test-run', ...(options.runners ? { runners: options.runners } : {}) });
  /** Advances the test clock and runs the watchdog at the new time. */
  const tick = (ms: number): void => {
    clock.t += ms;
    board.getState().tick(clock.t);
  };
  /** Flushes pending output and returns the panel's visible rows as text. */
  const screen = async (id: number): Promise<string> => {
    do clock.t += 1_000;
    while (board.getState().flush(clock.t));
    const s = board.getState().screenOf(id) as XtermScreen | undefined;
    if (!s) return '';
    await s.parsed();
    return s.text().join('\n');
  };
  const close = (): void => {
    service.dispose();
    db.close();
  };
  return { clock, board, db, records, agents, service, tick, screen, close, dir };
}

/** True while any process in group `pgid` exists (zombies included), per kill(-pgid, 0). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return !(err instanceof Error && 'code' in err && err.code === 'ESRCH');
  }
}

/** The processes of group `pgid` that are not zombies, read from /proc (Linux). */
export function liveMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(name));
    } catch {
      // The process left while we read.
    }
  }
  return out;
}

/** True when `pid` is a live (non-zombie) process. */
export function pidLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Writes a shell script that exits 0 (a fake program on PATH) into `dir`, with `mode`; returns its path. */
export function fakeProgram(dir: string, name: string, mode = 0o755): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, mode);
  return path;
}
