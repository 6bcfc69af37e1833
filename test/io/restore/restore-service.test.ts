/**
 * The launch kept and the restored start, on a real SQLite file and a real
 * board with a fake clock: a runner that reports session ids, a spawn's
 * launch stored byte for byte and kept current, a restored agent started
 * with `resume` and the wall clock it had left; the claim, a database of an
 * older tai, and a cockpit of another machine.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import type { RunSpec, Runner } from '../../../src/io/agents/runners/runner.js';
import { AgentsStore, currentRun, SUPERVISOR_GONE, SUPERVISOR_GONE_RESTORABLE } from '../../../src/io/storage/agents-store.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';
import { restoreLaunches } from '../../../src/io/restore/cockpit-restore.js';
import { RequestError } from '../../../src/core/errors.js';
import { emptyCap } from '../../../src/core/agents/transcript-cap.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { migrate, openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';
import { RestoreStore, type StoredCockpit } from '../../../src/io/restore/restore-store.js';
import { claimCockpit } from '../../../src/io/restore/cockpit-claim.js';
import { parseLaunch, type Launch } from '../../../src/core/restore/launch.js';
import { COCKPIT_EXITING, SEAM } from '../../../src/core/restore/restore-plan.js';
import { FakeClock } from '../../helpers/fake-clock.js';

/** A runner that reports `sessions` at once, records its spec, and ends when stopped. */
function sessionRunner(sessions: readonly string[], specs: RunSpec[]): Runner {
  return (spec, emit) => {
    specs.push(spec);
    let end: (o: { state: 'failed'; summary: string }) => void = () => {};
    const ended = new Promise<{ state: 'failed'; summary: string }>((r) => (end = r));
    for (const id of sessions) emit({ type: 'session', id });
    return { pgid: undefined, ended, result: () => '', soft: (why) => end({ state: 'failed', summary: why }), hard: (why) => end({ state: 'failed', summary: why }) };
  };
}

let db: StateDb | undefined;
let service: LocalAgentService | undefined;
afterEach(() => {
  service?.dispose();
  db?.close();
  service = undefined;
  db = undefined;
});

function setUp(runner: Runner) {
  const dir = mkdtempSync(join(tmpdir(), 'tai-restore-'));
  db = openStateDb(join(dir, 'tai.db'));
  const clock = new FakeClock(1_000_000);
  const board = createBoard({ cols: 160, rows: 48 });
  const launches = new RestoreStore(db);
  service = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), now: clock.now, run: 'test-run', runners: { claude: runner }, launches, transcripts: new TranscriptStore(db) });
  return { dir, clock, board, launches, service };
}

describe('an agent\'s launch, kept for a restore', () => {
  it('is stored byte for byte when it starts, keeps the latest session id it reports, and stays live only when its cockpit\'s end stopped it', async () => {
    const specs: RunSpec[] = [];
    const { dir, clock, board, launches, service } = setUp(sessionRunner(['first', 'second'], specs));
    const argv = [process.execPath, '-e', '', 'a  b', 'ü'];
    const one = await service.spawn({ cmd: 'spawn', kind: 'claude', argv, cwd: dir, prompt: 'do  it\n', timeout: 120, retries: 2, permissions: 'ask', ask_timeout: 30, ask_default: 'reject', label: 'fixer', agent: 'fix-bot' }, clock.t);
    const stored = parseLaunch(launches.launch('test-run', one.id)?.launch ?? '') as Launch;
    expect(stored).toMatchObject({ kind: 'claude', argv, cwd: dir, prompt: 'do  it\n', limitMs: 120_000, spentMs: 0, retriesLeft: 2, permissions: 'ask', askTimeoutMs: 30_000, askDefault: 'reject', label: 'fixer', agent: 'fix-bot', sessionId: 'second' });
    expect(stored.program?.path).toBe(process.execPath);
    expect(stored.dir?.path).toBe(dir);
    expect(launches.launch('test-run', one.id)?.live).toBe(true);

    board.getState().cancel(one.id, 'cancelled by request (tai cancel)', clock.t);
    await service.poll(one.id, 5_000);
    expect(launches.launch('test-run', one.id)?.live).toBe(false);

    const two = await service.spawn({ cmd: 'spawn', kind: 'claude', argv, retries: 0 }, clock.t);
    board.getState().shutdown(COCKPIT_EXITING, clock.t);
    await service.poll(two.id, 5_000);
    expect(launches.launch('test-run', two.id)?.live).toBe(true);
  });

  it('restores a resumable agent with resume, the one message, and the wall clock it had left', async () => {
    const specs: RunSpec[] = [];
    const { clock, board, service } = setUp(sessionRunner([], specs));
    const launch: Launch = { v: 1, kind: 'claude', argv: [process.execPath], label: 'fixer', task: 'fix', limitMs: 1_800_000, spentMs: 0, retriesLeft: 0, sessionId: 'sess-9' };
    const id = service.restore(launch, { argv: launch.argv, prompt: 'go on', resume: 'sess-9' }, clock.t, {
      timeoutMs: 600_000,
      info: { limitMs: 1_800_000, spentMs: 1_200_000, sessionId: 'sess-9', from: 'old/1' },
    });
    expect(specs[0]).toMatchObject({ argv: [process.execPath], resume: 'sess-9', prompt: 'go on' });
    // The agent speaks every 50 s (its heartbeat), so only the wall clock can end it.
    for (let at = 0; at < 599_000; at += 50_000) {
      board.getState().emit(id, { type: 'text', text: '.' }, clock.t);
      clock.t += Math.min(50_000, 599_000 - at);
      board.getState().tick(clock.t);
    }
    expect(board.getState().status(clock.t).agents.find((a) => a.id === id)?.state).toBe('running');
    board.getState().emit(id, { type: 'text', text: '.' }, clock.t);
    clock.t += 2_000;
    board.getState().tick(clock.t);
    expect((await service.poll(id, 5_000))?.state).toBe('timeout');
  });
});

describe('the restore\'s claim', () => {
  const self = (run: string, over: Partial<StoredCockpit> = {}): StoredCockpit => ({
    run, name: 'work', machine: 'm-1', uid: 1000, pid: 999_999_99, start: null, argv: ['bash'], cwd: '/', state: 'running', claimedBy: null, startedAt: 1, aliveAt: 1, endedAt: null, ...over,
  });

  it('is made once: the run that claims it restores it, a second finds nothing to restore, and rows are kept', () => {
    db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-claim-')), 'tai.db'));
    const store = new RestoreStore(db);
    store.addCockpit(self('dead-1'));
    store.saveLaunch({ run: 'dead-1', id: 1, launch: '{}', live: true, startedAt: 1, restoredFrom: null }, 1);
    const first = claimCockpit(store, self(currentRun(), { pid: process.pid, startedAt: 2 }), true);
    expect(first).toMatchObject({ kind: 'claimed', from: { run: 'dead-1' }, launches: [{ id: 1 }] });
    const second = claimCockpit(store, self('other-3', { startedAt: 3 }), true);
    expect(second.kind).toBe('none');
    expect(store.cockpit('dead-1')).toMatchObject({ state: 'restoring', claimedBy: currentRun() });
    expect(store.launch('dead-1', 1)?.launch).toBe('{}');
  });

  it('refuses a cockpit recorded on another machine and changes nothing of it', () => {
    db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-claim-')), 'tai.db'));
    const store = new RestoreStore(db);
    store.addCockpit(self('far-1', { machine: 'm-far' }));
    const claim = claimCockpit(store, self('near-2', { startedAt: 2 }), true);
    expect(claim).toEqual({ kind: 'foreign', message: 'cockpit work was recorded on another machine (machine id m-far): it is not restored here. Nothing of it is changed; restore it where it ran, or use another name with -s' });
    expect(store.cockpit('far-1')).toMatchObject({ state: 'running', machine: 'm-far', claimedBy: null });
  });

  it('migrates a database of an older tai: the tables added, every row it had kept', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tai-old-')), 'tai.db');
    const old = openStateDb(path);
    const agents = new AgentsStore(old);
    agents.save({ run: 'r', id: 1, kind: 'command', label: 'l', task: 't', state: 'done', startedAt: 1, finishedAt: 2, reason: '', recordId: null, chars: 0, exitCode: 0, text: 'kept', tools: 0, tokens: 0 });
    old.close();
    db = openStateDb(path);
    const store = new RestoreStore(db);
    expect(new AgentsStore(db).get('r', 1)?.text).toBe('kept');
    expect(store.openCockpits()).toEqual([]);
    expect(migrate(db, 'restore/1', [])).toBe(false);
  });
});

describe('a restore that meets bad input', () => {
  it('shows a session id the agent refuses in the panel, with tai restart ID, after the old transcript and the seam', () => {
    const refusing: Runner = () => {
      throw new RequestError('session sess-x not found');
    };
    const { clock, board, launches, service } = setUp(refusing);
    const from: StoredCockpit = { run: 'old-1', name: 'work', machine: 'm', uid: 1, pid: 1, start: null, argv: ['bash'], cwd: '/', state: 'restoring', claimedBy: 'test-run', startedAt: 1, aliveAt: 1, endedAt: null };
    launches.addCockpit(from);
    const launch: Launch = { v: 1, kind: 'claude', argv: [process.execPath], label: 'fixer', task: 'fix', limitMs: 600_000, spentMs: 0, retriesLeft: 0, sessionId: 'sess-x' };
    launches.saveLaunch({ run: 'old-1', id: 3, launch: JSON.stringify(launch), live: true, startedAt: 1, restoredFrom: null }, 1);
    new TranscriptStore(launches.db).append('old-1', 3, emptyCap(), 'said before the crash\n', false, 1);
    const notices: string[] = [];
    restoreLaunches(launches.db, from, launches.liveLaunches('old-1'), service, board, (line) => notices.push(line), () => clock.t);
    const row = board.getState().status(clock.t).agents.find((a) => a.state === 'cancelled');
    expect(row).toMatchObject({ label: 'fixer' });
    expect(row?.reason).toBe(`ended with the cockpit: its session sess-x could not be resumed (session sess-x not found). tai restart ${row?.id} starts it again from its stored launch`);
    expect(notices).toEqual([`cockpit work restored after it ended: #${row?.id} fixer ended with the cockpit (tai restart ${row?.id})`]);
    expect(parseLaunch(launches.launch('test-run', row?.id ?? 0)?.launch ?? '')).toMatchObject({ kind: 'claude', sessionId: 'sess-x' });
    const text = (new TranscriptStore(launches.db).read('test-run', row?.id ?? 0)?.parts ?? []).map((p) => p.text).join('');
    expect(text.indexOf('said before the crash')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf(SEAM)).toBeGreaterThan(text.indexOf('said before the crash'));
    expect(text).toContain('could not be resumed (session sess-x not found)');
  });

  it('settles a dead cockpit\'s live rows as restorable, and no others', () => {
    const { launches } = setUp(sessionRunner([], []));
    const agents = new AgentsStore(launches.db);
    const row = { kind: 'command', label: 'l', task: 't', state: 'running' as const, startedAt: 1, finishedAt: null, reason: '', recordId: null, chars: 0, exitCode: null, text: '', tools: 0, tokens: 0 };
    agents.save({ ...row, run: '999999999-1', id: 1 });
    agents.save({ ...row, run: '999999998-1', id: 1 });
    launches.addCockpit({ run: '999999999-1', name: 'w', machine: 'm', uid: 1, pid: 999_999_999, start: null, argv: [], cwd: '/', state: 'running', claimedBy: null, startedAt: 1, aliveAt: 1, endedAt: null });
    launches.saveLaunch({ run: '999999999-1', id: 1, launch: '{}', live: true, startedAt: 1, restoredFrom: null }, 1);
    agents.settleDead(5);
    expect(agents.get('999999999-1', 1)?.reason).toBe(SUPERVISOR_GONE_RESTORABLE);
    expect(agents.get('999999998-1', 1)?.reason).toBe(SUPERVISOR_GONE);
  });
});
