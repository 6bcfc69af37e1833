/**
 * The environment every process a test starts begins from: explicit, never
 * the caller's. A developer's NO_COLOR, FORCE_COLOR, TERM, TAI_PREFIX, TMUX,
 * HOME or XDG folders must not change what a test sees, so a spawned tai gets
 * only these variables and what the test adds. HOME and the XDG folders are
 * this test process's own (made once), so a test that forgets to give its own
 * state folder still never touches the user's.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** This Node first (the one running the tests), then the system's folders: git, tmux, sh, sleep, pgrep. */
export const TEST_PATH = `${dirname(process.execPath)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;

/** Git's identity for every commit a test makes, and none of the caller's or the system's git config. */
export const TEST_GIT_ENV = {
  GIT_AUTHOR_NAME: 'Lane Test',
  GIT_AUTHOR_EMAIL: 'lane@test.invalid',
  GIT_COMMITTER_NAME: 'Lane Test',
  GIT_COMMITTER_EMAIL: 'lane@test.invalid',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
} as const;

let home: string | undefined;

/** A home and XDG folders for this test process, made on first use. */
function ownFolders(): Record<string, string> {
  home ??= mkdtempSync(join(tmpdir(), 'tai-test-home-'));
  const folders = {
    HOME: home,
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(home, 'run'),
  };
  mkdirSync(folders.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  return folders;
}

/**
 * The whole environment for a process a test starts: PATH, a private HOME
 * and XDG folders, a UTF-8 locale, TERM=xterm-256color, SHELL=/bin/bash and
 * git's test identity, then `extra` (a value of undefined removes that variable). No colour
 * switch, no prefix, no cockpit of the caller's.
 */
export function testEnv(extra: NodeJS.ProcessEnv = {}): Record<string, string> {
  const internals = process.env['TAI_INTERNALS'];
  const env: Record<string, string | undefined> = {
    PATH: TEST_PATH,
    ...ownFolders(),
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    // tmux runs a pane's command with $SHELL -c: bash execs it (the pane's pid is the command's), sh does not.
    SHELL: '/bin/bash',
    ...TEST_GIT_ENV,
    // The one switch a run sets on purpose: CI's second run takes every internal's fallback (TAI_INTERNALS=0).
    ...(internals === undefined ? {} : { TAI_INTERNALS: internals }),
    // A test's cockpits ended by SIGTERM would be restored by its next cockpit of that name (docs/restore.md): the restore's own tests turn it on.
    TAI_RESTORE: '0',
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * The whole environment of a tmux server a test starts, and so of every
 * shell in it, with its home and XDG folders under `dir`: nothing of the
 * caller's (NO_COLOR, TAI_PREFIX, ...).
 */
export function tmuxEnv(dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const internals = process.env['TAI_INTERNALS'];
  return {
    PATH: TEST_PATH,
    HOME: dir,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    NODE_ENV: 'production',
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    HISTFILE: '/dev/null',
    // CI's second run takes every internal's fallback: the cockpits in tmux too.
    ...(internals === undefined ? {} : { TAI_INTERNALS: internals }),
    ...extra,
  };
}
