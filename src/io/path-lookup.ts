/**
 * The one PATH lookup, as a shell finds a program but safer: only absolute PATH entries (an empty or relative one is
 * the current folder, where anyone's file may sit), and only an executable regular file (a folder has its x bit too).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * The full path of an executable `program`: looked up in `PATH`'s absolute folders, or taken as a path when it
 * holds a `/`. Empty and relative entries (the current folder) are never searched.
 */
export function which(program: string, PATH: string | undefined, cwd: string = process.cwd()): string | undefined {
  if (program === '') return undefined;
  if (program.includes('/')) {
    const full = resolve(cwd, program);
    return isExecutableFile(full) ? full : undefined;
  }
  for (const dir of (PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
