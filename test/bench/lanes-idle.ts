/**
 * `npm run bench -- lanes-idle`: the cockpit at rest with 8 lanes open, beside
 * the same cockpit with the same 8 agents in no lane and tmux with 8 panes,
 * all at once in ptys of the same size (as the idle bench). Each agent says
 * one line and then stays silent (`sleep`). The lanes are made by `tai spawn
 * --lane` from the main pane, in a temporary repository the size of this
 * one. After `warm` s, one window of `seconds`: CPU as a share of one core
 * (every thread's schedstat, ns) and wake-ups; for tai also the CPU of the
 * children it reaped in the window (the lanes' `git diff --shortstat`, from
 * cutime + cstime of /proc/PID/stat, in 10 ms ticks), since a stat that runs
 * git costs the machine even when it costs the cockpit's loop nothing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientSide, delay, serverOf, stopTai, terminal, tmuxSession, until } from './cockpit.js';
import { repoOf } from './lanes.js';
import { AgentsStore } from '../../src/io/storage/agents-store.js';
import { openStateDb, STATE_DB_FILE } from '../../src/io/storage/state-db.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const AGENT = "sh -c 'echo waiting for something that never comes; exec sleep 600'";

/** Run time of every thread of `pid` (s) and its context switches. */
function own(pid: number): { cpu: number; switches: number } {
  let cpu = 0;
  let switches = 0;
  for (const task of readdirSafe(`/proc/${pid}/task`)) {
    try {
      cpu += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
      for (const m of readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8').matchAll(/ctxt_switches:\s+(\d+)/g)) switches += Number(m[1]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { cpu, switches };
}

/** CPU (s) of the children `pid` has waited for: cutime + cstime, fields 16 and 17 of /proc/PID/stat. */
function reaped(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[16 - 3]) + Number(f[17 - 3])) / 100;
  } catch {
    return 0;
  }
}

function readdirSafe(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

const spawnAll = (repo: string, lanes: boolean, total: number): string =>
  `for i in 1 2 3 4 5 6 7 8; do tai spawn ${lanes ? '--lane lane-$i ' : ''}--label quiet-$i --detach --cwd ${repo} -- ${AGENT} >/dev/null 2>&1; done; exec sleep ${total}`;

/** Prints the table. */
export async function run(options: { quick?: boolean } = {}): Promise<void> {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    process.stdout.write('lanes-idle bench: tmux is not installed; skipped\n');
    return;
  }
  const warm = options.quick ? 10 : 25;
  const seconds = options.quick ? 10 : 30;
  const total = warm + seconds + 60;
  const files = Number(execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean).length);
  const repo = repoOf(files);
  // Each cockpit its own state folder: the machine-wide cap of 8 agents is counted per state database.
  const state = mkdtempSync(join(tmpdir(), 'tai-bench-lanes-idle-'));
  const laned = terminal(process.execPath, [CLI, '--', 'sh', '-c', spawnAll(repo, true, total)], { XDG_STATE_HOME: join(state, 'laned') });
  const plain = terminal(process.execPath, [CLI, '--', 'sh', '-c', spawnAll(repo, false, total)], { XDG_STATE_HOME: join(state, 'plain') });
  const tmux8 = await tmuxSession(`tai-lanes-idle-${process.pid}`, `sleep ${total}`, new Array<string>(8).fill(AGENT));
  // Each cockpit keeps its agents' rows in its state database: 8 running ones when all have started.
  const running = (side: string): number => {
    const db = openStateDb(join(state, side, 'tai', STATE_DB_FILE));
    try {
      return new AgentsStore(db).list(50).filter((a) => a.label.startsWith('quiet-') && a.state === 'running').length;
    } finally {
      db.close();
    }
  };
  const ready = await until(() => running('laned') === 8 && running('plain') === 8, 60_000);
  await delay(warm * 1000);
  const withServer = (t: typeof laned): number[] => [...clientSide(t.pty.pid), ...[serverOf(t.pty.pid)].filter((n): n is number => n !== undefined)];
  const sides = { laned: withServer(laned), plain: withServer(plain), tmux8: [tmux8.server, tmux8.client.pty.pid] };
  const sample = () =>
    Object.fromEntries(
      Object.entries(sides).map(([k, pids]) => [
        k,
        pids.map((p) => ({ ...own(p), reaped: reaped(p) })).reduce((a, b) => ({ cpu: a.cpu + b.cpu, switches: a.switches + b.switches, reaped: a.reaped + b.reaped })),
      ]),
    );
  const before = sample();
  const t0 = performance.now();
  await delay(seconds * 1000);
  const dt = (performance.now() - t0) / 1000;
  const after = sample();
  const m = (k: keyof typeof sides) => ({
    cpu: (100 * (after[k]!.cpu - before[k]!.cpu)) / dt,
    reaped: (100 * (after[k]!.reaped - before[k]!.reaped)) / dt,
    wakeups: (after[k]!.switches - before[k]!.switches) / dt,
  });
  const [l, p, t] = [m('laned'), m('plain'), m('tmux8')];
  await Promise.all([stopTai(laned), stopTai(plain)]);
  tmux8.kill();
  rmSync(repo, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
  const f = (n: number, d = 3) => n.toFixed(d);
  process.stdout.write(`\n## lanes-idle: 8 lanes open at rest (${seconds} s from ${warm} s after the start; repository of ${files} files${ready ? '' : '; NOT all 8 agents seen'})\n\n`);
  process.stdout.write('| measure | tai (server + client), 8 agents in 8 lanes | tai (server + client), the same 8 agents, no lanes | tmux, 8 panes (server + client) |\n|---|---|---|---|\n');
  process.stdout.write(`| the cockpit's own CPU: % of a core | ${f(l.cpu)} | ${f(p.cpu)} | ${f(t.cpu)} |\n`);
  process.stdout.write(`| its reaped children (git): % of a core | ${f(l.reaped, 2)} | ${f(p.reaped, 2)} | ${f(t.reaped, 2)} |\n`);
  process.stdout.write(`| wake-ups a second | ${f(l.wakeups, 1)} | ${f(p.wakeups, 1)} | ${f(t.wakeups, 1)} |\n`);
}
