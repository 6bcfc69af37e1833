/**
 * The rooms of src/io and src/core (docs/architecture.md): no
 * folder holds more than FOLDER_FILES_MAX files directly, and every folder's
 * main file opens with a paragraph naming the folder. A folder that grows
 * past it fails here, with its count, before it becomes a catch-all again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** No folder directly holds more than about 12 files, so none becomes a catch-all. */
const FOLDER_FILES_MAX = 12;

/** Every folder under `dir` (repository-relative), itself first; the native build's output is not source. */
function folders(dir: string): string[] {
  const subs = readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'build');
  return [dir, ...subs.flatMap((e) => folders(`${dir}/${e.name}`))];
}

const filesIn = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);

describe('the folders of src/io and src/core', () => {
  const all = [...folders('src/io'), ...folders('src/core')];

  it(`hold at most ${FOLDER_FILES_MAX} files each`, () => {
    const crowded = all.map((d) => `${d}: ${filesIn(d).length}`).filter((line) => Number(line.split(': ')[1]) > FOLDER_FILES_MAX);
    expect(crowded).toEqual([]);
  });

  it("each have a main file whose header names the folder", () => {
    // src/io and src/core themselves hold the layers' loose files, described in docs/architecture.md.
    const unnamed = all
      .filter((d) => d !== 'src/io' && d !== 'src/core' && filesIn(d).some((f) => f.endsWith('.ts')))
      .filter((d) => !filesIn(d).some((f) => f.endsWith('.ts') && readFileSync(join(ROOT, d, f), 'utf8').slice(0, 400).includes(`\`${d}/\``)));
    expect(unnamed).toEqual([]);
  });
});
