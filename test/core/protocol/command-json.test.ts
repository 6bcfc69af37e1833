/**
 * The JSON form of every Command: each round-trips, every field's refusal
 * names the field, and every limit of docs/spec.md, "The vpane protocol" holds.
 * The EXAMPLES table is keyed by command name, so a new member of the Command
 * union without a row here fails to compile.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { COMMAND_NAMES, commandToJson, parseCommand } from '../../../src/core/protocol/command-json.js';
import type { CommandName, CommandOf } from '../../../src/core/protocol/commands.js';
import { RequestError, VPANE_ERRORS } from '../../../src/core/errors.js';

/** At least one command of every name; the mapped type makes a missing name a compile error. */
const EXAMPLES: { readonly [N in CommandName]: readonly [CommandOf<N>, ...CommandOf<N>[]] } = {
  vpane_open: [
    { cmd: 'vpane_open' },
    { cmd: 'vpane_open', pane: '0', label: 'agent #1', header: ' ● agent #1 · running · 0s', state: 'running', main_percent: 55 },
  ],
  vpane_write: [
    { cmd: 'vpane_write', ops: [] },
    {
      cmd: 'vpane_write',
      ops: [
        { pane: 3, data: '\u001b[1mhello\u001b[0m\r\n', header: ' ● agent #1 · running · 4s', state: 'running' },
        { pane: 4, data: 'bye\r\n', state: 'done', done: true, linger: 20 },
      ],
    },
  ],
  vpane_close: [{ cmd: 'vpane_close', pane: 3 }],
  vpane_list: [{ cmd: 'vpane_list' }],
  detach: [{ cmd: 'detach' }],
  spawn: [
    { cmd: 'spawn', kind: 'command', argv: ['ls', '-la'] },
    { cmd: 'spawn', kind: 'claude', argv: [], label: 'fix tests', prompt: 'fix the tests', timeout: 600, cwd: '/tmp', retries: 2, allow: true },
    { cmd: 'spawn', kind: 'acp', argv: ['gemini', '--acp'], prompt: 'and now?', session: '["gemini","","/repo"]' },
    { cmd: 'spawn', kind: 'command', argv: ['sh'], cwd: '/repo', lane: '' },
    { cmd: 'spawn', kind: 'command', argv: ['sh'], cwd: '/repo', lane: 'fix-tests' },
    { cmd: 'spawn', kind: 'command', argv: ['sh'], in_lane: 'fix-tests' },
    { cmd: 'spawn', kind: 'acp', argv: ['gemini', '--acp'], permissions: 'ask', ask_timeout: 30, ask_default: 'reject' },
    { cmd: 'spawn', kind: 'command', argv: ['cat'], stdin: true },
  ],
  cancel: [{ cmd: 'cancel', id: 7 }, { cmd: 'cancel', id: 7, reason: 'interrupted (Ctrl-C)' }],
  status: [{ cmd: 'status' }],
  poll: [{ cmd: 'poll', id: 7 }, { cmd: 'poll', id: 7, wait: 30 }],
  record_read: [{ cmd: 'record_read', id: 'r-1' }, { cmd: 'record_read', id: 'r-1', offset: 100, limit: 50 }],
  focus: [{ cmd: 'focus', to: 'next' }, { cmd: 'focus', to: 'left' }, { cmd: 'focus', to: 'main' }, { cmd: 'focus', to: 3 }],
  ask_list: [{ cmd: 'ask_list' }],
  ask_answer: [{ cmd: 'ask_answer', qid: 'q3', option: 'allow-once' }, { cmd: 'ask_answer', qid: 'q3', option: '2' }, { cmd: 'ask_answer', qid: 'q3', option: 'y', by: 'lead' }],
  ask_answer_all: [{ cmd: 'ask_answer_all', tool: 'Bash', option: 'y' }, { cmd: 'ask_answer_all', agent: '@x', option: 'n', by: 'lead' }],
  ask_rule_add: [
    { cmd: 'ask_rule_add', decision: 'allow', tool: 'Bash', prefix: 'npm test', agent: '@x', expires_at: 1_800_000_000_000 },
    { cmd: 'ask_rule_add', decision: 'reject', tool: '*', path: '/repo/secrets', lane: 'fix-a', expires_at: 1_800_000_000_000, saved: true },
    { cmd: 'ask_rule_add', decision: 'allow', tool: '*', expires_at: 1_800_000_000_000, everything: true },
  ],
  ask_rule_list: [{ cmd: 'ask_rule_list' }],
  ask_rule_drop: [{ cmd: 'ask_rule_drop', rule: 'R3' }],
  steer: [{ cmd: 'steer', id: 4, text: 'also fix the docs' }],
  close: [{ cmd: 'close' }, { cmd: 'close', pane: 2 }],
  zoom: [{ cmd: 'zoom' }],
  scroll: [{ cmd: 'scroll', pages: -2 }, { cmd: 'scroll', pages: 0 }, { cmd: 'scroll', lines: -3 }],
  help: [{ cmd: 'help' }],
  lane_diff: [{ cmd: 'lane_diff' }, { cmd: 'lane_diff', pane: 3 }],
  view_close: [{ cmd: 'view_close' }, { cmd: 'view_close', pane: 4 }],
};

const refusal = (value: unknown): string => {
  const parsed = parseCommand(value);
  if (!(parsed instanceof RequestError)) throw new Error(`accepted: ${JSON.stringify(parsed)}`);
  return parsed.message;
};

describe('round trip', () => {
  test('the table covers every command name', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...COMMAND_NAMES].sort());
  });

  test.each(Object.values(EXAMPLES).flat().map((c) => [c.cmd, c] as const))('%s round-trips through its JSON form', (_name, cmd) => {
    expect(parseCommand(JSON.parse(JSON.stringify(commandToJson(cmd))))).toEqual(cmd);
  });
});

describe('refusals name the field', () => {
  test.each([
    [null, 'request must be a JSON object'],
    ['vpane_list', 'request must be a JSON object'],
    [[], 'request must be a JSON object'],
    [{}, 'missing field: cmd'],
    [{ cmd: 7 }, 'cmd must be a string'],
    [{ cmd: 'launch' }, 'unknown command: "launch"'],
    [{ cmd: 'vpane_open', label: 3 }, 'vpane_open label must be a string'],
    [{ cmd: 'ask_answer', option: '1' }, 'missing field: ask_answer qid'],
    [{ cmd: 'ask_answer', qid: 'q1', option: '' }, 'ask_answer option must not be empty'],
    [{ cmd: 'steer', id: 1, text: '' }, 'steer text must not be empty'],
    [{ cmd: 'steer', text: 'hi' }, 'missing field: steer id'],
    [{ cmd: 'spawn', kind: 'acp', permissions: 'maybe' }, 'spawn permissions must be one of ask, allow, reject (got "maybe")'],
    [{ cmd: 'spawn', kind: 'acp', ask_default: 'ask' }, 'spawn ask_default must be one of allow, reject (got "ask")'],
    [{ cmd: 'spawn', kind: 'acp', ask_timeout: 0 }, 'spawn ask_timeout must be greater than 0'],
    [{ cmd: 'vpane_open', state: 'happy' }, 'vpane_open state must be one of running, idle, done, failed, timeout, cancelled (got "happy")'],
    [{ cmd: 'vpane_open', main_percent: '55' }, 'vpane_open main_percent must be a number'],
    [{ cmd: 'vpane_open', pane: true }, 'vpane_open pane must be a string (a pane id such as "0")'],
    [{ cmd: 'vpane_write' }, 'ops must be a list'],
    [{ cmd: 'vpane_write', ops: 'x' }, 'ops must be a list'],
    [{ cmd: 'vpane_write', ops: [1] }, 'vpane_write ops[0] must be an object'],
    [{ cmd: 'vpane_write', ops: [{ pane: 1 }, { data: 'x' }] }, 'missing field: vpane_write ops[1].pane'],
    [{ cmd: 'vpane_write', ops: [{ pane: -1 }] }, 'vpane_write ops[0].pane must not be negative'],
    [{ cmd: 'vpane_write', ops: [{ pane: 1.5 }] }, 'vpane_write ops[0].pane must be an integer'],
    [{ cmd: 'vpane_write', ops: [{ pane: 1, data: 5 }] }, 'vpane_write ops[0].data must be a string'],
    [{ cmd: 'vpane_write', ops: [{ pane: 1, done: 'yes' }] }, 'vpane_write ops[0].done must be true or false'],
    [{ cmd: 'vpane_write', ops: [{ pane: 1, linger: '20' }] }, 'vpane_write ops[0].linger must be a number'],
    [{ cmd: 'vpane_close' }, 'missing field: vpane_close pane'],
    [{ cmd: 'spawn', argv: [] }, 'missing field: spawn kind'],
    [{ cmd: 'spawn', kind: 'command', argv: 'ls' }, 'spawn argv must be a list of strings'],
    [{ cmd: 'spawn', kind: 'command', timeout: 0 }, 'spawn timeout must be greater than 0'],
    [{ cmd: 'spawn', kind: 'command', argv: ['sh', 'a\u0000b'] }, 'spawn argv[1] must not contain a NUL byte'],
    [{ cmd: 'spawn', kind: 'command', argv: ['sh'], cwd: '/tmp\u0000' }, 'spawn cwd must not contain a NUL byte'],
    [{ cmd: 'spawn', kind: 'command', argv: ['sh'], cwd: 7 }, 'spawn cwd must be a string'],
    [{ cmd: 'spawn', kind: 'acp', session: '' }, 'spawn session must not be empty'],
    [{ cmd: 'spawn', kind: 'acp', session: ['gemini'] }, 'spawn session must be a string'],
    [{ cmd: 'cancel', id: '3' }, 'cancel id must be an integer'],
    [{ cmd: 'poll', id: 1, wait: -1 }, 'poll wait must not be negative'],
    [{ cmd: 'record_read', id: '' }, 'record_read id must not be empty'],
    [{ cmd: 'record_read', id: 'r', limit: 0 }, 'record_read limit must be greater than 0'],
    [{ cmd: 'focus', to: 'sideways' }, 'focus to must be one of next, prev, left, right, up, down, main or a pane id (got "sideways")'],
    [{ cmd: 'focus', to: -1 }, 'focus to must not be negative'],
    [{ cmd: 'scroll', lines: 1.5 }, 'scroll lines must be an integer'],
    [{ cmd: 'scroll', lines: 1, pages: 1 }, 'scroll takes pages or lines, not both'],
    [{ cmd: 'scroll' }, 'missing field: scroll pages'],
    [{ cmd: 'scroll', pages: 0.5 }, 'scroll pages must be an integer'],
  ])('%j is refused: %s', (value, message) => {
    expect(refusal(value)).toBe(message);
  });

  test('a long unknown command is echoed short and escaped', () => {
    expect(refusal({ cmd: `\u001b${'x'.repeat(100)}` })).toBe(`unknown command: ${JSON.stringify(`\u001b${'x'.repeat(59)}…`)}`);
  });
});

describe('the limits of docs/spec.md, "The vpane protocol"', () => {
  const ops = (n: number): unknown => ({ cmd: 'vpane_write', ops: Array.from({ length: n }, () => ({ pane: 1 })) });

  test('16 ops pass, 17 are refused', () => {
    expect(parseCommand(ops(16))).not.toBeInstanceOf(RequestError);
    expect(refusal(ops(17))).toBe('too many ops in one write');
  });

  test('data is measured in UTF-8 bytes: 65536 pass, 65537 are refused', () => {
    expect(parseCommand({ cmd: 'vpane_write', ops: [{ pane: 1, data: '€'.repeat(21_845) + 'a' }] })).not.toBeInstanceOf(RequestError);
    expect(refusal({ cmd: 'vpane_write', ops: [{ pane: 1, data: '€'.repeat(21_845) + 'ab' }] })).toBe('op data too large');
  });

  test('linger is clamped to 0..300 s', () => {
    const linger = (l: number): unknown => {
      const c = parseCommand({ cmd: 'vpane_write', ops: [{ pane: 1, done: true, linger: l }] });
      return c instanceof RequestError || c.cmd !== 'vpane_write' ? c : c.ops[0]?.linger;
    };
    expect([linger(20), linger(300), linger(301), linger(1e9), linger(-5)]).toEqual([20, 300, 300, 300, 0]);
  });

  test('a poll waits at most an hour: a longer wait (past what a timer holds, 2^31 ms) is clamped to 3600 s', () => {
    const wait = (w: number): unknown => {
      const c = parseCommand({ cmd: 'poll', id: 1, wait: w });
      return c instanceof RequestError || c.cmd !== 'poll' ? c : c.wait;
    };
    expect([wait(0), wait(30), wait(3_600), wait(3_601), wait(2 ** 31), wait(1e300)]).toEqual([0, 30, 3_600, 3_600, 3_600, 3_600]);
  });

  test("record_read's limit is clamped to 1,000,000 characters", () => {
    const limit = (l: number): unknown => {
      const c = parseCommand({ cmd: 'record_read', id: 'r-1', limit: l });
      return c instanceof RequestError || c.cmd !== 'record_read' ? c : c.limit;
    };
    expect([limit(6_000), limit(1_000_000), limit(1_000_001), limit(2 ** 53 - 1)]).toEqual([6_000, 1_000_000, 1_000_000, 1_000_000]);
  });

  test('a header is clipped to 200 characters, counted in code points', () => {
    const c = parseCommand({ cmd: 'vpane_write', ops: [{ pane: 1, header: '🙂'.repeat(250) }] });
    if (c instanceof RequestError || c.cmd !== 'vpane_write') throw new Error('refused');
    expect([...(c.ops[0]?.header ?? '')]).toHaveLength(200);
    expect(c.ops[0]?.header?.endsWith('…')).toBe(true);
    const exact = parseCommand({ cmd: 'vpane_open', header: 'h'.repeat(200) });
    expect(exact).toEqual({ cmd: 'vpane_open', header: 'h'.repeat(200) });
  });

  test('pane ids may be digit strings, as the original sends pane "0"', () => {
    expect(parseCommand({ cmd: 'vpane_write', ops: [{ pane: '3' }] })).toEqual({ cmd: 'vpane_write', ops: [{ pane: 3 }] });
    expect(parseCommand({ cmd: 'vpane_open', pane: 0 })).toEqual({ cmd: 'vpane_open', pane: '0' });
  });

  test('unknown fields are ignored', () => {
    expect(parseCommand({ cmd: 'status', extra: { deep: [1] } })).toEqual({ cmd: 'status' });
  });
});

describe('docs/protocol.md', () => {
  const doc = readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8');

  test('documents every command', () => {
    expect(COMMAND_NAMES.filter((name) => !doc.includes(`"cmd":"${name}"`))).toEqual([]);
  });

  test('lists every error text of the spec', () => {
    expect(Object.values(VPANE_ERRORS).filter((text) => !doc.includes(`| \`${text}\``))).toEqual([]);
  });
});
