/**
 * `tai --wake` end to end: the built tai in a real tmux session (a private
 * server, always killed), a REPL fixture as the lead in the main pane that
 * records every line it reads, workers started over the control socket as
 * `tai mcp` starts them. The wake line reaches the REPL after a worker ended,
 * never inside a line the user is typing (tmux send-keys), and never for an
 * end a wait already reported. The delays are shortened through
 * TAI_WAKE_QUIET_OUTPUT_MS, TAI_WAKE_GAP_MS and TAI_WAKE_QUIET_KEYS_MS (long
 * enough that the test's own steps fit inside it); every wait is on a
 * condition (the REPL's record, the cockpit's log).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cockpitBackend } from '../../../src/io/lead/lead-backend.js';
import { waitForEvents } from '../../../src/io/lead/lead-wait.js';
import { TAI_CLI } from '../../helpers/tai-cli.js';
import { until, type Pace } from '../../helpers/until.js';
import { testEnv } from '../../helpers/test-env.js';
import { hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../../helpers/tmux-session.js';

const dir = realpathSync(tmuxFolder('tai-wake-'));
const record = join(dir, 'read.jsonl');
const socketFile = join(dir, 'socket');
const log = join(dir, 'state', 'tai', 'tai.log');
const SLOW: Pace = { timeout: 30_000, interval: 50 };

/** The lead: prompts, appends each line it reads to its record, and leaves the control socket's path where the test finds it. */
const REPL = `
const fs = require('node:fs');
fs.writeFileSync(process.argv[3], process.env.TAI_PLEXER_SOCKET || '');
const rl = require('node:readline').createInterface({ input: process.stdin });
process.stdout.write('> ');
rl.on('line', (line) => { fs.appendFileSync(process.argv[2], JSON.stringify(line) + '\\n'); process.stdout.write('> '); });
`;

const read = (): string[] => (existsSync(record) ? readFileSync(record, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string) : []);
const logText = (): string => (existsSync(log) ? readFileSync(log, 'utf8') : '');
/** What the cockpit and the workers run with, beside test-env.ts's own: no colour, this test's folders, no cockpit around them. */
const OWN = {
  NO_COLOR: '1',
  TERM: 'xterm-256color',
  XDG_STATE_HOME: join(dir, 'state'),
  XDG_RUNTIME_DIR: join(dir, 'run'),
  XDG_CONFIG_HOME: join(dir, 'config'),
  TAI_PLEXER_SOCKET: '',
};
const env = testEnv(OWN);
/** The tmux server's whole environment is the test's own (test/helpers/test-env.ts): nothing of the caller's. */
const server = new TmuxServer('tai-wake', env);
let wake: TmuxSession;
const screen = (): string => wake.text();

/** Starts a worker over the control socket that ends once `gate` exists; returns its id. */
function worker(gate: string): number {
  const out = execFileSync(process.execPath, [TAI_CLI, 'spawn', '--detach', '--json', '--label', 'worker', '--socket', readFileSync(socketFile, 'utf8'), '--', 'sh', '-c', `while [ ! -e ${gate} ]; do sleep 0.05; done; echo WORKER-OUT`], { env, encoding: 'utf8' });
  const id = /"id":\s*(\d+)/.exec(out) ?? /#(\d+)/.exec(out);
  if (id === null) throw new Error(`no agent id in: ${out}`);
  return Number(id[1]);
}

describe.skipIf(!hasTmux)('tai --wake in a real cockpit', () => {
  beforeAll(async () => {
    writeFileSync(join(dir, 'repl.js'), REPL);
    wake = server.start('wake', {
      cols: 140,
      rows: 30,
      cwd: dir,
      env: {
        ...OWN,
        NODE_ENV: 'production',
        TAI_WAKE_QUIET_OUTPUT_MS: '300',
        TAI_WAKE_GAP_MS: '300',
        TAI_WAKE_QUIET_KEYS_MS: '12000',
      },
      command: `${process.execPath} ${TAI_CLI} --wake -- ${process.execPath} ${join(dir, 'repl.js')} ${record} ${socketFile}`,
    });
    await until(() => existsSync(socketFile) && readFileSync(socketFile, 'utf8') !== '' && wake.screen().some((r) => r.startsWith('>')), { ...SLOW, what: 'the lead at its prompt in the cockpit', explain: () => `${existsSync(socketFile) ? readFileSync(socketFile, 'utf8') : 'no socket file'}\n${screen()}\n${logText()}` });
  }, 60_000);

  afterAll(() => server.end(dir));

  it("types its line into the lead after a worker ended, not while the user types, and after the user's own line", async () => {
    const id = worker(join(dir, 'gate1'));
    wake.type('hel');
    await until(() => screen().includes('> hel'), { ...SLOW, what: 'the typed keys on the screen' });
    writeFileSync(join(dir, 'gate1'), '');
    // The worker ended and the lead is quiet: only the keys hold the line back now.
    await until(() => logText().includes('lead wake-up waits: the user typed recently'), { ...SLOW, what: 'the wake-up held by the keys', explain: logText });
    expect(read()).toEqual([]);
    wake.type('lo');
    wake.keys('Enter');
    await until(() => read().length >= 2, { ...SLOW, what: 'the wake line read by the lead', explain: () => `${JSON.stringify(read())}\n${logText()}` });
    expect(read()).toEqual(['hello', `[tai] agent #${id} worker done (11 characters): read it with the tai wait tool`]);
    expect(logText()).toContain(`woke the lead: [tai] agent #${id} worker done`);
  }, 60_000);

  it('types nothing for an end that a wait of the lead reported', async () => {
    const id = worker(join(dir, 'gate2'));
    // The wait of the lead's `wait` tool, looking once a second; the worker ends once it has looked.
    let looked = false;
    const waiting = waitForEvents(cockpitBackend(readFileSync(socketFile, 'utf8')), { ids: [id], all: false, timeoutMs: 60_000, seenQuestions: new Set(), onLook: () => (looked = true) });
    await until(() => looked, { ...SLOW, what: 'the wait looking' });
    writeFileSync(join(dir, 'gate2'), '');
    const outcome = await waiting;
    expect(outcome.events.map((e) => (e.kind === 'finished' ? `${e.id} ${e.state} ${e.text.trim()}` : e.kind))).toEqual([`${id} done WORKER-OUT`]);
    await until(() => logText().includes(`agent #${id} done was reported to the lead already: not typed`), { ...SLOW, what: 'the end dropped as heard', explain: logText });
    expect(read()).toHaveLength(2);
  }, 60_000);

  it('is refused with its reason where nothing is drawn (TAI_ORCH_PANELS=0)', () => {
    const r = spawnSync(process.execPath, [TAI_CLI, '--wake', '--', 'true'], { env: { ...env, TAI_ORCH_PANELS: '0' }, encoding: 'utf8' });
    expect(r.status).toBe(64);
    expect(r.stderr).toContain('--wake types into the main program');
  });

  it('takes TAI_WAKE=1 in the environment as the standing switch: refused alike where nothing is drawn', () => {
    const r = spawnSync(process.execPath, [TAI_CLI, '--', 'true'], { env: { ...env, TAI_ORCH_PANELS: '0', TAI_WAKE: '1' }, encoding: 'utf8' });
    expect(r.status).toBe(64);
    expect(r.stderr).toContain('--wake types into the main program');
  });
});
