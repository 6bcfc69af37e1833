/**
 * Waking an idle lead (src/io/lead/lead-wake.ts): a REPL fixture in a real
 * pty records every line it reads; the wake-up types into that pty when the
 * lead's agent ends, never while keys are being typed, never twice for one
 * event, one line for several. The clock is the test's; the agents' rows are
 * given as the board would give them.
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from 'node-pty';
import { afterEach, describe, expect, test } from 'vitest';
import { WAKE_MIN_GAP_MS, WAKE_QUIET_KEYS_MS } from '../../../src/core/lead/wake-rules.js';
import { startLeadWake, type LeadWake, type LeadWakeOptions } from '../../../src/io/lead/lead-wake.js';
import { wakeDelays } from '../../../src/io/lead/wake-wiring.js';
import type { AgentRow, BoardStatus } from '../../../store/status.js';
import { until } from '../../helpers/until.js';
import { testEnv } from '../../helpers/test-env.js';

/** A REPL that appends each line it reads to `record`, and prompts. */
const REPL = `
const fs = require('node:fs');
const rl = require('node:readline').createInterface({ input: process.stdin });
process.stdout.write('> ');
rl.on('line', (line) => { fs.appendFileSync(process.argv[1], JSON.stringify(line) + '\\n'); process.stdout.write('> '); });
`;

let repl: pty.IPty | undefined;
let wake: LeadWake | undefined;
afterEach(() => {
  wake?.stop();
  repl?.kill();
  repl = undefined;
});

function row(id: number, state: AgentRow['state'], reason = ''): AgentRow {
  return { id, kind: 'agent', label: `w${id}`, task: '', state, startedAt: 0, lastEventAt: 0, elapsedMs: 0, tools: 0, tokens: 0, droppedBytes: 0, reason };
}

function setUp(extra: Partial<LeadWakeOptions> = {}): { clock: { t: number }; rows: AgentRow[]; record: () => string[]; typed: string[]; shown: string[]; waiting: { now: boolean } } {
  const record = join(mkdtempSync(join(tmpdir(), 'tai-wake-')), 'read.jsonl');
  const p = pty.spawn(process.execPath, ['-e', REPL, record], { cols: 100, rows: 20, env: testEnv({ NO_COLOR: '1', TERM: 'xterm' }) });
  repl = p;
  const clock = { t: 1_000_000 };
  const rows: AgentRow[] = [];
  const typed: string[] = [];
  const shown: string[] = [];
  const waiting = { now: false };
  wake = startLeadWake({
    status: (): BoardStatus => ({ totals: { total: rows.length } as BoardStatus['totals'], agents: rows }),
    isLeads: (id) => id !== 99,
    waitPending: () => waiting.now,
    type: (text) => {
      typed.push(text);
      p.write(text);
    },
    showStatus: (line) => shown.push(line),
    now: () => clock.t,
    ...extra,
  });
  p.onData(() => wake?.noteOutput());
  const read = (): string[] => (existsSync(record) ? readFileSync(record, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string) : []);
  return { clock, rows, record: read, typed, shown, waiting };
}

describe('waking an idle lead', () => {
  test("types one line into the main program after the lead's agent ended and all went quiet, shows it on the status line, and never twice", async () => {
    const { clock, rows, record, shown } = setUp();
    rows.push(row(3, 'running'));
    expect(wake?.tick()).toBeUndefined();
    rows[0] = row(3, 'done', 'exit 0 · 1234 chars');
    expect(wake?.tick()).toBeUndefined(); // quiet for no time yet
    clock.t += WAKE_QUIET_KEYS_MS + 1;
    const line = wake?.tick();
    expect(line).toBe('[tai] agent #3 w3 done (1234 characters): read it with the tai wait tool');
    await until(() => record().length === 1, { what: 'the REPL read the line' });
    expect(record()).toEqual([line]);
    expect(shown).toEqual([`woke the lead: ${line}`]);
    clock.t += 60_000;
    expect(wake?.tick()).toBeUndefined();
  });

  test('never types while the user types: the line waits until the keys have been quiet, and lands after the user\'s own line', async () => {
    const { clock, rows, record, typed } = setUp();
    clock.t += WAKE_QUIET_KEYS_MS + 1;
    repl?.write('hel');
    wake?.noteKeys();
    rows.push(row(4, 'failed', 'exit 1 · 12 chars'));
    clock.t += WAKE_QUIET_KEYS_MS - 1_000;
    expect(wake?.tick()).toBeUndefined();
    expect(typed).toEqual([]);
    repl?.write('lo\r');
    wake?.noteKeys();
    await until(() => record().length === 1, { what: "the REPL read the user's line" });
    clock.t += WAKE_QUIET_KEYS_MS + 1;
    expect(wake?.tick()).toContain('agent #4 w4 failed');
    await until(() => record().length === 2, { what: 'the REPL read the wake line' });
    expect(record()).toEqual(['hello', '[tai] agent #4 w4 failed (12 characters): read it with the tai wait tool']);
  });

  test("several ends make one line; the next waits the gap; a pending wait, and an agent not the lead's, wake nobody", async () => {
    const { clock, rows, record, waiting } = setUp();
    rows.push(row(1, 'done'), row(2, 'cancelled'), row(99, 'done'));
    clock.t += WAKE_QUIET_KEYS_MS + 1;
    waiting.now = true;
    expect(wake?.tick()).toBeUndefined();
    waiting.now = false;
    expect(wake?.tick()).toBe('[tai] agent #1 w1 done (0 characters) and 1 more: read it with the tai wait tool');
    rows.push(row(5, 'asking'));
    clock.t += WAKE_MIN_GAP_MS - 1;
    expect(wake?.tick()).toBeUndefined();
    clock.t += 1;
    expect(wake?.tick()).toBe('[tai] agent #5 w5 asks a question: read it with the tai questions tool');
    await until(() => record().length === 2, { what: 'the REPL read both lines' });
  });

  test('an end a wait already reported is never typed, not even once the wait is over, and a wait pending holds the line', () => {
    const heard = new Set<number>();
    const held: string[] = [];
    const { clock, rows } = setUp({ heard: (id) => heard.has(id), waitPending: (id) => id === 8, held: (why) => held.push(why) });
    clock.t += WAKE_QUIET_KEYS_MS + 1;
    rows.push(row(7, 'done'), row(8, 'done'));
    expect(wake?.tick()).toBeUndefined(); // a wait on #8 is pending
    expect(held).toEqual(['a wait of the lead is pending: it hears of the event itself']);
    heard.add(8);
    expect(wake?.tick()).toBe('[tai] agent #7 w7 done (0 characters): read it with the tai wait tool');
    expect(held).toContain('agent #8 done was reported to the lead already: not typed');
    clock.t += 60_000;
    expect(wake?.tick()).toBeUndefined();
  });

  test('the delays come from the environment when given in whole ms, else from the rules', () => {
    expect(wakeDelays({ TAI_WAKE_QUIET_OUTPUT_MS: '300', TAI_WAKE_QUIET_KEYS_MS: '8000', TAI_WAKE_GAP_MS: 'soon' })).toEqual({ quietOutputMs: 300, quietKeysMs: 8_000, minGapMs: WAKE_MIN_GAP_MS });
  });

  test("a retried job wakes the lead once, when its last attempt ended, under the id the lead holds", () => {
    const current = { of1: 1 };
    const { clock, rows } = setUp({ jobOf: (id) => (id === 2 ? 1 : id), superseded: (id) => id === 1 && current.of1 !== 1 });
    clock.t += WAKE_QUIET_KEYS_MS + 1;
    rows.push(row(1, 'failed', 'exit 1 · 3 chars'));
    current.of1 = 2; // the retry started
    rows.push(row(2, 'running'));
    expect(wake?.tick()).toBeUndefined();
    rows[1] = row(2, 'done', 'exit 0 · 5 chars');
    expect(wake?.tick()).toBe('[tai] agent #1 w2 done (5 characters): read it with the tai wait tool');
  });
});
