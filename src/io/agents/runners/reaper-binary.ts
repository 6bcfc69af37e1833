/**
 * Which reaper an agent starts behind (docs/agents.md, "The reaper"): the native src/native/build/tai-reaper when built
 * and on Linux, else process-group.ts's node reaper. TAI_REAPER: `node` forces node's, `native` demands the native one,
 * an absolute path names a binary (a test running a transpiled copy outside the package passes it). Kept apart from
 * process-group.ts so a test can transpile the two alone.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The two reapers. */
export type ReaperKind = 'native' | 'node';

/** A reaper chosen: the native one names its binary. */
export type Reaper = { readonly kind: 'native'; readonly path: string } | { readonly kind: 'node' };

/** The native reaper was asked for and is not there, or TAI_REAPER makes no sense. */
export class ReaperError extends Error {
  override readonly name = 'ReaperError';
}

/** Where the build puts the native reaper, relative to the package root. */
export const NATIVE_REAPER = 'src/native/build/tai-reaper';

/** The nearest folder at or above `from` whose package.json is named "tai", if any. */
export function packageRoot(from: string): string | undefined {
  // Walked up, not a fixed number of `..`: the compiled module sits deeper than its source.
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === 'tai') return dir;
    } catch {
      // No package.json here, or not JSON: look further up.
    }
    if (dirname(dir) === dir) return undefined;
  }
}

let root: string | undefined | null = null;

/** One of this package's built native programs (`relative` to the package root), when it is there and runnable. */
export function builtNative(relative: string): string | undefined {
  if (root === null) root = packageRoot(dirname(fileURLToPath(import.meta.url)));
  if (root === undefined) return undefined;
  const path = join(root, relative);
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

/** This package's built native reaper, when it is there (and runnable) on Linux. */
export function builtReaper(): string | undefined {
  return process.platform === 'linux' ? builtNative(NATIVE_REAPER) : undefined;
}

/** The reaper for a TAI_REAPER setting (or an explicit kind), given where the built one is. */
export function reaperFor(setting: string | undefined, built: string | undefined): Reaper {
  if (setting === undefined || setting === '') return built ? { kind: 'native', path: built } : { kind: 'node' };
  if (setting === 'node') return { kind: 'node' };
  if (setting === 'native') {
    if (built) return { kind: 'native', path: built };
    throw new ReaperError('the native reaper is not built (node src/native/build.mjs builds it; Linux only)');
  }
  if (isAbsolute(setting)) return { kind: 'native', path: setting };
  throw new ReaperError(`TAI_REAPER must be node, native or an absolute path, not '${setting}'`);
}

/** The reaper to start an agent behind now: `kind` if given, else per TAI_REAPER. */
export function currentReaper(kind?: ReaperKind): Reaper {
  return reaperFor(kind ?? process.env['TAI_REAPER'], builtReaper());
}
