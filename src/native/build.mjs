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
// (docs/agents.md, "The reaper"). Without libc.a the static link fails and
// the same source is linked dynamically; the program is the same.
//
// It never fails the install: without a compiler, or off Linux for the
// reaper (it needs PR_SET_CHILD_SUBREAPER and signalfd), it prints one line
// and tai runs its agents behind the node reaper (docs/agents.md, "The
// reaper") or attaches with the node client (docs/architecture.md).
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const cc = process.env.CC || 'cc';

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
  const link = (extra) => spawnSync(cc, ['-O2', '-Wall', '-Wextra', ...extra, '-o', tmp, join(here, t.source)], { encoding: 'utf8' });
  let r = link(['-static']);
  if (r.status !== 0) r = link([]);
  if (r.status === 0) {
    renameSync(tmp, out);
  } else {
    rmSync(tmp, { force: true });
    const why = r.error ? r.error.message : (r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`);
    process.stdout.write(`tai: could not build ${t.what} (${cc}: ${why}); ${t.fallback}\n`);
  }
}
