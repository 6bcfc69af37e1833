/**
 * A display must never stop supervision: the whole cockpit in a real tmux
 * session, and 15 bytes that used to freeze it for 50 minutes (CSI
 * 2147483647 S, and the other counts xterm.js loops on) printed in the main
 * pane and sent as a feed pane's raw data. Right after, the socket answers,
 * a key echoes, and an agent's wall clock still fires.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const dir = tmuxFolder('tai-e2e-bomb-');
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const server = new TmuxServer('tai-e2e-bomb', testEnv());
let e2e: TmuxSession;

/** The main pane's text (left of the separator at 120x40) and the right column's. */
const left = (): string => e2e.columns(0, 66);
const right = (): string => e2e.columns(67);
const keys = (...k: string[]): void => e2e.keys(...k);
const until = (check: () => void, timeout = 20_000): Promise<void> => e2e.until(check, { timeout, interval: 50 });

/** One request on the control socket; resolves with the reply line, rejects after `ms`. */
function ask(socket: string, line: string, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(socket);
    let got = '';
    const timer = setTimeout(() => {
      c.destroy();
      reject(new Error(`no reply in ${ms} ms`));
    }, ms);
    c.on('data', (d) => {
      got += d.toString('utf8');
      if (got.includes('\n')) {
        clearTimeout(timer);
        c.end();
        resolve(got.slice(0, got.indexOf('\n')));
      }
    });
    c.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    c.write(line + '\n');
  });
}

const BOMBS = ['S', 'T', 'L', 'M', '@', 'P', 'X', 'E', 'F', 'd', 'G'].map((f) => `\\033[2147483647${f}`).join('') + 'x\\033[2147483647b';

describe.skipIf(!hasTmux)('the cockpit under hostile escape sequences', () => {
  beforeAll(() => {
    buildCli();
    const run = join(dir, 'run');
    e2e = server.start('e2e', {
      env: { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: run, NODE_ENV: 'production' },
      command: `node ${CLI} -- bash --norc --noprofile`,
    });
  }, 120_000);

  afterAll(() => server.end(dir));

  it('keeps answering the socket, echoing keys and timing agents out after bombs in the main pane and a feed pane', async () => {
    keys(`PS1='$ '; tai() { node ${CLI} "$@"; }; clear`, 'Enter');
    keys('echo "SOCK=$TAI_PLEXER_SOCKET="', 'Enter');
    await until(() => expect(left()).toMatch(/SOCK=\/\S+=/));
    const socket = /SOCK=(\/\S+)=/.exec(left().replace(/\n/g, ''))![1]!;
    keys(`tai vpane open --label ext --header ' ● ext · running'`, 'Enter');
    await until(() => expect(right()).toContain(' ● ext · running'));
    // The shortest wall clock an agent may have (FORK_TIMEOUT_MIN): 30 s.
    keys(`tai spawn --detach --timeout 30 --label clock -- sleep 300`, 'Enter');
    await until(() => expect(right()).toMatch(/ ● clock · running/));
    const spawned = Date.now();

    keys(`clear; tai vpane write 1 --raw "$(printf '${BOMBS}')"; printf '${BOMBS}'; echo; echo BOMBED`, 'Enter');
    await until(() => expect(left()).toContain('BOMBED'));
    // Soon after (the bombs once froze the loop for minutes; 10 s leaves room for a loaded machine): the socket answers, a key echoes.
    const reply = await ask(socket, JSON.stringify({ cmd: 'status' }), 10_000);
    expect(JSON.parse(reply)).toMatchObject({ ok: true });
    keys('echo ALIVE-AFTER');
    await until(() => expect(left()).toContain('ALIVE-AFTER'), 10_000);
    keys('Enter');

    // The agent's 30 s wall clock fires, long before its sleep of 300 s would end (room for the tick, the grace and a loaded machine).
    await until(() => expect(right()).toMatch(/ ⏱ clock · timeout/), 90_000 - (Date.now() - spawned));
    keys('exit', 'Enter');
    await until(() => expect(server.has('e2e')).toBe(false));
  }, 150_000);
});
