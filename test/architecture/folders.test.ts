/**
 * The rooms of src/ (docs/architecture.md): no folder holds more than
 * FOLDER_FILES_MAX files directly, and every folder's main file opens with a
 * paragraph naming the folder. A folder that grows past it fails here, with
 * its count, before it becomes a catch-all again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** No folder directly holds more than about 12 files, so none becomes a catch-all. */
const FOLDER_FILES_MAX = 12;

/** The native build's output is not source. */
const NOT_SOURCE = new Set(['src/native/build']);

/** The folders whose loose files are the layers' own, each described in docs/architecture.md: the entry points, io, core. */
const LAYER_ROOTS = new Set(['src', 'src/io', 'src/core']);

/** Every folder under `dir` (repository-relative), itself first. */
function folders(dir: string): string[] {
  const subs = readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory() && !NOT_SOURCE.has(`${dir}/${e.name}`));
  return [dir, ...subs.flatMap((e) => folders(`${dir}/${e.name}`))];
}

const filesIn = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);

describe('the folders of src', () => {
  const all = folders('src');

  it(`hold at most ${FOLDER_FILES_MAX} files each`, () => {
    const crowded = all.map((d) => `${d}: ${filesIn(d).length}`).filter((line) => Number(line.split(': ')[1]) > FOLDER_FILES_MAX);
    expect(crowded).toEqual([]);
  });

  it("each have a main file whose header names the folder", () => {
    const unnamed = all
      .filter((d) => !LAYER_ROOTS.has(d) && filesIn(d).some((f) => f.endsWith('.ts')))
      .filter((d) => !filesIn(d).some((f) => f.endsWith('.ts') && readFileSync(join(ROOT, d, f), 'utf8').slice(0, 400).includes(`\`${d}/\``)));
    expect(unnamed).toEqual([]);
  });
});
