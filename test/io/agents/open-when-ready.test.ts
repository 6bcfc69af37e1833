import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { openAgentServiceWhenReady, type PendingAgentService } from '../../../src/io/agents/open-when-ready.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';
import { fixture } from '../../helpers/agents.js';
import { until as untilHolds } from '../../helpers/until.js';
import { testEnv } from '../../helpers/test-env.js';

const until = (cond: () => boolean, timeout = 20_000): Promise<void> => untilHolds(cond, { timeout });

let locker: ChildProcess | undefined;
let pending: PendingAgentService | undefined;
afterEach(async () => {
  pending?.close();
  pending = undefined;
  if (locker && locker.exitCode === null) {
    locker.stdin?.end();
    await once(locker, 'close');
  }
});

describe('the agent service opened when the database is ready', () => {
  it('refuses spawns with why while another process locks the database, tells the screen, and opens once the lock goes', async () => {
    const state = mkdtempSync(join(tmpdir(), 'tai-ready-'));
    const db = join(state, 'tai', 'tai.db');
    openStateDb(db).close();
    locker = spawn(process.execPath, [fixture('db-locker.mjs'), db], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    locker.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    await until(() => out.includes('locked\n'));

    const told: string[] = [];
    const board = createBoard({ drawingOff: 'test' });
    pending = openAgentServiceWhenReady(board, { XDG_STATE_HOME: state }, Date.now, { onStatus: (line) => told.push(line), retryMs: 50 });
    const locked = `agents cannot start yet: the state database ${db} is locked: another process has held it for more than 200 ms. ` +
      `Wait for that process to finish, or find it with \`fuser ${db}\` and stop it, then run the command again. (tai tries again every 50 ms)`;
    expect(told).toEqual([locked]);
    expect(pending.unavailable()).toBe(locked);
    await expect(pending.agents.spawn({ cmd: 'spawn', kind: 'command', argv: [process.execPath, '-e', ''] }, Date.now())).rejects.toThrow(locked);

    locker.stdin?.write('release\n');
    const opened = await pending.ready;
    expect(opened).toBeDefined();
    expect(told).toEqual([locked, 'agents can start now: the state database is open']);
    expect(pending.unavailable()).toBeUndefined();
    const { id } = await pending.agents.spawn({ cmd: 'spawn', kind: 'command', argv: [process.execPath, '-e', 'console.log("opened late")'] }, Date.now());
    expect((await pending.agents.poll(id, 10_000))?.text).toBe('opened late\n');
  });

  it('forwards every request the dispatcher may make of the service, the lanes diff views included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-ready-'));
    pending = openAgentServiceWhenReady(createBoard(), testEnv({ XDG_STATE_HOME: dir }), Date.now);
    const opened = await pending.ready;
    expect(opened).toBeDefined();
    // A panel that is no lane's: the service's own refusal comes back, not the wrapper's silence.
    await expect(pending.agents.openLaneDiff(999)).rejects.toThrow(/lane/);
    expect(pending.agents.closeView(999)).toBe(false);
  });
});
