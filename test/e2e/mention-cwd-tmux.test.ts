/**
 * The built `tai` in a real tmux session (a private server, always killed):
 * an agent started from the mention line runs where the main shell is now,
 * after its `cd`, not where the cockpit started, as `tai spawn @name` typed
 * in that shell would. Waits on conditions read with capture-pane.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmuxEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const dir = realpathSync(tmuxFolder('tai-cwd-'));
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const server = new TmuxServer('tai-cwd', tmuxEnv(dir));
let term: TmuxSession;

const screen = (): string[] => term.screen();
const keys = (...k: string[]): void => term.keys(...k);

describe.skipIf(!hasTmux)('the mention line in tmux', () => {
  beforeAll(() => {
    mkdirSync(join(dir, 'config', 'tai'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'config', 'tai', 'agents.json'), JSON.stringify({ agents: { where: { kind: 'command', command: ['sh', '-c', 'echo "ran in $(pwd)"; sleep 30'] } } }));
    buildCli();
    term = server.start('cwd', {
      cwd: dir,
      env: {
        NODE_ENV: 'production',
        NO_COLOR: '',
        TERM: 'xterm-256color',
        XDG_STATE_HOME: join(dir, 'state'),
        XDG_RUNTIME_DIR: join(dir, 'run'),
        XDG_CONFIG_HOME: join(dir, 'config'),
      },
    });
  }, 60_000);

  afterAll(() => server.end(dir));

  it("starts @name in the main shell's current directory, after its cd", async () => {
    keys(`node ${CLI} -- bash --norc --noprofile`, 'Enter');
    await term.until(() => expect(term.alternate()).toBe(true));
    keys('-l', 'PS1="inner$ "; cd elsewhere; echo moved-$((6*7))');
    keys('Enter');
    await term.until(() => expect(screen().some((r) => r.startsWith('moved-42'))).toBe(true));
    keys('C-]', '@');
    keys('-l', 'where tell me');
    keys('Enter');
    await term.until(() => expect(term.text()).toContain(`ran in ${join(dir, 'elsewhere')}`));
    keys('exit', 'Enter');
  }, 60_000);
});
