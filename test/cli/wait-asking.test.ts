/**
 * `tai wait` (the built CLI) on an agent that asks a question: a real control
 * socket whose board runs a real ACP agent asking before an edit
 * (test/fixtures/acp-ask-agent.mjs), started with `tai spawn --detach
 * --permissions ask`. The wait exits 3 naming the question (docs/lead.md,
 * `tai wait` from a shell); once `tai ask answer` answers it, the next wait
 * returns the agent's end. `npm test` builds first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { LocalAgentService } from '../../src/io/agents/agent-service.js';
import { startControlServer, type ControlServer } from '../../src/io/socket/socket-server.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { RecordStore } from '../../src/io/storage/records.js';
import { xtermScreens } from '../../src/io/terminal/screen.js';
import { createBoard } from '../../store/board.js';
import { fixture } from '../helpers/agents.js';
import { runTai } from '../helpers/tai-cli.js';
import { until } from '../helpers/until.js';

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
afterEach(async () => {
  if (!rig) return;
  rig.service.dispose();
  await rig.server.close();
  rig.db.close();
  rmSync(rig.dir, { recursive: true, force: true });
  rig = undefined;
});

async function start(): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'tai-wait-ask-'));
  const board = createBoard({ createScreen: xtermScreens, cols: 120, rows: 40 });
  const db = openStateDb(join(dir, 'tai.db'));
  const service = new LocalAgentService({ board, records: new RecordStore(db) });
  const path = join(dir, 'control.sock');
  const server = await startControlServer({ board, path, agents: service });
  return { path, board, service, server, db, dir };
}

describe('tai wait on an agent that asks', () => {
  test('exits 3 naming the question, says asking with --json, and returns the end once tai ask answer answered it', async () => {
    const r = (rig = await start());
    // No cockpit of the caller's: only --socket names one.
    const env = { TAI_PLEXER_SOCKET: '', XDG_STATE_HOME: join(r.dir, 'state'), NO_COLOR: '1' };
    const spawned = await runTai(
      ['spawn', '--detach', '--permissions', 'ask', '--kind', 'acp', '--label', 'editor', '--prompt', 'edit', '--socket', r.path, '--', process.execPath, fixture('acp-ask-agent.mjs'), 'edit'],
      env,
    );
    expect(spawned, spawned.err).toMatchObject({ code: 0, out: expect.stringMatching(/^\d+\n$/) });
    const id = spawned.out.trim();

    // Started before the question may be up: the wait itself must see it arrive.
    const asked = await runTai(['wait', id, '--timeout', '30', '--socket', r.path], env);
    expect(asked.err).toBe('');
    expect(asked.code).toBe(3);
    expect(asked.out).toBe(
      `agent #${id} editor asks: Edit notes.txt\n` +
        '  question q1; options: allow-once (Allow once), allow-always (Allow always), reject-once (Reject), reject-always (Reject always)\n' +
        '  answer with tai ask answer q1 OPTION (one of the ids)\n',
    );
    expect(r.service.peek(Number(id))?.finished).toBe(false);

    // A new tai wait has heard of no question yet, so the open one is its event again.
    const json = await runTai(['wait', id, '--timeout', '30', '--json', '--socket', r.path], env);
    expect(json.code).toBe(3);
    const lines = json.out.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ kind: 'asking', id: Number(id), label: 'editor', qid: 'q1', tool: 'Edit notes.txt' });

    const answered = await runTai(['ask', 'answer', 'q1', 'y', '--socket', r.path], env);
    expect(answered, answered.err).toMatchObject({ code: 0, out: `q1 answered: Allow once (allow-once) for panel ${id}\n` });

    const ended = await runTai(['wait', id, '--timeout', '30', '--socket', r.path], env);
    expect(ended.err).toBe('');
    expect(ended.code).toBe(0);
    expect(ended.out).toContain(`agent #${id} editor done`);
    expect(ended.out).toContain('Editing. Answer: allow-once.');
    await until(() => r.service.peek(Number(id))?.finished === true, SLOW);
  }, 90_000);
});
