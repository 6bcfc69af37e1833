import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf, spawnGroup, type GroupChild } from '../../../../src/io/agents/runners/process-group.js';
import { builtReaper, type ReaperKind } from '../../../../src/io/agents/runners/reaper-binary.js';
import { fixture, groupExists, liveMembers, pidLive } from '../../../helpers/agents.js';
import { until } from '../../../helpers/until.js';
import { testEnv } from '../../../helpers/test-env.js';

const node = process.execPath;
const agent = fixture('command-agent.mjs');

/** The native reaper's binary, built here if the install did not (it never fails the install). */
let nativeBinary = '';
beforeAll(() => {
  if (!builtReaper()) execFileSync(node, [fileURLToPath(new URL('../../../../src/native/build.mjs', import.meta.url))], { stdio: 'inherit' });
  nativeBinary = builtReaper() ?? '';
  if (!nativeBinary) throw new Error('the native reaper could not be built (see the line above): the native cases cannot run');
});

/** Collects a group's stdout; `line(re)` waits for a line and returns its first capture as a number. */
function output(g: GroupChild): { text: () => string; number: (re: RegExp) => Promise<number> } {
  let out = '';
  g.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return {
    text: () => out,
    number: async (re) => {
      await until(() => re.test(out));
      return Number(re.exec(out)?.[1]);
    },
  };
}

/** A field of /proc/PID/status in kB (VmRSS, ...). */
function statusKb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1]);
}

describe.each<[ReaperKind]>([['native'], ['node']])('process groups behind the %s reaper', (kind) => {
  const start = (argv: string[]): GroupChild => {
    const g = spawnGroup(argv, { reaper: kind });
    expect(g.reaperKind).toBe(kind);
    return g;
  };

  it('starts the agent in its own process group and passes its exit code through', async () => {
    const g = start([node, agent, '--say', 'hi', '--exit', '7']);
    const pgid = await g.started;
    expect(pgid).toBeGreaterThan(0);
    expect(pgid).not.toBe(process.pid);
    const out = output(g);
    expect(exitCodeOf(await g.exited)).toBe(7);
    expect(out.text()).toBe('hi\n');
  });

  it('dies by the signal that ended the agent', async () => {
    const g = start(['sh', '-c', 'kill -TERM $$']);
    expect(await g.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('reports a program that cannot start as exit 127', async () => {
    const g = start(['/nonexistent/agent']);
    let err = '';
    g.stderr.on('data', (c: Buffer) => (err += c.toString()));
    expect(exitCodeOf(await g.exited)).toBe(127);
    expect(err).toContain('tai: cannot start /nonexistent/agent');
    expect(await g.started).toBeUndefined();
  });

  it('kills the whole group hard: kill(-pgid, 0) then fails with ESRCH', async () => {
    // SIGINT only once the agent ignores it: before its handler is in, SIGINT would end it.
    const ready = join(mkdtempSync(join(tmpdir(), 'tai-pg-')), 'ready');
    const g = start([node, agent, '--ignore-int', '--ready', ready]);
    const pgid = (await g.started) as number;
    await until(() => existsSync(ready));
    g.signal('SIGINT');
    expect(groupExists(pgid)).toBe(true);
    g.kill();
    const exit = await g.exited;
    expect(exit.signal).toBe('SIGKILL');
    await until(() => !groupExists(pgid));
  });

  it('kills the processes the agent started too', async () => {
    const g = start([node, agent, '--child', '--ignore-int']);
    const pgid = (await g.started) as number;
    const grandchild = await output(g).number(/child (\d+)/);
    expect(liveMembers(pgid).sort()).toEqual([pgid, grandchild].sort());
    g.kill();
    await g.exited;
    // With the node reaper the grandchild is reparented to init when the agent
    // dies; where init does not reap (this container's PID 1), it lingers as a
    // zombie, which kill(-pgid, 0) still counts, so the check is on live members.
    await until(() => liveMembers(pgid).length === 0 && !pidLive(grandchild));
  });

  // The node reaper only knows the agent's group: a setsid descendant is out of its reach.
  const setsidCase = it.skipIf(kind === 'node');
  const limitation = kind === 'node' ? ' (not with the node reaper: a known limitation, docs/agents.md)' : '';

  /** Starts `argv` (which prints "detached PID") and checks that PID left the agent's group. */
  const withDetached = async (argv: string[], exitsAtOnce = false): Promise<{ g: GroupChild; detached: number; out: ReturnType<typeof output> }> => {
    const g = start(argv);
    const pgid = (await g.started) as number;
    const out = output(g);
    const detached = await out.number(/detached (\d+)/);
    // An agent that exits at once may be reaped, and its descendant killed, before this looks.
    if (!exitsAtOnce) expect(pidLive(detached)).toBe(true);
    expect(liveMembers(pgid)).not.toContain(detached);
    return { g, detached, out };
  };

  setsidCase(`kills a grandchild that left the group with setsid when a soft stop ends the agent${limitation}`, async () => {
    const { g, detached, out } = await withDetached([node, agent, '--detached', '--linger']);
    await until(() => out.text().includes('waiting\n'));
    g.signal('SIGINT');
    expect(exitCodeOf(await g.exited)).toBe(130);
    await until(() => !pidLive(detached));
  });

  setsidCase(`kills a grandchild that left the group with setsid when the agent exits on its own${limitation}`, async () => {
    const { g, detached } = await withDetached([node, agent, '--detached', '--exit', '3'], true);
    expect(exitCodeOf(await g.exited)).toBe(3);
    await until(() => !pidLive(detached));
  });

  setsidCase(`kills a grandchild that left the group with setsid on the hard stop${limitation}`, async () => {
    const { g, detached } = await withDetached([node, agent, '--detached', '--ignore-int']);
    g.kill();
    expect((await g.exited).signal).toBe('SIGKILL');
    await until(() => !pidLive(detached));
  });

  /** Starts a supervisor (tests/fixtures/supervisor.mjs) on a transpiled copy of the module, outside the package. */
  const supervise = (argv: string[]): { out: () => string; kill: () => void } => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-pg-'));
    // The module and what it imports, transpiled alone, in their places (an ES module package).
    const transpile = (rel: string): void => {
      const source = readFileSync(new URL(`../../../../src/io/${rel}`, import.meta.url), 'utf8');
      const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
      const to = join(dir, rel.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, js);
    };
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    for (const rel of ['agents/runners/process-group.ts', 'agents/runners/reaper-binary.ts', 'agents/paced-read.ts', 'idle-collect.ts', 'node-internals.ts']) transpile(rel);
    // Outside the package the copy finds no built reaper: TAI_REAPER names it.
    const env = testEnv({ TAI_REAPER: kind === 'native' ? nativeBinary : 'node' });
    const supervisor = spawn(node, [fixture('supervisor.mjs'), join(dir, 'agents/runners/process-group.js'), ...argv], { stdio: ['ignore', 'pipe', 'inherit'], env });
    let out = '';
    supervisor.stdout.on('data', (c: Buffer) => (out += c.toString()));
    return { out: () => out, kill: () => supervisor.kill('SIGKILL') };
  };

  it('leaves no agent behind when its supervisor is killed with SIGKILL', async () => {
    const s = supervise([node, agent, '--ignore-int']);
    await until(() => /pgid \d+/.test(s.out()));
    const pgid = Number(/pgid (\d+)/.exec(s.out())?.[1]);
    expect(groupExists(pgid)).toBe(true);
    s.kill();
    // The lifeline closes with the supervisor; the reaper kills the agent's group and reaps it.
    await until(() => !groupExists(pgid));
  });

  setsidCase(`kills a grandchild that left the group with setsid when its supervisor is killed with SIGKILL${limitation}`, async () => {
    const s = supervise([node, agent, '--detached', '--ignore-int']);
    await until(() => /pgid \d+/.test(s.out()) && /detached \d+/.test(s.out()));
    const pgid = Number(/pgid (\d+)/.exec(s.out())?.[1]);
    const detached = Number(/detached (\d+)/.exec(s.out())?.[1]);
    expect(pidLive(detached)).toBe(true);
    s.kill();
    await until(() => !groupExists(pgid) && !pidLive(detached));
  });
});

describe('the native reaper', () => {
  it('holds under 4 MB of RSS while its agent runs', async () => {
    const g = spawnGroup(['sleep', '30'], { reaper: 'native' });
    await g.started;
    // Measured: about 1.4 MB (npm run bench -- reaper); 4 MB is a generous bound.
    expect(statusKb(g.reaper.pid as number, 'VmRSS')).toBeLessThan(4096);
    g.kill();
    await g.exited;
  });

  it('shows in ps as tai-reaper and the agent\'s command line', async () => {
    const g = spawnGroup(['sleep', '30'], { reaper: 'native' });
    await g.started;
    const args = execFileSync('ps', ['-o', 'args=', '-p', String(g.reaper.pid)], { encoding: 'utf8' });
    expect(args).toBe('tai-reaper sleep 30\n');
    g.kill();
    await g.exited;
  });
});
