/**
 * The lead's MCP server (`tai mcp`, docs/lead.md) with the MCP SDK's own
 * client over a real stdio pipe, outside a cockpit (the server supervises
 * the agents itself): every tool, the bounds, the errors, progress during
 * wait. Agents are real commands (sh).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { TAI_CLI } from '../../helpers/tai-cli.js';
import { until } from '../../helpers/until.js';
import { connectLead, leadEnv, type Lead } from './mcp-client.js';
import { testEnv } from '../../helpers/test-env.js';
import { sanitize, stripSgr } from '../../../src/core/text/sanitize.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';

let lead: Lead | undefined;
afterEach(async () => {
  await lead?.close();
  lead = undefined;
});

const TOOLS = ['spawn', 'wait', 'result', 'read_record', 'search_records', 'status', 'cancel', 'questions', 'answer', 'lane_diff', 'lane_merge'];

/** The id in `started agent #N`. */
function idOf(text: string): number {
  const m = /started agent #(\d+)/.exec(text);
  if (!m) throw new Error(`no id in: ${text}`);
  return Number(m[1]);
}

describe.runIf(existsSync(TAI_CLI))('tai mcp outside a cockpit', () => {
  test('lists its eleven tools, each with a description and an input schema, and says it supervises in its own process', async () => {
    lead = await connectLead(leadEnv());
    const { tools } = await lead.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    for (const t of tools) {
      expect(t.description?.length ?? 0).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
    }
    expect(lead.client.getInstructions()).toContain('No tai cockpit is around you: this server supervises the agents in its own process');
  });

  test('spawn returns an id at once; wait sends progress while the agent works and returns its end with the head of its result', async () => {
    lead = await connectLead(leadEnv());
    const spawned = await lead.call('spawn', { agents: [{ argv: ['sh', '-c', 'sleep 2; echo the worker says 42'], label: 'w1', task: 'say 42' }] });
    expect(spawned.isError).toBe(false);
    const id = idOf(spawned.text);
    const progress: { progress: number; message?: string | undefined }[] = [];
    const waited = await lead.client.callTool({ name: 'wait', arguments: { timeout_s: 120 } }, undefined, { onprogress: (p) => progress.push(p) });
    const text = (waited.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain(`agent #${id} w1 done`);
    expect(text).toContain('--- head ---\nthe worker says 42');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]?.message).toContain(`waiting on #${id}`);
    const status = await lead.call('status');
    expect(status.text).toMatch(new RegExp(`#${id} w1: done, \\d+s, 0 tools, 0 tokens`));
    // Nothing of this lead is left unreported: a wait without ids answers at once.
    expect((await lead.call('wait', { timeout_s: 30 })).text).toContain('no agent of this lead is running or unreported');
    // Naming it reports its end again, at once.
    expect((await lead.call('wait', { ids: [id], timeout_s: 30 })).text).toContain(`agent #${id} w1 done`);
  }, 90_000);

  test('a long result comes back as the claim check, bounded, with its record read page by page and found by search', async () => {
    lead = await connectLead(leadEnv());
    const script = 'echo FIRSTLINE; i=0; while [ $i -lt 3000 ]; do echo "line $i of the long report"; i=$((i+1)); done; echo LASTLINE';
    const id = idOf((await lead.call('spawn', { agents: [{ argv: ['sh', '-c', script], label: 'long' }] })).text);
    const waited = await lead.call('wait', { ids: [id], timeout_s: 120 });
    expect(waited.text.length).toBeLessThanOrEqual(4_000);
    expect(waited.text).toContain('FIRSTLINE');
    expect(waited.text).toContain('LASTLINE');
    const record = /record (r[\w-]+)/.exec(waited.text)?.[1];
    expect(record).toBeDefined();
    expect(waited.text).toContain(`--- more: read_record (id ${record}`);
    const page = await lead.call('read_record', { id: record, offset: 0, limit: 100 });
    expect(page.text).toMatch(new RegExp(`^record ${record}: characters 0\\.\\.100 of \\d+ \\(next: read_record \\(id ${record}, offset 100\\)\\)\\nFIRSTLINE`));
    const result = await lead.call('result', { id, offset: 0 });
    expect(result.text.length).toBeLessThanOrEqual(4_000);
    expect(result.text).toContain(`the whole result: read_record (id ${record})`);
    const found = await lead.call('search_records', { query: 'FIRSTLINE' });
    expect(found.text).toContain(record);
    expect((await lead.call('read_record', { id: record, offset: 10_000_000 })).isError).toBe(true);
  }, 90_000);

  test('search_records finds a record whose words fall in different parts: side by side across a part\'s end, or far apart', async () => {
    const env = leadEnv();
    // Parts of 1,000 code points: `GRAND ` ends the first, `ÉCLAIR` starts the second, `Zèbre` is in the fourth.
    const words = (n: number): string => `${'lorem '.repeat(Math.ceil(n / 6))}`.slice(0, n - 1) + ' ';
    const db = openStateDb(join(env['XDG_STATE_HOME'] ?? '', 'tai', 'tai.db'));
    const store = new RecordStore(db);
    const id = store.put(`${words(994)}GRAND ÉCLAIR ${words(2_000)}Zèbre tail`, { label: 'seams' }, 1, 1_000);
    const other = store.put('grand only', { label: 'other' }, 2);
    store.indexAll();
    db.close();
    lead = await connectLead(env);
    for (const query of ['grand éclair', 'zèbre éclair', 'ZEBRE grand']) {
      const found = await lead.call('search_records', { query });
      expect(found.text, query).toContain(id);
      expect(found.text, query).not.toContain(other);
    }
  }, 60_000);

  test('an agent\'s hostile text reaches the lead sanitized by every tool that carries it: spawn, wait, result, read_record, status, search_records', async () => {
    lead = await connectLead(leadEnv());
    // A retitle (OSC ended by BEL), a bidi override, a zero-width space, a run of ZWJ, an 8-bit CSI, and a DCS left open at its line.
    const hostile = 'A\x1b]0;pwned\x07B \u202eevil\u202c \u200bzws \u200d\u200d\u200dzwj \u009b2Jc1 \x1bPqopen\nIMPORTANT\n';
    const octal = [...Buffer.from(hostile, 'utf8')].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
    const script = `printf '${octal}'; i=0; while [ $i -lt 400 ]; do echo "filler line $i of the report"; i=$((i+1)); done`;
    const spawned = await lead.call('spawn', { agents: [{ argv: ['sh', '-c', script], label: 'bad\u202elabel\x1b[2J' }] });
    const id = idOf(spawned.text);
    const waited = await lead.call('wait', { ids: [id], timeout_s: 120 });
    const record = /record (r[\w-]+)/.exec(waited.text)?.[1];
    expect(record).toBeDefined();
    const shown = stripSgr(sanitize(hostile)).trimEnd();
    const replies = {
      spawn: spawned.text,
      wait: waited.text,
      result: (await lead.call('result', { id, offset: 0, limit: 500 })).text,
      read_record: (await lead.call('read_record', { id: record, offset: 0, limit: 500 })).text,
      status: (await lead.call('status')).text,
      search_records: (await lead.call('search_records', { query: 'IMPORTANT' })).text,
      // A tool error that names what it was given.
      error: (await lead.call('spawn', { agents: [{ agent: 'no\u202ebody\x1b]0;pwned\x07', task: 'x' }] })).text,
    };
    for (const [tool, text] of Object.entries(replies)) {
      expect(text, tool).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u200b]/);
      expect(text, tool).not.toContain('pwned');
    }
    for (const tool of ['spawn', 'status'] as const) expect(replies[tool], tool).toContain('bad<U+202E>label');
    expect(replies.error).toContain('no<U+202E>body');
    // The pages show what wait's head shows: the override and the zero-width space named, the ZWJ run kept (emoji need it), the open string ended at its line.
    for (const tool of ['wait', 'result', 'read_record'] as const) {
      expect(replies[tool], tool).toContain(shown);
      expect(replies[tool], tool).toContain('AB <U+202E>evil<U+202C> <U+200B>zws \u200d\u200d\u200dzwj ');
      expect(replies[tool], tool).toContain('open\nIMPORTANT');
    }
    expect(replies.search_records).toContain(record);
  }, 90_000);

  test('an empty task, or an agent by name with no task, is refused and nothing starts, as tai spawn refuses them', async () => {
    lead = await connectLead(leadEnv());
    expect(await lead.call('spawn', { agents: [{ argv: ['true'], task: ' ' }] })).toEqual({ isError: true, text: expect.stringContaining("task is empty: give the agent's task") });
    expect(await lead.call('spawn', { agents: [{ agent: 'claude' }] })).toEqual({ isError: true, text: expect.stringContaining('agent claude needs a task') });
    expect((await lead.call('status')).text).not.toContain('#1');
  }, 60_000);

  test('bad input comes back as tool errors with one-line reasons: unknown tool, schema, ids not this lead\'s, timeout out of range', async () => {
    lead = await connectLead(leadEnv());
    expect(await lead.call('nope')).toEqual({ isError: true, text: expect.stringContaining('Tool nope not found') });
    expect(await lead.call('spawn', { agents: [] })).toEqual({ isError: true, text: expect.stringContaining('Input validation error') });
    expect(await lead.call('spawn', { agents: [{ task: 'x', colour: 'red' }] })).toEqual({ isError: true, text: expect.stringContaining("Unrecognized key(s) in object: 'colour'") });
    expect(await lead.call('spawn', { agents: [{ task: 'nothing to run' }] })).toEqual({ isError: true, text: expect.stringContaining('nothing to run: give agent') });
    expect(await lead.call('spawn', { agents: [{ agent: 'nobody', task: 'x' }] })).toMatchObject({ isError: true });
    expect(await lead.call('wait', { ids: [42] })).toEqual({ isError: true, text: 'agent #42 was not started by this lead (its agents: none yet); wait and cancel take the ids spawn returned' });
    expect(await lead.call('wait', { timeout_s: 601 })).toEqual({ isError: true, text: expect.stringContaining('timeout_s') });
    expect(await lead.call('wait', { timeout_s: -1 })).toMatchObject({ isError: true });
    expect(await lead.call('cancel', { id: 7 })).toMatchObject({ isError: true, text: expect.stringContaining('agent #7 was not started by this lead') });
    expect(await lead.call('result', { id: 9 })).toEqual({ isError: true, text: expect.stringContaining('no such agent') });
    expect(await lead.call('read_record', { id: 'r-none' })).toMatchObject({ isError: true });
    expect(await lead.call('answer', { qid: 'q99', option: 'y' })).toEqual({ isError: true, text: expect.stringContaining('no such question') });
    expect((await lead.call('questions')).text).toBe('no agent is waiting for an answer');
    for (const r of [await lead.call('lane_diff', { name: 'none' }), await lead.call('lane_merge', { name: 'none' })]) expect(r).toMatchObject({ isError: true });
  }, 60_000);

  test('a wait that times out says what still runs; a second wait on the same agent is refused; cancel ends it and wait reports it cancelled', async () => {
    lead = await connectLead(leadEnv());
    const id = idOf((await lead.call('spawn', { agents: [{ argv: ['sh', '-c', 'echo started; exec sleep 600'], label: 'sleeper' }] })).text);
    const timedOut = await lead.call('wait', { timeout_s: 1 });
    expect(timedOut).toEqual({ isError: false, text: `nothing ended or asked within 1 s; still running: #${id}. Call wait again (it costs nothing while they work).` });
    const first = lead.call('wait', { ids: [id], timeout_s: 120 });
    // The first wait holds the agent until it answers: the second is refused, whatever the order they reach the server.
    let second = await lead.call('wait', { ids: [id], timeout_s: 1 });
    while (!second.isError) second = await lead.call('wait', { ids: [id], timeout_s: 1 });
    expect(second.text).toBe(`another wait of this lead is already waiting on #${id}: wait for that one to answer, or name other ids`);
    expect(await lead.call('cancel', { id })).toEqual({ isError: false, text: `cancel requested for agent #${id}; wait reports its end` });
    const ended = await first;
    expect(ended.text).toContain(`agent #${id} sleeper cancelled`);
    expect(ended.text).toContain('started');
  }, 90_000);

  test('a list past the free slots starts what fits and says for each of the rest why not', async () => {
    lead = await connectLead(leadEnv());
    const agents = Array.from({ length: 9 }, (_, i) => ({ argv: ['sleep', '600'], label: `s${i + 1}` }));
    const spawned = await lead.call('spawn', { agents });
    expect(spawned.isError).toBe(false);
    expect(spawned.text.match(/started agent #/g)?.length).toBe(8);
    expect(spawned.text).toMatch(/not started: s9: too many agents/);
    expect(spawned.text).toContain("the cap of 8 live agents is the machine's");
    for (const id of [...spawned.text.matchAll(/started agent #(\d+)/g)].map((m) => Number(m[1]))) await lead.call('cancel', { id });
  }, 90_000);

  test('with queue, a spawn refused at the cap waits in the lead\'s queue, starts when a slot frees, and wait reports it', async () => {
    lead = await connectLead(leadEnv());
    const agents = [...Array.from({ length: 7 }, (_, i) => ({ argv: ['sleep', '600'], label: `s${i + 1}` })), { argv: ['sh', '-c', 'sleep 1; echo short done'], label: 'short' }];
    const started = await lead.call('spawn', { agents });
    const ids = [...started.text.matchAll(/started agent #(\d+)/g)].map((m) => Number(m[1]));
    expect(ids.length).toBe(8);
    const queued = await lead.call('spawn', { agents: [{ argv: ['sh', '-c', 'echo queued done'], label: 'later' }], queue: true });
    expect(queued).toEqual({ isError: false, text: expect.stringContaining('queued: later (place 1): every slot is taken') });
    // The queued one may start before or after this wait answers: its note comes with whichever wait is first.
    let seen = (await lead.call('wait', { timeout_s: 120 })).text;
    expect(seen).toContain('short done');
    for (let i = 0; i < 30 && !seen.includes('queued done'); i++) seen += (await lead.call('wait', { timeout_s: 5 })).text;
    expect(seen).toMatch(/queued later started as agent #\d+/);
    expect(seen).toContain('queued done');
    for (const id of ids) await lead.call('cancel', { id });
  }, 180_000);

  test('a client that closes stdin while wait blocks ends the server cleanly (exit 0), its wait dropped', async () => {
    const child = spawn(process.execPath, [TAI_CLI, 'mcp'], { env: testEnv(leadEnv()), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const send = (m: object): boolean => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'spawn', arguments: { agents: [{ argv: ['sleep', '600'] }] } } });
    await until(() => out.includes('started agent #1'), { what: 'the spawn answered', explain: () => out });
    send({ id: 3, method: 'tools/call', params: { name: 'wait', arguments: { timeout_s: 300 } } });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    child.stdin.end();
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(out).not.toContain('"id":3');
  }, 60_000);
});
