/**
 * An ended lane agent's panel told its lane was dropped
 * (src/io/lane-drops/reopened-panels.ts) whether or not the panel is on the
 * board: a real board with real screens and a real state database; only the
 * once-a-second look is driven by fake timers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { ORCH_FLUSH_INTERVAL } from '../../../src/core/policy.js';
import { LANE_GONE_CHECK_MS, ReopenedPanels } from '../../../src/io/lane-drops/reopened-panels.js';
import { LaneStore, type StoredLane } from '../../../src/io/lanes/lane-store.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';

const T0 = 1_000_000;
const dirs: string[] = [];

afterEach(() => {
  vi.useRealTimers();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function lane(dir: string): StoredLane {
  return {
    repo: join(dir, '.git'),
    name: 'mend',
    top: dir,
    branch: 'tai/mend',
    worktree: join(dir, '.git', 'tai-lanes', 'mend'),
    base: 'a'.repeat(40),
    baseBranch: 'main',
    task: 'mend it',
    agent: { kind: 'command', argv: ['true'], label: 'mender' },
    agentRun: null,
    agentId: null,
    agentPid: null,
    agentStart: null,
    createdAt: T0,
    mergedAt: null,
  };
}

describe('a lane dropped after its ended panel was closed', () => {
  it('tags the agent list row and writes the undrop line into the kept transcript', async () => {
    vi.useFakeTimers();
    const dir = mkdtempSync(join(tmpdir(), 'tai-reopened-'));
    dirs.push(dir);
    const db = openStateDb(join(dir, 'state.db'));
    const stored = lane(dir);
    const lanes = new LaneStore(db);
    expect(lanes.insert(stored)).toBe(true);
    const board = createBoard({ cols: 120, rows: 40, createScreen: (c, r) => new XtermScreen(c, r) });
    const s = board.getState;
    let now = T0;
    const panels = new ReopenedPanels({ board, db, now: () => now });
    const id = s().open({ label: 'mender', task: 'mend it' }, now);
    s().finish(id, 'done', 'exit 0', ++now);
    panels.ended(id, stored);
    s().tag(id, '⎇ mend · 1 file +1 −0', ++now);
    expect(s().closeByUser(id, ++now)).toBe(true);
    vi.advanceTimersByTime(LANE_GONE_CHECK_MS);
    lanes.remove(stored.repo, stored.name);
    vi.advanceTimersByTime(LANE_GONE_CHECK_MS);
    expect(s().status(now).agents.find((r) => r.id === id)?.tag).toBe('⎇ mend · dropped');
    expect(s().reveal(id, ++now)).toBe(true);
    for (let i = 0; i < 4; i++) s().flush((now += ORCH_FLUSH_INTERVAL));
    const screen = s().screenOf(id) as XtermScreen;
    vi.useRealTimers();
    await screen.parsed();
    expect(screen.text().join(' ')).toContain('the lane mend was dropped: tai lane undrop mend brings it back');
    panels.dispose();
    db.close();
  });
});
