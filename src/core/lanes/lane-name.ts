/**
 * The folder `src/core/lanes/`: lanes as data (docs/lanes.md). This file: their names. A user's name must already
 * be safe; one made from a label is slugged and made unique, so `tai spawn --lane` never fails on a label with
 * spaces or slashes.
 */

/** Every lane's branch lives under this prefix. */
export const LANE_BRANCH_PREFIX = 'tai/';

/** The longest lane name: it must fit a panel header beside the label. */
export const LANE_NAME_MAX = 40;

/** A valid lane name: lower-case letters and digits, then also `.`, `_` and `-`; never `..` or a `.lock` end. */
export const LANE_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** A name given for a lane that cannot be a branch or a folder name. */
export class LaneNameError extends Error {
  override readonly name = 'LaneNameError';
  constructor(readonly lane: string) {
    super(
      `"${lane}" is not a valid lane name: use lower-case letters, digits, ".", "_" and "-", ` +
        `starting with a letter or digit, at most ${LANE_NAME_MAX} characters, without ".." or a ".lock" end`,
    );
  }
}

/** True when `name` is a lane name as given (no slugging). */
export function isLaneName(name: string): boolean {
  return name.length <= LANE_NAME_MAX && LANE_NAME.test(name) && !name.includes('..') && !name.endsWith('.lock') && !name.endsWith('.');
}

/** Throws LaneNameError unless `name` is a valid lane name. */
export function checkLaneName(name: string): string {
  if (!isLaneName(name)) throw new LaneNameError(name);
  return name;
}

/** A lane name made from a label: `@coder Fix the tests!` -> `coder-fix-the-tests`; `lane` when nothing is left. */
export function laneNameOf(label: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/-{2,}/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, LANE_NAME_MAX)
    .replace(/[._-]+$/, '')
    .replace(/\.lock$/, '');
  return slug === '' ? 'lane' : slug;
}

/** `base` when free, else `base-2`, `base-3`, ... (cut to fit LANE_NAME_MAX); `taken` says which names are used. */
export function uniqueLaneName(base: string, taken: (name: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const name = `${base.slice(0, LANE_NAME_MAX - suffix.length).replace(/[._-]+$/, '')}${suffix}`;
    if (!taken(name)) return name;
  }
}

/** The branch of a lane: `tai/NAME`. */
export function laneBranch(name: string): string {
  return `${LANE_BRANCH_PREFIX}${name}`;
}
