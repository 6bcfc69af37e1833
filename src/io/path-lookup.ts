/**
 * The one PATH lookup: where a program is, found the way a shell would find
 * it but more safely. Only absolute PATH entries are searched (an empty or
 * relative entry means the current directory, where anyone's file may sit),
 * and only an executable regular file counts (a directory has its x bit set
 * too). The agent registry (src/io/agents/spawn/agent-config.ts) and the give-up
 * notification (src/io/outage/notify.ts) both ask here.
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
