import { mkdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LaneTreeWatch, type WatchFolder } from '../../../src/io/lanes/lane-tree-watch.js';
import { makeLane } from '../../../src/io/lanes/lanes.js';
import type { StoredLane } from '../../../src/io/lanes/lane-store.js';
import { tempRepo, type TempRepo } from '../../helpers/git-repo.js';
import { countedWatches } from '../../helpers/counted-watches.js';

let repo: TempRepo | undefined;
let tree: LaneTreeWatch | undefined;
afterEach(() => {
  tree?.close();
  tree = undefined;
  repo?.cleanup();
  repo = undefined;
});

/** A repository with bulk folders git ignores or tai skips, and a lane made from it. */
async function laneWithBulk(): Promise<{ repo: TempRepo; lane: StoredLane }> {
  repo = tempRepo();
  repo.commit('bulk', { '.gitignore': 'build/\n*.tmp\n', 'src/deep/er/b.txt': 'b\n', 'docs/c.md': 'c\n' });
  const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'bulk', task: 't', agent: { kind: 'command', argv: ['true'], label: 'b' }, now: Date.now() });
  for (const dir of ['node_modules/pkg/lib', 'build/out', 'cache.tmp', 'src/deep/node_modules/x']) mkdirSync(join(lane.worktree, dir), { recursive: true });
  return { repo, lane };
}

const gitDirOf = (r: TempRepo): string => join(r.dir, '.git', 'worktrees', 'bulk');
const refDirOf = (r: TempRepo): string => join(r.dir, '.git', 'refs', 'heads', 'tai');

describe("a lane's tree watch", () => {
  it('watches each folder of the worktree but .git, node_modules and what git ignores, with the gitdir and the ref folder', async () => {
    const { repo, lane } = await laneWithBulk();
    const w = (tree = new LaneTreeWatch({ worktree: lane.worktree, branch: lane.branch, onChange: () => {}, onFail: () => {} }));
    const expected = [gitDirOf(repo), refDirOf(repo), ...['', 'docs', 'src', 'src/deep', 'src/deep/er'].map((d) => join(lane.worktree, d))].sort();
    await vi.waitFor(() => expect(w.watched()).toEqual(expected), { timeout: 5_000 });
    expect(w.checks).toBeGreaterThanOrEqual(1);
  });

  it('watches a folder made later and lets go of one removed, telling each as a change', async () => {
    const { lane } = await laneWithBulk();
    let changes = 0;
    const w = (tree = new LaneTreeWatch({ worktree: lane.worktree, branch: lane.branch, onChange: () => changes++, onFail: () => {} }));
    await vi.waitFor(() => expect(w.size).toBe(7), { timeout: 5_000 });
    mkdirSync(join(lane.worktree, 'src/new/inner'), { recursive: true });
    await vi.waitFor(() => expect(w.watched()).toContain(join(lane.worktree, 'src/new/inner')), { timeout: 5_000 });
    const before = changes;
    writeFileSync(join(lane.worktree, 'src/new/inner/f.txt'), 'x\n');
    await vi.waitFor(() => expect(changes).toBeGreaterThan(before), { timeout: 5_000 });
    rmSync(join(lane.worktree, 'src/deep'), { recursive: true });
    await vi.waitFor(() => expect(w.watched().some((d) => d.includes('deep'))).toBe(false), { timeout: 5_000 });
    expect(w.size).toBe(7);
  });

  it('watches a folder removed and made again at once under the same name (its old watch sees nothing)', async () => {
    const { lane } = await laneWithBulk();
    const heard: string[] = [];
    const told: WatchFolder = (path, listener) =>
      watch(path, { persistent: false }, (event, name) => {
        heard.push(join(path, name ?? ''));
        listener(event, name);
      });
    let changes = 0;
    const w = (tree = new LaneTreeWatch({ worktree: lane.worktree, branch: lane.branch, watch: told, onChange: () => changes++, onFail: () => {} }));
    await vi.waitFor(() => expect(w.size).toBe(7), { timeout: 5_000 });
    const docs = join(lane.worktree, 'docs');
    rmSync(docs, { recursive: true });
    mkdirSync(docs); // before the watch has heard of the removal: `rm -rf docs && git checkout docs`
    // A file written into the new folder is heard by a watch on it once there is one; the old, dead watch never hears it.
    let probes = 0;
    await vi.waitFor(
      () => {
        if (heard.some((p) => p.startsWith(join(docs, 'probe-')))) return;
        writeFileSync(join(docs, `probe-${probes++}.md`), 'x\n');
        throw new Error(`no watch on the new ${docs} heard a probe yet`);
      },
      { timeout: 5_000, interval: 50 },
    );
    expect(changes).toBeGreaterThan(0);
    expect(w.watched()).toContain(docs);
    expect(w.size).toBe(7);
  });

  it('gives up past its cap, closing every watch it opened and saying why once', async () => {
    const { lane } = await laneWithBulk();
    const { open, watchFolder: counted } = countedWatches();
    const reasons: string[] = [];
    const w = (tree = new LaneTreeWatch({ worktree: lane.worktree, branch: lane.branch, max: 4, watch: counted, onChange: () => {}, onFail: (r) => reasons.push(r) }));
    await vi.waitFor(() => expect(reasons).toEqual(['more than 4 folders to watch']), { timeout: 5_000 });
    expect(open.size).toBe(0);
    expect(w.size).toBe(0);
  });

  it('gives up when the kernel refuses a watch (ENOSPC), naming the limit', async () => {
    const { lane } = await laneWithBulk();
    const full: WatchFolder = (path) => {
      throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${path}'`), { code: 'ENOSPC' });
    };
    const reasons: string[] = [];
    tree = new LaneTreeWatch({ worktree: lane.worktree, branch: lane.branch, watch: full, onChange: () => {}, onFail: (r) => reasons.push(r) });
    await vi.waitFor(() => expect(reasons).toHaveLength(1), { timeout: 5_000 });
    expect(reasons[0]).toContain("the user's inotify watches are used up (fs.inotify.max_user_watches): ENOSPC");
  });
});
