#!/usr/bin/env node
// Builds the native reaper (reaper.c) into build/tai-reaper; run by `npm
// install` (the package's install script) and by hand with
// `node src/native/build.mjs`.
//
// Why `cc` directly and not node-gyp: the reaper is one C file that uses
// nothing from Node, and node-gyp would add Python, make and a download of
// Node's headers (a network step at install) to build it; `cc` alone is what
// node-gyp needs anyway, and it takes a fraction of a second.
//
// It never fails the install: without a compiler, or off Linux (the reaper
// needs PR_SET_CHILD_SUBREAPER and signalfd), it prints one line and tai runs
// its agents behind the node reaper (docs/agents.md, "The reaper").
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'build', 'tai-reaper');
const fallback = 'agents will run behind the node reaper';

if (process.platform !== 'linux') {
  process.stdout.write(`tai: the native reaper is for Linux only; ${fallback}\n`);
  process.exit(0);
}
mkdirSync(dirname(out), { recursive: true });
// Built beside it and renamed over it: a running reaper keeps its old file
// (writing over a running executable fails with ETXTBSY).
const tmp = `${out}.${process.pid}`;
const cc = process.env.CC || 'cc';
const r = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-o', tmp, join(here, 'reaper.c')], { encoding: 'utf8' });
if (r.status === 0) {
  renameSync(tmp, out);
} else {
  rmSync(tmp, { force: true });
  const why = r.error ? r.error.message : (r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`);
  process.stdout.write(`tai: could not build the native reaper (${cc}: ${why}); ${fallback}\n`);
}
