/**
 * The watch on one live lane (docs/lanes.md, "The panel"): one non-recursive inotify watch per folder of the
 * worktree, its gitdir and its branch's ref folder, any event told as one change. Not Node's recursive watch,
 * which on Linux walks synchronously and watches every file, node_modules included, with no cap; here nothing
 * git ignores is watched, at most LANE_WATCH_MAX a lane, and `onFail` says once why the watch closed.
 */
import { watch as fsWatch, type FSWatcher, type Stats } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { messageOf } from '../../core/errors.js';
import { git } from './lane-git.js';

/** A lane watches at most this many folders (its worktree's, its gitdir, its ref's folder). */
export const LANE_WATCH_MAX = 1_000;

/** Folders never watched, by name: a worktree's `.git` (a file) or a nested repository's, and installed packages. */
const SKIPPED = new Set(['.git', 'node_modules']);

/** Folders asked about per `git check-ignore` (its argv stays small). */
const CHECK_BATCH = 200;

/** How a folder is watched: fs.watch, not recursive, not keeping the process alive (a seam for the tests). */
export type WatchFolder = (path: string, listener: (event: string, name: string | null) => void) => FSWatcher;

/** Node's fs.watch on one folder. */
export const watchFolder: WatchFolder = (path, listener) => fsWatch(path, { persistent: false }, listener);

/** What one lane's watch needs. */
export interface LaneTreeOptions {
  readonly worktree: string;
  /** The lane's branch, `tai/NAME`. */
  readonly branch: string;
  readonly onChange: () => void;
  /** The watch gave up (every watch is closed already): the reason, once. */
  readonly onFail: (reason: string) => void;
  readonly max?: number;
  readonly watch?: WatchFolder;
}

/** The watches of one lane's worktree and git state; `close` ends them all. */
export class LaneTreeWatch {
  readonly #o: LaneTreeOptions;
  readonly #max: number;
  readonly #watchers = new Map<string, FSWatcher>();
  /**
   * Each watched folder's inode and birth time (ext4 reuses a folder's inode at once): a folder removed and made
   * again (`rm -rf src && git checkout src`) is another folder, whose old watch hears nothing.
   */
  readonly #inodes = new Map<string, string>();
  #closed = false;
  /** `git check-ignore` runs (the tests count git). */
  checks = 0;

  constructor(options: LaneTreeOptions) {
    this.#o = options;
    this.#max = options.max ?? LANE_WATCH_MAX;
    void this.#start();
  }

  /** The watches open now. */
  get size(): number {
    return this.#watchers.size;
  }

  /** The folders watched now, sorted (for tests). */
  watched(): string[] {
    return [...this.#watchers.keys()].sort();
  }

  /** Closes every watch; no event is told after. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
    this.#inodes.clear();
  }

  async #start(): Promise<void> {
    try {
      const gitDir = await gitDirOf(this.#o.worktree);
      const common = await readFile(join(gitDir, 'commondir'), 'utf8').then((c) => resolve(gitDir, c.trim()), () => gitDir);
      // Lock files come and go around every write; the rename onto the real name is the change.
      if (!this.#add(gitDir, (name) => name === null || !name.endsWith('.lock'))) return;
      const leaf = basename(this.#o.branch);
      if (!this.#add(join(common, 'refs', 'heads', dirname(this.#o.branch)), (name) => name === null || name === leaf)) return;
      await this.#addTree([this.#o.worktree]);
    } catch (err) {
      this.#fail(`cannot watch the lane: ${messageOf(err)}`);
    }
  }

  /** Watches `roots` and every folder under them that matters, level by level. */
  async #addTree(roots: readonly string[]): Promise<void> {
    let level = await this.#notIgnored(roots);
    while (level.length > 0 && !this.#closed) {
      const next: string[] = [];
      for (const dir of level) {
        if (this.#watchers.has(dir)) continue;
        // Watched before it is read: a folder made in between is an event, one made before is in the listing.
        if (!this.#add(dir, (name, event) => this.#inTree(dir, event, name))) return;
        const st = await lstat(dir).catch(() => undefined);
        if (st !== undefined) this.#inodes.set(dir, identity(st));
        const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const e of entries) if (e.isDirectory() && !SKIPPED.has(e.name)) next.push(join(dir, e.name));
        if (this.#closed) return;
      }
      level = await this.#notIgnored(next);
    }
  }

  #inTree(dir: string, event: string, name: string | null): boolean {
    if (name !== null && SKIPPED.has(name)) return false;
    if (event === 'rename' && name !== null) void this.#renamed(join(dir, name));
    return true;
  }

  /** A name appeared or went: a new folder is watched, a gone one unwatched. */
  async #renamed(path: string): Promise<void> {
    const st = await lstat(path).catch(() => undefined);
    if (this.#closed) return;
    if (st === undefined) return this.#unwatch(path);
    if (!st.isDirectory()) return;
    if (this.#watchers.has(path) && this.#inodes.get(path) !== identity(st)) this.#unwatch(path); // made again: the old watch is dead
    if (!this.#watchers.has(path)) await this.#addTree([path]);
  }

  /** Watches one folder; false when the watch gave up. */
  #add(dir: string, relevant: (name: string | null, event: string) => boolean): boolean {
    if (this.#closed) return false;
    if (this.#watchers.size >= this.#max) {
      this.#fail(`more than ${this.#max} folders to watch`);
      return false;
    }
    let w: FSWatcher;
    try {
      w = (this.#o.watch ?? watchFolder)(dir, (event, name) => {
        if (!this.#closed && relevant(name, event)) this.#o.onChange();
      });
    } catch (err) {
      if (codeOf(err) === 'ENOENT' || codeOf(err) === 'ENOTDIR') return true;
      this.#fail(watchFailure(err));
      return false;
    }
    w.on('error', (err) => {
      // A folder removed under its watch ends it; anything else ends the lane's watch.
      void lstat(dir).then(
        () => this.#fail(watchFailure(err)),
        () => this.#unwatch(dir),
      );
    });
    this.#watchers.set(dir, w);
    return true;
  }

  #unwatch(path: string): void {
    for (const [dir, w] of this.#watchers) {
      if (dir === path || dir.startsWith(path + sep)) {
        w.close();
        this.#watchers.delete(dir);
        this.#inodes.delete(dir);
      }
    }
  }

  /** The folders of `dirs` git does not ignore (the worktree itself never is). */
  async #notIgnored(dirs: readonly string[]): Promise<string[]> {
    const worktree = this.#o.worktree;
    const asked = dirs.filter((d) => d !== worktree);
    const ignored = new Set<string>();
    for (let i = 0; i < asked.length && !this.#closed; i += CHECK_BATCH) {
      const paths = asked.slice(i, i + CHECK_BATCH).map((d) => relative(worktree, d));
      this.checks++;
      // Exit 1: none ignored; 128 (a path in a submodule, say): watched as not ignored. One path a
      // line (-z needs --stdin); a name git still quotes (a newline, a quote) is watched: more watches, no loss.
      const run = await git(worktree, ['-c', 'core.quotePath=false', 'check-ignore', '--', ...paths]);
      if (run.code === 0) for (const p of run.stdout.split('\n')) if (p !== '') ignored.add(join(worktree, p));
    }
    return dirs.filter((d) => !ignored.has(d));
  }

  #fail(reason: string): void {
    if (this.#closed) return;
    this.close();
    this.#o.onFail(reason);
  }
}

/** The worktree's own git folder: `.git` names it in a linked worktree (`gitdir: PATH`), or is it. */
async function gitDirOf(worktree: string): Promise<string> {
  const dotGit = join(worktree, '.git');
  if ((await lstat(dotGit)).isDirectory()) return dotGit;
  const m = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'));
  if (!m?.[1]) throw new Error(`${dotGit} names no gitdir`);
  return resolve(worktree, m[1].trim());
}

function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

function watchFailure(err: unknown): string {
  const code = codeOf(err);
  if (code === 'ENOSPC') return `the user's inotify watches are used up (fs.inotify.max_user_watches): ${messageOf(err)}`;
  if (code === 'EMFILE') return `too many open files or inotify instances (fs.inotify.max_user_instances): ${messageOf(err)}`;
  return messageOf(err);
}

/** What tells one folder from another made later at the same path. */
function identity(st: Stats): string {
  return `${st.ino}:${st.birthtimeMs}`;
}
