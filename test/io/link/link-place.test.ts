/**
 * Cockpit cards (src/io/link/link-place.ts) in a private folder of the test's
 * own: a card is live while its very process runs (pid and start time), a
 * stale one is swept with the sockets it names, a link that is not a private
 * socket of the user is refused before any connection, and the cockpit a
 * shell runs in is no choice for `tai attach`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cardPath, chooseCockpit, claimCard, linkProblem, readCard, runningCockpits, type CockpitCard } from '../../../src/io/link/link-place.js';
import { processStart } from '../../../src/io/process-identity.js';
import { sweepDeadSockets } from '../../../src/io/socket/socket-path.js';
import { runTai } from '../../helpers/tai-cli.js';
import { until } from '../../helpers/until.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** A private runtime folder and the environment that points tai at it. */
function place() {
  const root = mkdtempSync(join(tmpdir(), 'tai-cards-'));
  const run = join(root, 'run');
  mkdirSync(run, { mode: 0o700 });
  const env = { XDG_RUNTIME_DIR: run, XDG_STATE_HOME: join(root, 'state') } as NodeJS.ProcessEnv;
  return { dir: join(run, 'tai'), env, mkdir: () => mkdirSync(join(run, 'tai'), { mode: 0o700 }) };
}

/** A process listening on `path` (as a server on its link), until killed. */
async function listener(path: string, mode?: number): Promise<ChildProcess> {
  const code = `require('net').createServer().listen(${JSON.stringify(path)}, () => { ${mode === undefined ? '' : `require('fs').chmodSync(${JSON.stringify(path)}, ${mode});`} console.log('up'); })`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  return child;
}

const card = (name: string, pid: number, more: Partial<CockpitCard> = {}): CockpitCard => ({ name, pid, argv: ['sh'], cwd: '/', startedAt: Date.now(), ...more });

describe('cockpit cards', () => {
  it('takes a card whose pid now runs another program for a stale one: the name is free again', () => {
    const p = place();
    p.mkdir();
    // The pid is this very test process, alive; the start is not its start: the kernel gave the pid to another program.
    writeFileSync(cardPath(p.dir, 'ghost'), JSON.stringify(card('ghost', process.pid, { start: '1', link: join(p.dir, `tai-${process.pid}.link`) })));
    expect(runningCockpits(p.env).map((c) => c.name)).toEqual([]);
    expect(existsSync(cardPath(p.dir, 'ghost'))).toBe(false);
    writeFileSync(cardPath(p.dir, 'ghost'), JSON.stringify(card('ghost', process.pid, { start: '1' })));
    expect(claimCard(p.dir, card('ghost', process.pid, { start: processStart(process.pid) ?? '' }), false).name).toBe('ghost');
    expect(runningCockpits(p.env).map((c) => c.name)).toEqual(['ghost']);
  });

  it("sweeps a SIGKILLed server's link and control sockets with its card", async () => {
    const p = place();
    p.mkdir();
    const server = await listener(join(p.dir, 'tai-0.link'));
    const pid = server.pid ?? 0;
    const link = join(p.dir, `tai-${pid}.link`);
    const control = join(p.dir, `tai-${pid}.sock`);
    server.kill('SIGKILL');
    await until(() => server.exitCode !== null || server.signalCode !== null, { what: 'the listener killed' });
    const l1 = await listener(link);
    const l2 = await listener(control);
    l1.kill('SIGKILL');
    l2.kill('SIGKILL');
    await until(() => l1.signalCode !== null && l2.signalCode !== null, { what: 'both listeners killed' });
    expect(existsSync(link) && existsSync(control)).toBe(true); // SIGKILL leaves the socket files behind
    writeFileSync(cardPath(p.dir, 'gone'), JSON.stringify(card('gone', pid, { start: '1', link, control })));
    expect(runningCockpits(p.env)).toEqual([]);
    expect([existsSync(cardPath(p.dir, 'gone')), existsSync(link), existsSync(control)]).toEqual([false, false, false]);
  });

  it('sweeps a dead server\'s link socket with the dead control sockets, card or no card', async () => {
    const p = place();
    p.mkdir();
    const l = await listener(join(p.dir, 'probe.link'));
    const pid = l.pid ?? 0;
    l.kill('SIGKILL');
    await until(() => l.signalCode !== null, { what: 'the listener killed' });
    const left = await listener(join(p.dir, `tai-${pid}.link`));
    left.kill('SIGKILL');
    await until(() => left.signalCode !== null, { what: 'the listener killed' });
    expect(existsSync(join(p.dir, `tai-${pid}.link`))).toBe(true);
    expect(sweepDeadSockets(p.dir)).toBe(1);
    expect(existsSync(join(p.dir, `tai-${pid}.link`))).toBe(false);
  });

  it("refuses a link that is open to others before connecting, and one that is not a socket", async () => {
    const p = place();
    p.mkdir();
    const link = join(p.dir, 'open.link');
    await listener(link, 0o777);
    const open = card('open', process.pid, { link });
    expect(linkProblem(open)).toMatch(/^cockpit open's link \S+ is not a private socket of yours \(owner \d+, mode 777\); refusing to connect/);
    chmodSync(link, 0o600);
    expect(linkProblem(open)).toBeUndefined();
    const file = join(p.dir, 'file.link');
    writeFileSync(file, '');
    chmodSync(file, 0o600);
    expect(linkProblem(card('file', process.pid, { link: file }))).toMatch(/is not a private socket of yours/);
  });

  it("refuses -t NAME when the card's control socket is open to others, before sending it anything", async () => {
    const p = place();
    p.mkdir();
    const control = join(p.dir, 'open.sock');
    await listener(control, 0o777);
    writeFileSync(cardPath(p.dir, 'open'), JSON.stringify(card('open', process.pid, { start: processStart(process.pid) ?? '', control })));
    const status = await runTai(['status', '-t', 'open'], { ...p.env, TAI_PLEXER_SOCKET: '' });
    expect(status.code).toBe(2);
    expect(status.err).toMatch(/^tai: cockpit open's control socket \S+ is not a private socket of yours \(owner \d+, mode 777\); refusing to connect/);
  });

  it('never offers the cockpit a shell runs in to tai attach there', () => {
    const p = place();
    p.mkdir();
    const start = processStart(process.pid) ?? '';
    for (const name of ['alpha', 'beta']) writeFileSync(cardPath(p.dir, name), JSON.stringify(card(name, process.pid, { start, link: join(p.dir, `${name}.link`) })));
    expect(chooseCockpit(undefined, p.env, 'alpha').name).toBe('beta');
    expect(() => chooseCockpit(undefined, p.env)).toThrow(/2 cockpits are running/);
    writeFileSync(cardPath(p.dir, 'beta'), '');
    expect(() => chooseCockpit(undefined, p.env, 'alpha')).toThrow("no cockpit is running but alpha, which this shell runs in: attach it from another terminal");
    expect(readCard(cardPath(p.dir, 'alpha'))?.start).toBe(start);
  });
});
