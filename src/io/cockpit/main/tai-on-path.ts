/**
 * `tai` itself first on the main pane's PATH, so `tai spawn ...` works in the shell right after `npm start` and is the
 * same tai on the same Node as the cockpit. Its two-line script sits in a private folder (mkdtemp: 0700, a name nobody
 * can guess or pre-make), removed when the cockpit ends.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder put first on the main pane's PATH, and its removal. */
export interface TaiOnPath {
  /** The environment with the folder first on PATH. */
  readonly env: NodeJS.ProcessEnv;
  remove(): void;
}

/** The CLI this process runs from (dist/src/cli.js beside this module's folder). */
export const CLI_PATH = fileURLToPath(new URL('../../../cli.js', import.meta.url));

/** Puts a `tai` that runs `cli` with this Node first on `env`'s PATH. */
export function putTaiOnPath(env: NodeJS.ProcessEnv, cli: string = CLI_PATH, node: string = process.execPath): TaiOnPath {
  const dir = mkdtempSync(join(tmpdir(), 'tai-bin-'));
  const script = join(dir, 'tai');
  writeFileSync(script, `#!/bin/sh\nexec ${quote(node)} ${quote(cli)} "$@"\n`);
  chmodSync(script, 0o755);
  return {
    env: { ...env, PATH: env.PATH ? `${dir}${delimiter}${env.PATH}` : dir },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A word for sh, quoted whole. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
