/**
 * `tai ask` and `tai ask answer` (the built CLI) and the ask_* socket
 * commands against a live socket whose board runs a real ACP agent that asks
 * before an edit (test/fixtures/acp-ask-agent.mjs). `npm test` builds first.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { LocalAgentService } from '../../src/io/agents/agent-service.js';
import { call } from '../../src/io/socket/control-client.js';
import { startControlServer, type ControlServer } from '../../src/io/socket/socket-server.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { RecordStore } from '../../src/io/storage/records.js';
import { xtermScreens } from '../../src/io/terminal/screen.js';
import { createBoard } from '../../store/board.js';
import { fixture } from '../helpers/agents.js';
import { until } from '../helpers/until.js';
import { testEnv } from '../helpers/test-env.js';

const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
const SLOW = { timeout: 15_000 };

interface Rig {
  path: string;
  board: ReturnType<typeof createBoard>;
  service: LocalAgentService;
  server: ControlServer;
  db: StateDb;
  dir: string;
}
let rig: Rig | undefined;
let other: Rig | undefined;
afterEach(async () => {
  for (const r of [rig, other]) {
    if (!r) continue;
    r.service.dispose();
    await r.server.close();
    r.db.close();
    rmSync(r.dir, { recursive: true, force: true });
  }
  rig = undefined;
  other = undefined;
});

async function start(socket?: string): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'tai-ask-'));
  const board = createBoard({ createScreen: xtermScreens, cols: 120, rows: 40 });
  const db = openStateDb(join(dir, 'tai.db'));
  const service = new LocalAgentService({ board, records: new RecordStore(db) });
  const path = socket ?? join(dir, 'control.sock');
  const server = await startControlServer({ board, path, agents: service });
  return { path, board, service, server, db, dir };
}

function tai(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: testEnv({ TAI_PLEXER_SOCKET: '', ...env }) }, (error, out, err) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err });
    });
  });
}

describe('tai ask', () => {
  test('lists the open question and answers it; a second answer is refused naming why, exit 1', async () => {
    const r = (rig = await start());
    const spawned = await call(r.path, { cmd: 'spawn', kind: 'acp', argv: [process.execPath, fixture('acp-ask-agent.mjs'), 'edit'], prompt: 'edit', label: 'editor', permissions: 'ask' });
    if (!spawned.ok) throw new Error(spawned.error);
    const id = spawned.data.id;
    await until(() => r.board.getState().questions(Date.now()).length === 1, SLOW);
    expect(await call(r.path, { cmd: 'ask_list' })).toMatchObject({ ok: true, data: [{ qid: 'q1', tool: 'Edit notes.txt', open: true }] });

    const listed = await tai(['ask', '--socket', r.path]);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(new RegExp(`^q1  panel ${id} editor · Edit notes.txt \\(edit\\) · waiting \\d+s\\n`));
    expect(listed.out).toContain('1 allow-once (Allow once)  2 allow-always (Allow always)  3 reject-once (Reject)  4 reject-always (Reject always)');

    const wrong = await tai(['ask', 'answer', 'q1', 'maybe', '--socket', r.path]);
    expect(wrong).toMatchObject({ code: 1 });
    expect(wrong.err).toContain('question q1 has no option "maybe": its options are 1 allow-once (Allow once)');

    const answered = await tai(['ask', 'answer', 'q1', '1', '--socket', r.path]);
    expect(answered).toMatchObject({ code: 0, out: `q1 answered: Allow once (allow-once) for panel ${id}\n` });
    await until(() => r.service.peek(id)?.finished === true, SLOW);
    expect(r.service.peek(id)?.text).toBe('Editing. Answer: allow-once.');

    const again = await tai(['ask', 'answer', 'q1', '1', '--socket', r.path]);
    expect(again.code).toBe(1);
    expect(again.err).toBe('tai ask: question q1 was already answered (Allow once, by tai ask)\n');
    expect(await tai(['ask', '--socket', r.path])).toMatchObject({ code: 0, out: 'no agent is waiting for you\n' });
  });

  test('answers through the socket too, and refuses a question whose agent is gone', async () => {
    const r = (rig = await start());
    const spawned = await call(r.path, { cmd: 'spawn', kind: 'acp', argv: [process.execPath, fixture('acp-ask-agent.mjs'), 'edit'], prompt: 'edit', permissions: 'ask' });
    if (!spawned.ok) throw new Error(spawned.error);
    await until(() => r.board.getState().questions(Date.now()).length === 1, SLOW);
    expect(await call(r.path, { cmd: 'ask_list' })).toMatchObject({ ok: true, data: [{ qid: 'q1', tool: 'Edit notes.txt', open: true }] });
    expect(await call(r.path, { cmd: 'cancel', id: spawned.data.id })).toMatchObject({ ok: true });
    expect(await call(r.path, { cmd: 'ask_answer', qid: 'q1', option: 'y' })).toEqual({
      ok: false,
      error: 'question q1 was cancelled: its agent was stopped (cancelled by request (tai cancel))',
    });
    expect(await call(r.path, { cmd: 'ask_answer', qid: 'q7', option: 'y' })).toEqual({ ok: false, error: 'no such question: q7' });
  });

  test('refuses a question id waiting in two cockpits, answering neither and listing both, and answers it in the one named', async () => {
    const runtime = mkdtempSync(join(tmpdir(), 'tai-ask-two-'));
    mkdirSync(join(runtime, 'tai'), { mode: 0o700 });
    // Two cockpits of this user: socket names carry a live pid (this process and its parent).
    const a = (rig = await start(join(runtime, 'tai', `tai-${process.pid}.sock`)));
    const b = (other = await start(join(runtime, 'tai', `tai-${process.ppid}.sock`)));
    for (const r of [a, b]) {
      const spawned = await call(r.path, { cmd: 'spawn', kind: 'acp', argv: [process.execPath, fixture('acp-ask-agent.mjs'), 'edit'], prompt: 'edit', label: 'editor', permissions: 'ask' });
      if (!spawned.ok) throw new Error(spawned.error);
    }
    await until(() => a.board.getState().questions(Date.now()).length === 1 && b.board.getState().questions(Date.now()).length === 1, SLOW);
    const env = { XDG_RUNTIME_DIR: runtime, XDG_STATE_HOME: join(runtime, 'state') };

    const ambiguous = await tai(['ask', 'answer', 'q1', 'y'], env);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.err).toContain('tai ask: question q1 is waiting in 2 cockpits; nothing was answered. Say which with --socket:\n');
    expect(ambiguous.err).toContain(`in the cockpit at ${a.path}: tai ask answer q1 y --socket ${a.path}\n`);
    expect(ambiguous.err).toContain(`in the cockpit at ${b.path}: tai ask answer q1 y --socket ${b.path}\n`);
    expect(a.board.getState().questions(Date.now())).toHaveLength(1);
    expect(b.board.getState().questions(Date.now())).toHaveLength(1);

    const named = await tai(['ask', 'answer', 'q1', 'y', '--socket', b.path], env);
    expect(named.code).toBe(0);
    expect(b.board.getState().questions(Date.now())).toHaveLength(0);
    expect(a.board.getState().questions(Date.now())).toHaveLength(1);

    const only = await tai(['ask', 'answer', 'q1', 'n'], env);
    expect(only).toMatchObject({ code: 0 });
    expect(only.out).toMatch(new RegExp(`^q1 answered: Reject \\(reject-once\\) for panel \\d+ in the cockpit at ${a.path.replace(/[.]/g, '\\.')}\\n$`));
    rmSync(runtime, { recursive: true, force: true });
  });

  test('says when no cockpit is reachable, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-ask-none-'));
    const none = await tai(['ask', '--socket', join(dir, 'nothing.sock')]);
    rmSync(dir, { recursive: true, force: true });
    expect(none.code).toBe(2);
    expect(none.err).toContain('no cockpit reachable');
  });
});
