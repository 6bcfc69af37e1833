/**
 * What an agent's program and folder were at its start, and whether they are
 * the same at its restore: gone, changed (another file or folder at that
 * path, or a program rewritten), or the same. A restore says which, never
 * guesses (docs/restore.md).
 */
import { statSync } from 'node:fs';
import type { Fingerprint } from '../../core/restore/launch.js';
import type { Sameness } from '../../core/restore/restore-plan.js';
import { which } from '../path-lookup.js';

/** The fingerprint of a file or folder, or undefined when it cannot be read. */
export function fingerprint(path: string, file: boolean): Fingerprint | undefined {
  try {
    const st = statSync(path);
    return file ? { path, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } : { path, dev: st.dev, ino: st.ino };
  } catch {
    return undefined;
  }
}

/** The program `argv[0]` as PATH finds it from `cwd`, fingerprinted. */
export function programPrint(argv0: string | undefined, cwd: string, env: NodeJS.ProcessEnv = process.env): Fingerprint | undefined {
  const found = argv0 === undefined ? undefined : which(argv0, env.PATH, cwd);
  return found === undefined ? undefined : fingerprint(found, true);
}

/** How the thing at `was.path` compares with `was` now. */
export function sameness(was: Fingerprint | undefined, file: boolean): Sameness {
  if (was === undefined) return 'unknown';
  const now = fingerprint(was.path, file);
  if (now === undefined) return 'gone';
  if (now.dev !== was.dev || now.ino !== was.ino) return 'changed';
  if (file && (now.size !== was.size || now.mtimeMs !== was.mtimeMs)) return 'changed';
  return 'same';
}
