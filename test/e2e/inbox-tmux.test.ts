/**
 * The inbox's keys as a person meets them, in a real tmux of its own (a
 * private server with its own environment, always killed): the built `tai`
 * around bash, an ACP agent on the real SDK asking three questions
 * (test/fixtures/acp-rules-agent.mjs); in its focused panel `a` makes a rule
 * that answers the question and the next of the same tool, and the panel
 * says by which rule (docs/agents.md, "The inbox"). Waits on conditions.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilPasses, type Pace } from '../helpers/until.js';
import { tmuxEnv } from '../helpers/test-env.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { fixture } from '../helpers/agents.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-inbox-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-inbox-tmux-'));
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const ENV = tmuxEnv(dir);

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: ENV });
const text = (): string => tmux('capture-pane', '-p', '-t', 'k').split('\n').join('\n');
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 'k', ...k);
const type = (s: string): void => void tmux('send-keys', '-t', 'k', '-l', s);
const PREFIX = 'C-]';
const TMUX: Pace = { timeout: 20_000, interval: 100 };

describe.skipIf(!hasTmux)('the inbox keys in tmux', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    tmux('new-session', '-d', '-s', 'k', '-x', '240', '-y', '40', 'bash --norc --noprofile');
    tmux('set-option', '-t', 'k', 'status', 'off');
  }, 120_000);

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: ENV });
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') });
    rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  it("a focused panel's a allows the question's tool for its agent: the next question of the tool is answered by the rule, the panel says so, and tai ask rule list shows it", async () => {
    type(`clear; node ${CLI} -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
    await untilPasses(() => expect(tmux('display-message', '-p', '-t', 'k', '#{alternate_on}').trim()).toBe('1'), TMUX);
    type("PS1='in$ '\r");
    await untilPasses(() => expect(text()).toMatch(/^in\$/m), TMUX);
    type(`node ${CLI} spawn --kind acp --permissions ask --label editor --prompt go -- node ${fixture('acp-rules-agent.mjs')} > ${join(dir, 'spawn.out')} 2>&1 &\r`);
    await untilPasses(() => expect(text()).toContain('permission: Edit notes.txt (edit)'), TMUX);
    keys(PREFIX, 'n');
    type('a');
    await untilPasses(() => expect(text()).toContain('permission: `npm test` (execute)'), TMUX);
    expect(text()).toMatch(/✓ q2 \(Edit other\.txt\) answered by rule R1 \(allow edit for panel 1, 30 min left\): Allow once/);
    type('n');
    await untilPasses(() => expect(text()).toContain('Answers: allow-once, allow-once, reject-once.'), TMUX);
    keys(PREFIX, 'p');
    type(`node ${CLI} ask rule list\r`);
    await untilPasses(() => expect(text()).toMatch(/^R1 {2}allow edit for panel 1 · (30|29) min left/m), TMUX);
    type('exit\r');
    await untilPasses(() => expect(text()).toContain('TAI-EXIT='), TMUX);
  }, 90_000);
});
