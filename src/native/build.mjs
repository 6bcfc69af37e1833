#!/usr/bin/env node
// Builds the native reaper (reaper.c) into build/tai-reaper and the native
// client (client.c) into build/tai-client; run by `npm install` (the
// package's install script) and by hand with `node src/native/build.mjs`.
//
// Why `cc` directly and not node-gyp: each is one C file that uses nothing
// from Node, and node-gyp would add Python, make and a download of Node's
// headers (a network step at install) to build them; `cc` alone is what
// node-gyp needs anyway, and it takes a fraction of a second.
//
// The same tai-reaper is what a Linux host of remote agents gets (its `--host`
// mode): copied there when the host's `uname -sm` is this one's, or reaper.c
// built there with the host's cc (docs/remote.md, "The reaper on a host").
//
// Each is linked statically when it can be: a static binary maps no ld.so
// and no libc.so, so it touches about half the pages of a dynamic one
// (docs/agents.md, "The reaper"). musl first (musl-gcc on PATH, or
// $TAI_MUSL_CC): a static glibc binary keeps most of glibc's text resident,
// a static musl one a small part of it. Then cc static, then cc dynamic
// (without libc.a); the program is the same. CC, when set, is the only
// compiler tried (static, then dynamic).
//
// It never fails the install: without a compiler, or off Linux for the
// reaper (it needs PR_SET_CHILD_SUBREAPER and signalfd), it prints one line
// and tai runs its agents behind the node reaper (docs/agents.md, "The
// reaper") or attaches with the node client (docs/architecture.md).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const cc = process.env.CC || 'cc';

/** True when `name` (a path, or a bare name looked up in PATH) is an executable file. */
function found(name) {
  const candidates = isAbsolute(name) || name.includes('/') ? [name] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, name));
  return candidates.some((c) => {
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The links tried in order, each [compiler, extra flags]; the first that succeeds is kept. */
function attempts() {
  if (process.env.CC) return [[cc, ['-static']], [cc, []]];
  const musl = process.env.TAI_MUSL_CC || 'musl-gcc';
  return [...(found(musl) ? [[musl, ['-static']]] : []), [cc, ['-static']], [cc, []]];
}

const targets = [
  { source: 'reaper.c', out: 'tai-reaper', what: 'the native reaper', fallback: 'agents will run behind the node reaper', linuxOnly: true },
  { source: 'client.c', out: 'tai-client', what: 'the native client', fallback: 'tai attach will use the node client', linuxOnly: false },
];

for (const t of targets) {
  if (process.platform === 'win32' || (t.linuxOnly && process.platform !== 'linux')) {
    process.stdout.write(`tai: ${t.what} is for ${t.linuxOnly ? 'Linux' : 'POSIX systems'} only; ${t.fallback}\n`);
    continue;
  }
  const out = join(here, 'build', t.out);
  mkdirSync(dirname(out), { recursive: true });
  // Built beside it and renamed over it: a running binary keeps its old file
  // (writing over a running executable fails with ETXTBSY).
  const tmp = `${out}.${process.pid}`;
  const link = ([compiler, extra]) => spawnSync(compiler, ['-O2', '-Wall', '-Wextra', ...extra, '-o', tmp, join(here, t.source)], { encoding: 'utf8' });
  let r;
  for (const a of attempts()) if ((r = link(a)).status === 0) break;
  if (r.status === 0) {
    renameSync(tmp, out);
  } else {
    rmSync(tmp, { force: true });
    const why = r.error ? r.error.message : (r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`);
    process.stdout.write(`tai: could not build ${t.what} (${cc}: ${why}); ${t.fallback}\n`);
  }
}
