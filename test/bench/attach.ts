/**
 * `npm run bench -- attach`: 100 attach/detach cycles while 8 agents stream
 * (README, "New, detach, attach, list, kill"). A cockpit named for the run
 * streams 8 demo agents at 500 tok/s; each cycle a new client attaches in a
 * pty of its own, waits for its status line, and detaches with prefix + d.
 * Reported: the cycle time, the server's RSS every 20 cycles (it must stay
 * flat), and at the end whether every agent still runs with nothing
 * dropped (the agents never notice). A benchmark reports; it never fails.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { delay, rssOf, serverOf, terminal, until } from './cockpit.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');

/** Runs the cycles and prints the table. */
export async function run(options: { cycles?: number } = {}): Promise<void> {
  const cycles = options.cycles ?? 100;
  const dir = mkdtempSync(join(tmpdir(), 'tai-bench-attach-'));
  const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') };
  mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
  const name = `bench${process.pid}`;
  const first = terminal(process.execPath, [CLI, 'demo', '-s', name, '--agents', 'stream*8', '--rate', '500', '--seconds', '3600', '--', 'sleep', '3600'], env);
  await until(() => first.text.includes('demo stream #8'));
  const server = serverOf(first.pty.pid) ?? 0;
  first.pty.kill('SIGHUP'); // its terminal goes: the first client detaches
  await until(() => first.exited);
  const rss: string[] = [];
  const times: number[] = [];
  for (let i = 1; i <= cycles; i++) {
    const t0 = performance.now();
    const p = pty.spawn(process.execPath, [CLI, 'attach', name], { cols: 160, rows: 60, env: { ...process.env, ...env } as Record<string, string> });
    let text = '';
    let exited = false;
    p.onData((d) => (text = (text + d).slice(-20_000)));
    p.onExit(() => (exited = true));
    await until(() => text.includes(`tai ${name}`), 20_000);
    p.write('\x1dd');
    await until(() => exited, 20_000);
    times.push(performance.now() - t0);
    if (i === 1 || i % 20 === 0) rss.push(`${i}: ${rssOf(server).toFixed(1)}`);
  }
  const status = JSON.parse(execFileSync(process.execPath, [CLI, 'status', '-t', name, '--json'], { encoding: 'utf8', env: { ...process.env, ...env } })) as {
    agents: { state: string; droppedBytes: number }[];
  };
  const running = status.agents.filter((a) => a.state === 'running').length;
  const dropped = status.agents.reduce((a, r) => a + r.droppedBytes, 0);
  execFileSync(process.execPath, [CLI, 'kill', name], { env: { ...process.env, ...env } });
  await delay(200);
  rmSync(dir, { recursive: true, force: true });
  times.sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(0);
  process.stdout.write(`\n## attach: ${cycles} attach/detach cycles while 8 agents stream at 500 tok/s (160x60)\n\n| measure | value |\n|---|---|\n`);
  process.stdout.write(`| one cycle (attach, first status line, prefix + d, exit): ms p50 / p99 | ${f(times[Math.floor(times.length / 2)] ?? NaN)} / ${f(times[Math.floor(times.length * 0.99)] ?? NaN)} |\n`);
  process.stdout.write(`| server RSS MB after cycle N | ${rss.join(' · ')} |\n`);
  process.stdout.write(`| agents still running at the end / bytes dropped | ${running} of 8 / ${dropped} |\n`);
}
