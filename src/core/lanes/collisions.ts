/**
 * Which live lanes collide (docs/lanes.md, "Collisions"): two that changed one file, and whether the same lines (a
 * hunk touching or overlapping another, as git's merge counts adjacent changes a conflict). Pure: files and hunks
 * come from git (src/io/lane-collide/).
 */

/** The files one lane changed against its base (committed, uncommitted and new). */
export interface LaneTouch {
  readonly name: string;
  readonly files: readonly string[];
}

/** Two lanes that changed the same files. */
export interface Collision {
  readonly a: string;
  readonly b: string;
  readonly files: readonly string[];
}

/** What one lane is told about another it collides with. */
export interface CollisionWith {
  readonly other: string;
  readonly files: readonly string[];
  /** Files of `files` where both changed the same lines (or both made it new). */
  readonly sameLines: readonly string[];
}

/** Every pair of lanes (in the order given) that changed a file in common, with those files sorted. */
export function collisions(touches: readonly LaneTouch[]): Collision[] {
  const found: Collision[] = [];
  for (let i = 0; i < touches.length; i++) {
    const a = touches[i];
    if (!a) continue;
    const mine = new Set(a.files);
    for (const b of touches.slice(i + 1)) {
      const files = [...new Set(b.files.filter((f) => mine.has(f)))].sort();
      if (files.length > 0) found.push({ a: a.name, b: b.name, files });
    }
  }
  return found;
}

/** The collisions of lane `name`, seen from it: the other lane and the files. */
export function collisionsOf(name: string, all: readonly Collision[]): { other: string; files: readonly string[] }[] {
  return all.flatMap((c) => (c.a === name ? [{ other: c.b, files: c.files }] : c.b === name ? [{ other: c.a, files: c.files }] : []));
}

/** Lines of the base file a change covers: `[start, end)`; an insertion after line n is `[n + 1, n + 1)`. */
export interface LineSpan {
  readonly start: number;
  readonly end: number;
}

/** A file new in the lane (no base lines): it covers everything. */
export const WHOLE_FILE: LineSpan = { start: 0, end: Number.MAX_SAFE_INTEGER };

/** The base-side spans of each file in `git diff -U0` output (`@@ -a,b +c,d @@`), by path; a new file is WHOLE_FILE. */
export function parseHunks(diff: string): Map<string, LineSpan[]> {
  const spans = new Map<string, LineSpan[]>();
  let file: string | undefined;
  let isNew = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      file = undefined;
      isNew = false;
    } else if (line.startsWith('new file mode')) isNew = true;
    else if (line.startsWith('+++ ')) {
      const path = line.slice(4);
      file = path === '/dev/null' ? file : path.replace(/^b\//, '');
      if (file !== undefined && !spans.has(file)) spans.set(file, isNew ? [WHOLE_FILE] : []);
    } else if (line.startsWith('--- a/') && file === undefined) {
      // A deleted file has `+++ /dev/null`: its name is on the `---` line.
      file = line.slice(6);
    } else if (line.startsWith('@@ ') && file !== undefined && !isNew) {
      const m = /^@@ -(\d+)(?:,(\d+))? /.exec(line);
      if (!m) continue;
      const start = Number(m[1]);
      const count = m[2] === undefined ? 1 : Number(m[2]);
      const list = spans.get(file) ?? [];
      list.push(count === 0 ? { start: start + 1, end: start + 1 } : { start, end: start + count });
      spans.set(file, list);
    }
  }
  return spans;
}

/** Whether two lanes' changes to one file touch or overlap (adjacent changes conflict in a merge too). */
export function sameLines(a: readonly LineSpan[], b: readonly LineSpan[]): boolean {
  return a.some((x) => b.some((y) => x.start <= y.end && y.start <= x.end));
}

/** At most this many files are named in a warning; the rest are counted. */
const FILES_SHOWN = 3;

/** `a.ts, b.ts and 2 more` */
export function fileList(files: readonly string[]): string {
  const shown = files.slice(0, FILES_SHOWN).join(', ');
  return files.length > FILES_SHOWN ? `${shown} and ${files.length - FILES_SHOWN} more` : shown;
}

/** The warning for one collision: `⚠ also changed by lane b: src/x.ts (same lines)`. */
export function collisionText(c: CollisionWith): string {
  const same = c.sameLines.length === 0 ? '' : c.sameLines.length === c.files.length ? ' (same lines)' : ` (same lines in ${fileList(c.sameLines)})`;
  return `⚠ also changed by lane ${c.other}: ${fileList(c.files)}${same}`;
}

/** The header's short form: `⚠ b: x.ts` for each colliding lane. */
export function collisionTag(list: readonly CollisionWith[]): string {
  return list.map((c) => `⚠ ${c.other}: ${fileList(c.files)}${c.sameLines.length > 0 ? ' (same lines)' : ''}`).join(' · ');
}
