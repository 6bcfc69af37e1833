/**
 * A cockpit's server SIGKILLed, then restored by `tai attach NAME`, as a user
 * does it: the client in a real pty, the server its own process. Two `tai
 * attach NAME` racing: exactly one restores (the name's card and the claim),
 * the other attaches to the cockpit it restored; the agent's panel comes back
 * once.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pty from 'node-pty';
import { afterAll, describe, expect, it } from 'vitest';
import { runningCockpits } from '../../src/io/link/link-place.js';
import { processAlive } from '../../src/io/socket/socket-path.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { runTai, TAI_CLI } from '../helpers/tai-cli.js';
import { testEnv } from '../helpers/test-env.js';
import { until } from '../helpers/until.js';

const dir = mkdtempSync(join(tmpdir(), 'tai-restore-attach-'));
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run'), XDG_CONFIG_HOME: join(dir, 'config'), TAI_SERVER: '', TAI_RESTORE: '1' };
mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });

/** A client in a real pty: its output and exit code. */
function client(args: string[]) {
  const p = pty.spawn(process.execPath, [TAI_CLI, ...args], { cols: 120, rows: 30, cwd: dir, env: testEnv(env) });
  const seen = { out: '', code: undefined as number | undefined };
  p.onData((d) => (seen.out += d));
  p.onExit((e) => (seen.code = e.exitCode));
  return seen;
}

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(env.XDG_STATE_HOME, 'tai', 'tai.db'), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

afterAll(async () => {
  await endCockpits(env);
  rmSync(dir, { recursive: true, force: true });
});

describe('tai attach NAME restores a cockpit whose server was SIGKILLed', () => {
  it('restores it once when two attaches race, and both clients show it', async () => {
    const first = client(['-s', 'srv', '--', 'sleep', '600']);
    await until(() => /tai srv │/.test(first.out), { what: 'the first client drawn', timeout: 20_000 });
    const spawned = await runTai(['spawn', '-t', 'srv', '--detach', '--label', 'zeta', '--', 'sh', '-c', 'echo said-zeta; exec sleep 300'], env);
    expect(spawned.code, spawned.err).toBe(0);
    const [card] = runningCockpits(testEnv(env));
    const run = query<{ run: string }>('SELECT run FROM cockpits WHERE pid = ?', card?.pid)[0]?.run ?? '';
    await until(() => query<{ text: string }>('SELECT text FROM transcript_parts WHERE run = ?', run).some((p) => p.text.includes('said-zeta')), { what: 'the agent spoke' });
    process.kill(card?.pid ?? 0, 'SIGKILL');
    await until(() => !processAlive(card?.pid ?? 0) && first.code !== undefined, { what: 'the server gone and its client ended' });
    expect((await runTai(['ls'], env)).out).toMatch(/^srv +- +sleep 600 .* ended, 1 agent to restore \(tai attach srv\)/m);

    const racers = [client(['attach', 'srv']), client(['attach', 'srv'])];
    await until(() => racers.every((c) => /tai srv │/.test(c.out)), { what: 'both clients attached', timeout: 30_000, explain: () => racers.map((c) => c.out.slice(-400)).join('\n---\n') });
    expect(runningCockpits(testEnv(env)).filter((c) => c.name === 'srv')).toHaveLength(1);
    await until(() => query('SELECT 1 FROM launches WHERE restored_from = ?', `${run}/1`).length === 1, { what: 'the agent restored' });
    // The launch's row and the cockpit's state are two commits: wait for the second.
    await until(() => query<{ state: string }>('SELECT state FROM cockpits WHERE run = ?', run)[0]?.state === 'restored', { what: 'the old run marked restored' });
    const agents = JSON.parse((await runTai(['status', '-t', 'srv', '--json'], env)).out) as { agents: { label: string; reason: string }[] };
    expect(agents.agents).toEqual([expect.objectContaining({ label: 'zeta', reason: expect.stringContaining('ended with the cockpit') })]);
    await until(() => racers.some((c) => c.out.includes('said-zeta')), { what: "the restored agent's transcript drawn", explain: () => racers.map((c) => c.out.slice(-400)).join('\n---\n') });

    // tai kill is a deliberate end: the restored cockpit is not offered again.
    const newRun = query<{ run: string }>("SELECT run FROM cockpits WHERE name = 'srv' ORDER BY started_at DESC")[0]?.run;
    expect((await runTai(['kill', 'srv'], env)).code).toBe(0);
    expect(query<{ state: string }>('SELECT state FROM cockpits WHERE run = ?', newRun)).toEqual([{ state: 'ended' }]);
    expect((await runTai(['ls'], env)).out).toBe('no cockpit is running (tai starts one)\n');
  }, 90_000);
});
