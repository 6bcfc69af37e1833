/**
 * A private tmux server for the end-to-end tests, as a person's terminal: a
 * session of a given size and environment, keys sent with send-keys, the
 * screen read with capture-pane, waits until the screen shows something, and
 * the server killed. The server's whole environment is the test's own
 * (test-env.ts, never the caller's): a developer's NO_COLOR, TERM, TMUX or
 * TAI_PREFIX reaches neither tmux nor anything it runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { endCockpits } from './cockpit-servers.js';
import { TAI_CLI } from './tai-cli.js';
import { untilPasses, type Pace } from './until.js';

/** Whether this machine has tmux: the files skip without it. */
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/** Each look runs capture-pane (a tmux process): look every 100 ms, for 20 s at most. */
export const TMUX_PACE: Pace = { timeout: 20_000, interval: 100 };

/** Resolves once `check` passes (an `expect` over a screen, say), looking at the tmux pace. */
export function untilTmux(check: () => void, pace: Pace = TMUX_PACE): Promise<void> {
  return untilPasses(check, pace);
}

/** A file's temporary folder, with the private `run` folder (XDG_RUNTIME_DIR) its cockpits' sockets go in; `end` removes it. */
export function tmuxFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'run'), { mode: 0o700 });
  return dir;
}

/** Builds the CLI (test/helpers/tai-cli.ts's TAI_CLI) when `npm test` has not (it runs tsc before vitest); for a beforeAll. */
export function buildCli(): void {
  if (!existsSync(TAI_CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: new URL('../..', import.meta.url), stdio: 'ignore' });
}

/** A new session: its size, where it starts, what runs in it and what it adds to the server's environment. */
export interface SessionOptions {
  readonly cols?: number;
  readonly rows?: number;
  /** The folder its command starts in (default the server's). */
  readonly cwd?: string;
  /** Variables added for this session's command (tmux's -e). */
  readonly env?: Readonly<Record<string, string>>;
  /** Its command (default a plain bash). */
  readonly command?: string;
}

/** One session of the server, read and typed into as a person does. */
export class TmuxSession {
  constructor(
    readonly server: TmuxServer,
    readonly name: string,
  ) {}

  /** The visible screen, a string a row. */
  screen(): string[] {
    const rows = this.server.tmux('capture-pane', '-p', '-t', this.name).split('\n');
    // capture-pane ends every row with a line break, the last one too.
    if (rows.at(-1) === '') rows.pop();
    return rows;
  }

  /** The screen's cells from column `from` up to `to` (code points, which are cells here), each row's trailing blanks cut. */
  columns(from: number, to?: number): string {
    return this.screen()
      .map((r) => [...r].slice(from, to).join('').trimEnd())
      .join('\n');
  }

  /** The visible screen as one text. */
  text(): string {
    return this.screen().join('\n');
  }

  /** The visible screen as one text, a row wrapped by the terminal joined again (capture-pane -J). */
  joined(): string {
    return this.server.tmux('capture-pane', '-p', '-J', '-t', this.name);
  }

  /** The visible screen with its colours and attributes (capture-pane -e). */
  sgr(): string {
    return this.server.tmux('capture-pane', '-p', '-e', '-t', this.name);
  }

  /** Keys by tmux's names (`C-]`, `Enter`) or strings, as send-keys takes them. */
  keys(...keys: string[]): void {
    this.server.tmux('send-keys', '-t', this.name, ...keys);
  }

  /** Text typed literally, key names not read. */
  type(text: string): void {
    this.server.tmux('send-keys', '-t', this.name, '-l', text);
  }

  /** Raw bytes into the pane's terminal, as the outer terminal sends a mouse report. */
  bytes(data: string): void {
    this.server.tmux('send-keys', '-t', this.name, '-H', ...[...data].map((c) => c.charCodeAt(0).toString(16)));
  }

  /** A tmux format of the pane (`#{pane_title}`, `#{alternate_on}`). */
  display(format: string): string {
    return this.server.tmux('display-message', '-p', '-t', this.name, format).trim();
  }

  /** Whether the pane's program is on the alternate screen. */
  alternate(): boolean {
    return this.display('#{alternate_on}') === '1';
  }

  /** The window's new size. */
  resize(cols: number, rows: number): void {
    this.server.tmux('resize-window', '-t', this.name, '-x', String(cols), '-y', String(rows));
  }

  /** Starts the built tai (`args` before its `--`) around a plain bash here and waits for that bash's prompt, `in$ `. */
  async startTai(args = ''): Promise<void> {
    this.type(`clear; node ${TAI_CLI} ${args} -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
    await this.until(() => expect(this.alternate()).toBe(true));
    this.type("PS1='in$ '\r");
    await this.until(() => expect(this.screen().some((r) => r.startsWith('in$'))).toBe(true));
  }

  /** Leaves tai from its main pane's bash and waits for the outer shell. */
  async endTai(): Promise<void> {
    this.type('exit\r');
    await this.shows('TAI-EXIT=');
  }

  /** Resolves once `check` passes against the live pane (an `expect` over the screen, say). */
  until(check: () => void, pace: Pace = TMUX_PACE): Promise<void> {
    return untilTmux(check, pace);
  }

  /** Resolves once the screen shows `what` (a text, or a pattern over the whole screen). */
  shows(what: string | RegExp, pace: Pace = TMUX_PACE): Promise<void> {
    return this.until(() => (typeof what === 'string' ? expect(this.text()).toContain(what) : expect(this.text()).toMatch(what)), pace);
  }
}

/** A private tmux server (-L NAME, no config), its environment the test's own. */
export class TmuxServer {
  readonly name: string;

  /** `env` is the server's whole environment, and so every session's (test-env.ts's tmuxEnv or testEnv). */
  constructor(
    label: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.name = `${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  }

  /** One tmux command against this server; its output. */
  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.name, '-f', '/dev/null', ...args], { encoding: 'utf8', env: this.env });
  }

  /** Starts a detached session (120x40 and a plain bash unless told), its status line off. */
  start(name: string, options: SessionOptions = {}): TmuxSession {
    const size = ['-x', String(options.cols ?? 120), '-y', String(options.rows ?? 40)];
    const cwd = options.cwd === undefined ? [] : ['-c', options.cwd];
    const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    this.tmux('new-session', '-d', '-s', name, ...size, ...cwd, ...env, options.command ?? 'bash --norc --noprofile');
    this.tmux('set-option', '-t', name, 'status', 'off');
    return new TmuxSession(this, name);
  }

  /** Whether the session is still there. */
  has(name: string): boolean {
    return spawnSync('tmux', ['-L', this.name, 'has-session', '-t', name], { env: this.env }).status === 0;
  }

  /**
   * A file's afterAll: the server killed, the cockpits the file started ended
   * (servers outlive their terminals; their sockets are under `dir`/run), and
   * `dir` removed unless `keep`.
   */
  async end(dir: string, options: { readonly keep?: boolean } = {}): Promise<void> {
    this.kill();
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') });
    // A shell killed with its server may still be writing there.
    if (options.keep !== true) rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  }

  /** Ends the server and every session in it (no error when it is gone already). */
  kill(): void {
    spawnSync('tmux', ['-L', this.name, 'kill-server'], { env: this.env });
  }
}
