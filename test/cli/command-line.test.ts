/**
 * The one command-line reader, through the built CLI: every subcommand
 * answers --help and -h with its usage (exit 0) and a bad line with the
 * reason and the usage on stderr (exit 64).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runTai } from '../helpers/tai-cli.js';

const SUBCOMMANDS = ['spawn', 'poll', 'cancel', 'record', 'vpane', 'status', 'agents', 'report', 'outage', 'net', 'demo'] as const;

/** A state folder and no cockpit: nothing a test runs reaches the user's own. */
function isolated(): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'tai-cli-'));
  return { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run'), TAI_PLEXER_SOCKET: '' };
}

describe('every subcommand', () => {
  test.each(SUBCOMMANDS.flatMap((name) => [[name, '--help'], [name, '-h']]))('tai %s %s prints its usage on stdout and exits 0', async (name, flag) => {
    const run = await runTai([name, flag], isolated());
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toMatch(new RegExp(`^usage:[\\s\\S]*\\btai ${name}\\b`));
  });

  test.each(SUBCOMMANDS)('tai %s --bogus says the option is unknown, shows the usage and exits 64', async (name) => {
    const run = await runTai([name, '--bogus'], isolated());
    expect(run.code).toBe(64);
    expect(run.out).toBe('');
    expect(run.err.split('\n')[0]).toBe(`tai ${name}: unknown option '--bogus'`);
    expect(run.err).toMatch(/\nusage:/);
  });

  test('tai --help and tai -h print the usage naming every subcommand', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const run = await runTai([flag], isolated());
      expect(run.code).toBe(0);
      for (const name of SUBCOMMANDS) expect(run.out).toMatch(new RegExp(`\\btai ${name}\\b`));
    }
  });

  test('an unknown command or option of tai itself exits 64 with the reason', async () => {
    expect(await runTai(['bogus'], isolated())).toMatchObject({ code: 64, err: expect.stringMatching(/^tai: unknown command 'bogus'\n/) });
    expect(await runTai(['--bogus'], isolated())).toMatchObject({ code: 64, err: expect.stringMatching(/^tai: unknown option '--bogus'\n/) });
  });
});

describe('missing and bad arguments say what is wrong', () => {
  test.each([
    [['poll'], 'tai poll: missing agent id (the number `tai status` shows: 3 for #3)'],
    [['cancel'], 'tai cancel: missing agent id (the number `tai status` shows: 3 for #3)'],
    [['poll', 'x'], "tai poll: not an agent id: 'x' (a whole number from 1: 3 for #3 in `tai status`)"],
    [['cancel', '1', '2'], 'tai cancel: one agent id, not 2: 1 2'],
    [['poll', '3', '--wait'], 'tai poll: --wait needs a value'],
    [['record', 'read', 'r1', '--offset', '-5'], "tai record: --offset needs a value (for one that starts with '-', write --offset=VALUE)"],
    [['record', 'read', 'r1', '--offset=-5'], 'tai record: --offset must be 0 or more, got -5'],
    [['record', 'read', 'r1', '--limit', 'ten'], "tai record: --limit takes a whole number, got 'ten'"],
    [['record', 'read'], 'tai record: missing record id (the id the claim check printed: r...)'],
    [['record'], 'tai record: missing subcommand: read, search or gc'],
    [['vpane', 'write'], 'tai vpane: write needs a pane id (the number tai vpane open printed)'],
    [['vpane', 'open', '--main-percent', '200'], "tai vpane: --main-percent takes a whole number from 1 to 99, got '200'"],
    [['outage', 'wait', '--model', 'ok'], '--model is not an option of tai outage wait'],
    [['status', 'extra'], "tai status: unexpected argument 'extra'"],
    [['net'], 'tai net: a command to run is needed'],
    [['demo', '--agents', 'bogus'], "tai demo: unknown agent 'bogus' (stream, tools, silent, fail)"],
    [['spawn', '--retries', '-1'], "tai spawn: --retries needs a value (for one that starts with '-', write --retries=VALUE)"],
  ])('tai %j exits 64: %s', async (args, reason) => {
    const run = await runTai(args, isolated());
    expect(run.code).toBe(64);
    expect(run.err.split('\n')[0]).toContain(reason);
    expect(run.err).toContain('usage:');
  });

  test("tai net's options end at its command: --help after the command is the command's own", async () => {
    const run = await runTai(['net', process.execPath, '-e', 'process.stdout.write(process.argv.slice(1).join(" "))', '--', '--help'], isolated());
    expect(run).toMatchObject({ code: 0, out: '--help' });
  });
});
