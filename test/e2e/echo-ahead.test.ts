/**
 * The echo written ahead of its frame, end to end: `tai -- cat` in a real
 * pty, keys typed one at a time, and the bytes the terminal gets for each.
 * A frame always comes in a synchronized update (`CSI ? 2026 h`); the echo
 * ahead is the cell alone, written before the main screen parses it, and the
 * frame after the parse has nothing left to write.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from 'node-pty';
import { afterAll, describe, expect, it } from 'vitest';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { TAI_CLI } from '../helpers/tai-cli.js';
import { until } from '../helpers/until.js';
import { testEnv } from '../helpers/test-env.js';

const dir = mkdtempSync(join(tmpdir(), 'tai-echo-ahead-'));
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') };

afterAll(async () => {
  await endCockpits({ XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR });
  rmSync(dir, { recursive: true, force: true });
});

describe('the echo ahead', () => {
  // The echo ahead reads xterm.js's internals: CI's second run, with them switched off (TAI_INTERNALS=0), has none.
  it.skipIf(process.env.TAI_INTERNALS === '0')('writes a key typed into cat as its cell alone, before any frame', async () => {
    mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
    const term = pty.spawn(process.execPath, [TAI_CLI, '--', 'cat'], { name: 'xterm-256color', cols: 100, rows: 20, env: testEnv(env) });
    let out = '';
    let exited = false;
    term.onData((d) => (out += d));
    term.onExit(() => (exited = true));
    await until(() => out.includes('\x1b[?2026l'), { what: 'the first frame' });
    await until(() => !/\x1b\[\?2026h(?![\s\S]*\x1b\[\?2026l)/.test(out), { what: 'a frame finished' });
    const ahead: string[] = [];
    for (const key of 'echo') {
      const from = out.length;
      term.write(key);
      await until(() => out.slice(from).includes(key), { what: `the echo of ${key}` });
      ahead.push(out.slice(from, out.indexOf(key, from) + 1));
    }
    // Each echo came as a cursor move and the character, with no synchronized frame around it.
    for (const [i, bytes] of ahead.entries()) expect(bytes).toMatch(new RegExp(`^\\x1b\\[\\d+;${i + 1}H${'echo'[i]}$`));
    term.write('\r\x04'); // cat ends at end of input, and the cockpit with it
    await until(() => exited, { what: 'the cockpit to end' });
  });
});
