import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from 'node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { runTai, TAI_CLI, type TaiRun } from '../helpers/tai-cli.js';
import { untilPasses } from '../helpers/until.js';
import { testEnv } from '../helpers/test-env.js';

/** A real agent: says a line on stdout and one on stderr, then waits for the file `go` before its last line. */
function waitingAgent(dir: string): string {
  const script = join(dir, 'agent.sh');
  writeFileSync(script, `echo first line\necho a warning >&2\nwhile [ ! -e "${join(dir, 'go')}" ]; do sleep 0.05; done\necho last line\n`);
  return script;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** `tai spawn` in the background (its own in-process supervision: no cockpit), ended by its own agent. */
function spawnInBackground(env: NodeJS.ProcessEnv, argv: string[]): { child: ChildProcess; ended: Promise<number> } {
  const child = spawn(process.execPath, [TAI_CLI, 'spawn', '--label', 'waiter', '--', ...argv], { env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return { child, ended: new Promise((resolve) => child.on('close', (code) => resolve(code ?? -1))) };
}

/** A `tai logs` run in the background, for -f. */
function logsInBackground(env: NodeJS.ProcessEnv, args: string[]): Promise<TaiRun> {
  const child = spawn(process.execPath, [TAI_CLI, 'logs', ...args], { env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out, err })));
}

describe('tai logs', () => {
  it("prints a live agent's transcript, follows it to its footer, and prints it whole after its supervisor has gone", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-logs-'));
    const env = { XDG_STATE_HOME: dir, TAI_PLEXER_SOCKET: '' };
    const spawned = spawnInBackground(env, ['sh', waitingAgent(dir)]);
    // Live: what it said so far, from the database, without any cockpit.
    await untilPasses(async () => {
      const live = await runTai(['logs', '1'], env);
      expect(live.code).toBe(0);
      expect(live.out).toContain('stderr│ a warning');
    }, { timeout: 20_000, interval: 100 });
    const live = await runTai(['logs', '1'], env);
    expect(live.out.startsWith(`▸ sh ${join(dir, 'agent.sh')}\n\nfirst line\n`)).toBe(true);
    expect(live.out).not.toContain('✓ done');
    expect(live.out).not.toMatch(/\x1b/);
    // Following: ends by itself when the agent ends, with its footer.
    const following = logsInBackground(env, ['1', '-f']);
    writeFileSync(join(dir, 'go'), '');
    const followed = await following;
    expect(followed.code).toBe(0);
    expect(followed.out).toMatch(/first line\n[^]*last line\n\n✓ done · \d+s · exit 0 · 21 chars\n$/);
    expect(await spawned.ended).toBe(0);
    // After the supervisor has gone: the whole transcript, once.
    const after = await runTai(['logs', '1'], env);
    expect(after.code).toBe(0);
    expect(after.out).toBe(followed.out);
  }, 40_000);

  it('reads the transcript of an agent a cockpit runs, while it runs and after the cockpit has exited', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-logs-'));
    const env = { XDG_STATE_HOME: dir, TAI_PLEXER_SOCKET: '' };
    const script = waitingAgent(dir);
    // The cockpit's shell starts the agent through the cockpit (its socket), then waits for the file `stop`.
    const main = `tai spawn --label cockpit-job -- sh ${script}; while [ ! -e ${join(dir, 'stop')} ]; do sleep 0.05; done`;
    const cockpit = pty.spawn(process.execPath, [TAI_CLI, '--', 'sh', '-c', main], { cols: 120, rows: 30, env: testEnv(env) });
    const exited = new Promise<number>((resolve) => cockpit.onExit((e) => resolve(e.exitCode)));
    try {
      await untilPasses(async () => expect((await runTai(['logs', '1'], env)).out).toContain('stderr│ a warning'), { timeout: 20_000, interval: 100 });
      writeFileSync(join(dir, 'go'), '');
      await untilPasses(async () => expect((await runTai(['logs', '1'], env)).out).toContain('✓ done'), { timeout: 20_000, interval: 100 });
      writeFileSync(join(dir, 'stop'), '');
      expect(await exited).toBe(0);
    } finally {
      cockpit.kill();
    }
    const after = await runTai(['logs', '1'], env);
    expect(after.code).toBe(0);
    expect(after.out).toMatch(new RegExp(`^▸ sh ${script}\n\nfirst line\nstderr│ a warning\nlast line\n\n✓ done · \\d+s · exit 0 · 21 chars\n$`));
  }, 60_000);

  it("ends its transcript with the stored row's footer when the supervisor was killed with the agent running", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-logs-'));
    const env = { XDG_STATE_HOME: dir, TAI_PLEXER_SOCKET: '' };
    const spawned = spawnInBackground(env, ['sh', waitingAgent(dir)]);
    await untilPasses(async () => expect((await runTai(['logs', '1'], env)).out).toContain('a warning'), { timeout: 20_000, interval: 100 });
    spawned.child.kill('SIGKILL');
    await spawned.ended;
    const after = await runTai(['logs', '1', '--follow'], env);
    expect(after.code).toBe(0);
    expect(after.out).toMatch(/a warning\n\n⊘ cancelled · \d+s · the supervisor exited; its reaper stopped the agent\n$/);
  }, 40_000);

  it('shows what follows an unterminated DCS, and a bidi override as <U+202E>, in the result and in the transcript', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-logs-hidden-'));
    const env = { XDG_STATE_HOME: dir, TAI_PLEXER_SOCKET: '' };
    const spawned = await runTai(['spawn', '--', 'sh', '-c', "printf 'visible\\n\\033Pq'; echo IMPORTANT; printf 'approve \\342\\200\\256txt.exe\\n'"], env);
    expect(spawned.code).toBe(0);
    expect(spawned.out).toContain('visible\nIMPORTANT\napprove <U+202E>txt.exe\n');
    const logs = await runTai(['logs', '1'], env);
    expect(logs.code).toBe(0);
    expect(logs.out).toContain('visible\nIMPORTANT\napprove <U+202E>txt.exe\n');
    expect(logs.out).not.toContain('\u202e');
  }, 30_000);

  it('says an unknown agent is unknown and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-logs-'));
    const none = await runTai(['logs', '7'], { XDG_STATE_HOME: dir });
    expect(none).toMatchObject({ code: 1, out: '' });
    expect(none.err).toContain('tai logs: no agent 7: no agent has run on this machine yet');
    const spawned = await runTai(['spawn', '--', 'sh', '-c', 'echo hi'], { XDG_STATE_HOME: dir, TAI_PLEXER_SOCKET: '' });
    expect(spawned.code).toBe(0);
    const unknown = await runTai(['logs', '9/1'], { XDG_STATE_HOME: dir });
    expect(unknown).toEqual({ code: 1, out: '', err: 'tai logs: no agent 9/1 (`tai status --all` lists the agents this machine ran)\n' });
  });

  it('answers --help with its usage and a bad line with the reason and exit 64', async () => {
    const help = await runTai(['logs', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: tai logs \[-t NAME\] ID \[-f \| --follow\]/);
    const missing = await runTai(['logs']);
    expect(missing.code).toBe(64);
    expect(missing.err).toMatch(/^tai logs: missing agent id/);
    const bad = await runTai(['logs', 'x', '-f']);
    expect(bad.code).toBe(64);
    expect(bad.err).toMatch(/^tai logs: not an agent id: 'x'/);
    const top = await runTai(['--help']);
    expect(top.out).toContain('tai logs ID [-f]');
  });
});
