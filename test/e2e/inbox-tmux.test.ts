/**
 * The inbox's keys as a person meets them, in a real tmux of its own (a
 * private server with its own environment, always killed): the built `tai`
 * around bash, an ACP agent on the real SDK asking three questions
 * (test/fixtures/acp-rules-agent.mjs); in its focused panel `a` makes a rule
 * that answers the question and the next of the same tool, and the panel
 * says by which rule (docs/agents.md, "The inbox"). Waits on conditions.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmuxEnv } from '../helpers/test-env.js';
import { fixture } from '../helpers/agents.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const dir = tmuxFolder('tai-inbox-tmux-');
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const ENV = tmuxEnv(dir);
const server = new TmuxServer('tai-inbox', ENV);
let term: TmuxSession;

const text = (): string => term.text();
const keys = (...k: string[]): void => term.keys(...k);
const type = (s: string): void => term.type(s);
const PREFIX = 'C-]';

describe.skipIf(!hasTmux)('the inbox keys in tmux', () => {
  beforeAll(() => {
    buildCli();
    term = server.start('k', { cols: 240 });
  }, 120_000);

  afterAll(() => server.end(dir));

  it("a focused panel's a allows the question's tool for its agent: the next question of the tool is answered by the rule, the panel says so, and tai ask rule list shows it", async () => {
    await term.startTai();
    type(`node ${CLI} spawn --kind acp --permissions ask --label editor --prompt go -- node ${fixture('acp-rules-agent.mjs')} > ${join(dir, 'spawn.out')} 2>&1 &\r`);
    await term.until(() => expect(text()).toContain('permission: Edit notes.txt (edit)'));
    keys(PREFIX, 'n');
    type('a');
    await term.until(() => expect(text()).toContain('permission: `npm test` (execute)'));
    expect(text()).toMatch(/✓ q2 \(Edit other\.txt\) answered by rule R1 \(allow edit for panel 1, 30 min left\): Allow once/);
    type('n');
    await term.until(() => expect(text()).toContain('Answers: allow-once, allow-once, reject-once.'));
    keys(PREFIX, 'p');
    type(`node ${CLI} ask rule list\r`);
    await term.until(() => expect(text()).toMatch(/^R1 {2}allow edit for panel 1 · (30|29) min left/m));
    type('exit\r');
    await term.until(() => expect(text()).toContain('TAI-EXIT='));
  }, 90_000);
});
