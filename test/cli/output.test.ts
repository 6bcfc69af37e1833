/**
 * What an agent can make the CLI print (src/cli/output.ts): the built CLI runs
 * a Codex stand-in whose turn.failed message and answer carry OSC 0 (title),
 * OSC 52 (clipboard), CSI 6n (a cursor query) and an 8-bit CSI, to a pipe and
 * to a real pty; and no file in src/cli writes to the process's streams
 * around the output module.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { describe, expect, it, vi } from 'vitest';
import { CliOutput, field, jsonText } from '../../src/cli/output.js';
import { testEnv } from '../helpers/test-env.js';

/** The built CLI, as a user runs it (npm test builds it first). */
const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
const EMITTER = fileURLToPath(new URL('../fixtures/codex-emitter.mjs', import.meta.url));
const SRC_CLI = fileURLToPath(new URL('../../src/cli', import.meta.url));

/** What the fixture's hostile mode puts in its texts. */
const HOSTILE = '\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[6n\u009b2J\x1b[31mred\x1b[0m';
const SGR = /\x1b\[[0-9;:]*m/g;

interface Ran {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs the built CLI with stdout and stderr on pipes. */
function tai(args: readonly string[]): Promise<Ran> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: testEnv({ XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'tai-out-')), TAI_PLEXER_SOCKET: '' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out, err })));
}

const hostile = ['spawn', '--kind', 'codex', '--prompt', 'go', '--', process.execPath, EMITTER, 'hostile'];

describe.runIf(existsSync(CLI))('the built CLI and a hostile agent', () => {
  it("prints a codex turn.failed message with OSC 0, OSC 52 and CSI 6n as plain text on a pipe, the reason on one line", async () => {
    const ran = await tai(hostile);
    expect(ran.code).toBe(1);
    // To a pipe not even SGR survives: the text is plain.
    expect(ran.out).toBe('answer red end\n');
    expect(ran.err).toBe('tai: agent #1 failed (boom red second line · 60 chars)\n');
    expect(ran.out + ran.err).not.toMatch(/[\x1b\x07\u0080-\u009f]/);
  });

  it('prints the exact bytes with --raw and a lossless escaped JSON with --json', async () => {
    const raw = await tai([...hostile.slice(0, 1), '--raw', ...hostile.slice(1)]);
    expect(raw.out).toBe(`answer ${HOSTILE} end\n`);
    // The summary on stderr is tai's, never raw.
    expect(raw.err).not.toMatch(/[\x1b\x07\u0080-\u009f]/);
    const json = await tai([...hostile.slice(0, 1), '--json', ...hostile.slice(1)]);
    expect(json.out).not.toMatch(/[\x1b\x07\u0080-\u009f]/);
    expect((JSON.parse(json.out) as { text: string }).text).toBe(`answer ${HOSTILE} end`);
    expect((await tai([...hostile.slice(0, 1), '--json', '--raw', ...hostile.slice(1)])).code).toBe(64);
  });

  it('keeps only SGR when stdout and stderr are a terminal', async () => {
    const term = pty.spawn(process.execPath, [CLI, ...hostile], {
      cols: 200,
      rows: 20,
      env: testEnv({ XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'tai-out-')), TAI_PLEXER_SOCKET: '' }),
    });
    let seen = '';
    term.onData((d) => (seen += d));
    const code = await new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
    await vi.waitFor(() => expect(seen).toContain('chars)'), { timeout: 5_000, interval: 10 });
    expect(code).toBe(1);
    expect(seen).toContain('answer \x1b[31mred\x1b[0m end\r\n');
    // Besides SGR, only the live status line's own erase (CR, CSI 2 K) while the agent ran.
    expect(seen.replace(SGR, '').replace(/\r\x1b\[2K/g, '')).not.toMatch(/[\x1b\x07\u0080-\u009f]/);
    // The reason is one line without colour, even on a terminal.
    expect(seen).toContain('tai: agent #1 failed (boom red second line · 60 chars)\r\n');
  });
});

describe('the CLI output module', () => {
  it('escapes DEL and the C1 controls in JSON, which still parses to the same value', () => {
    const value = { text: `a\u009b6n\u009d0;t\u0007\x7fb` };
    const text = jsonText(value);
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(JSON.parse(text)).toEqual(value);
    expect(jsonText({ a: 'plain ✓' })).toBe(JSON.stringify({ a: 'plain ✓' }));
  });

  it('escapes the bidi and zero-width format characters in JSON, so a JSON line on a terminal is not reordered, and it still parses to the same value', () => {
    const value = { label: 'lab\u202eel', text: 'a\u2066b\u200bc\ufeffd\u061ce', emoji: '👩\u200d💻' };
    const text = jsonText(value);
    expect(text).not.toMatch(/[\u061c\u200b\u202a-\u202e\u2066-\u2069\ufeff]/);
    expect(text).toContain('lab\\u202eel');
    expect(text).toContain('👩\u200d💻');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('folds an agent value to one line without SGR, secrets masked', () => {
    expect(field('a\x1b[31mb\nc\td\x1b]0;x\x07 key=sk-proj-abcdefghijklmnopqrstu')).toBe('ab c d key=[hidden]');
  });

  it("keeps SGR in tai's lines only for a terminal, and a result's bytes only when raw", () => {
    const sink = (terminal: boolean) => {
      const got = { out: '', err: '' };
      return { got, out: new CliOutput({ out: (t) => (got.out += t), err: (t) => (got.err += t), outIsTerminal: terminal, errIsTerminal: terminal }) };
    };
    const tty = sink(true);
    tty.out.result('\x1b[1mbold\x1b[0m\x1b[2J\n', false);
    tty.out.warn('w\x1b]0;t\x07\n');
    expect(tty.got).toEqual({ out: '\x1b[1mbold\x1b[0m\n', err: 'w\n' });
    const pipe = sink(false);
    pipe.out.result('\x1b[1mbold\x1b[0m\x1b[2J\n', false);
    pipe.out.result('\x1b[2J', true);
    expect(pipe.got.out).toBe('bold\n\x1b[2J');
    expect(pipe.out.notifier()).toBeUndefined();
  });

  it('is the only file in src/cli that writes to the process streams or to a CliIo directly', () => {
    // Its subfolders too: every subcommand sits in one.
    const files = readdirSync(SRC_CLI, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && f !== 'output.ts');
    const entry = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
    const stray = [...files.map((f) => join(SRC_CLI, f)), entry].flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `${path}:${i + 1}`, line }))
        .filter(({ line }) => /process\.std(out|err)\.write|console\.|\bio\.(out|err)\(/.test(line) && !/processSinks\.(out|err)/.test(line)),
    );
    expect(stray.map((s) => `${s.where}: ${s.line.trim()}`)).toEqual([]);
  });
});
