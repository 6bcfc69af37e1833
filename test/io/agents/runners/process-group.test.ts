import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, spawnGroup } from '../../../../src/io/agents/runners/process-group.js';
import { fixture, groupExists, liveMembers, pidLive } from '../../../helpers/agents.js';
import { until } from '../../../helpers/until.js';

const node = process.execPath;

describe('process groups behind a reaper', () => {
  it('starts the agent in its own process group and passes its exit code through', async () => {
    const g = spawnGroup([node, fixture('command-agent.mjs'), '--say', 'hi', '--exit', '7']);
    const pgid = await g.started;
    expect(pgid).toBeGreaterThan(0);
    expect(pgid).not.toBe(process.pid);
    let out = '';
    g.stdout.on('data', (c: Buffer) => (out += c.toString()));
    expect(exitCodeOf(await g.exited)).toBe(7);
    expect(out).toBe('hi\n');
  });

  it('reports a program that cannot start as exit 127', async () => {
    const g = spawnGroup(['/nonexistent/agent']);
    let err = '';
    g.stderr.on('data', (c: Buffer) => (err += c.toString()));
    expect(exitCodeOf(await g.exited)).toBe(127);
    expect(err).toContain('tai: cannot start /nonexistent/agent');
  });

  it('kills the whole group hard: kill(-pgid, 0) then fails with ESRCH', async () => {
    // SIGINT only once the agent ignores it: before its handler is in, SIGINT would end it.
    const ready = join(mkdtempSync(join(tmpdir(), 'tai-pg-')), 'ready');
    const g = spawnGroup([node, fixture('command-agent.mjs'), '--ignore-int', '--ready', ready]);
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
    const g = spawnGroup([node, fixture('command-agent.mjs'), '--child', '--ignore-int']);
    const pgid = (await g.started) as number;
    let out = '';
    g.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await until(() => /child \d+/.test(out));
    const grandchild = Number(/child (\d+)/.exec(out)?.[1]);
    expect(liveMembers(pgid).sort()).toEqual([pgid, grandchild].sort());
    g.kill();
    await g.exited;
    // The grandchild was reparented to init when the agent died; where init
    // does not reap (this container's PID 1), it lingers as a zombie, which
    // kill(-pgid, 0) still counts, so the check is on live members.
    await until(() => liveMembers(pgid).length === 0 && !pidLive(grandchild));
  });

  it('leaves no agent behind when its supervisor is killed with SIGKILL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-pg-'));
    // The module and what it imports, transpiled alone, in their places (an ES module package).
    const transpile = (rel: string, to: string): void => {
      const source = readFileSync(new URL(`../../../../src/io/agents/${rel}`, import.meta.url), 'utf8');
      const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
      mkdirSync(dirname(join(dir, to)), { recursive: true });
      writeFileSync(join(dir, to), js);
    };
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    transpile('runners/process-group.ts', 'runners/process-group.js');
    transpile('paced-read.ts', 'paced-read.js');
    const modulePath = join(dir, 'runners/process-group.js');
    const supervisor = spawn(node, [fixture('supervisor.mjs'), modulePath, node, fixture('command-agent.mjs'), '--ignore-int'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    supervisor.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await until(() => /pgid \d+/.test(out));
    const pgid = Number(/pgid (\d+)/.exec(out)?.[1]);
    expect(groupExists(pgid)).toBe(true);
    supervisor.kill('SIGKILL');
    // The lifeline closes with the supervisor; the reaper kills the agent's group and reaps it.
    await until(() => !groupExists(pgid));
  });
});
