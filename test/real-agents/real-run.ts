/**
 * One run of a real agent CLI under tai for the real-agent suite
 * (scenarios.ts): a fake model server, the CLI set up to use it, its
 * scratch folder, and `tai spawn` either on its own (outside a cockpit) or
 * asking an undrawn cockpit (`tai -- sleep`, its stdout a pipe) over its
 * socket, which `tai status`, `tai cancel` and `tai ask` then reach. What
 * a run leaves running is found by the marker every process of the run
 * carries in its environment.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { vi } from 'vitest';
import { startFakeModelServer, type FakeModelOptions, type FakeModelServer } from '../helpers/fake-model-server.js';
import { probeEnv, runTai, scratch, setupCli, type CliTuning, type RealCli, type TaiProcess, type TaiRun } from '../helpers/real-agents.js';

/** One run's result as `tai spawn --json` printed it. */
export interface SpawnJson {
  readonly state: string;
  readonly text: string;
  readonly reason: string;
  readonly exitCode: number;
  readonly recordId?: string;
}

/** A question as `tai ask --json` lists it. */
export interface QuestionRow {
  readonly qid: string;
  readonly tool: string;
  readonly open: boolean;
  readonly options: readonly { readonly id: string; readonly name: string }[];
}

/** The stored row of the run's agent, as `tai status --json` shows it. */
export interface StatusRow {
  readonly tools: number;
  readonly tokens: number;
  readonly state: string;
}

/** Waits until `cond` holds, polling every 50 ms. */
export const until = (cond: () => boolean, timeout: number): Promise<void> =>
  vi.waitFor(() => {
    if (!cond()) throw new Error('not yet');
  }, { timeout, interval: 50 });

/** Pids of processes that carry the run's marker in their environment (the agent and its children). */
export function leftovers(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').includes(`TAI_REAL_AGENT_RUN=${marker}`)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** True for the cockpit's main program of startInCockpit (`sleep 100000`), which lives as long as the cockpit. */
export function isSleep(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u0000100000\u0000';
  } catch {
    return false;
  }
}

/** One run of a CLI under tai against a fake model server. */
export class Run {
  server!: FakeModelServer;
  tai!: TaiProcess;
  /** The cockpit of startInCockpit, and its socket. */
  cockpit: TaiProcess | undefined;
  socket = '';
  readonly place = scratch();
  env: Record<string, string> = {};

  async start(cli: RealCli, model: FakeModelOptions, args: readonly string[], prompt: string, extraEnv: Record<string, string> = {}, tuning: CliTuning = {}): Promise<void> {
    const kind = await this.#prepare(cli, model, extraEnv, tuning);
    this.tai = runTai(['spawn', '--kind', kind, '--json', '--prompt', prompt, ...args, '--', ...this.#argv], this.env, this.place.project);
  }

  /**
   * As start, but the agent runs in a cockpit (undrawn: its stdout is a pipe)
   * that `tai spawn --socket` asks, so `tai cancel` and `tai ask` reach it.
   */
  async startInCockpit(cli: RealCli, model: FakeModelOptions, args: readonly string[], prompt: string): Promise<void> {
    const kind = await this.#prepare(cli, model, {}, {});
    const runtime = join(this.place.dir, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    // The agents run in the cockpit's process, with its environment: the CLI's own variables go there.
    this.cockpit = runTai(['--', 'sleep', '100000'], { ...this.env, XDG_RUNTIME_DIR: runtime }, this.place.project);
    this.socket = join(runtime, 'tai', `tai-${this.cockpit.pid}.sock`);
    await until(() => existsSync(this.socket), 30_000);
    this.tai = runTai(['spawn', '--socket', this.socket, '--kind', kind, '--json', '--prompt', prompt, ...args, '--', ...this.#argv], this.env, this.place.project);
  }

  /** Runs `tai ARGS --socket` against this run's cockpit (tai status, cancel, ask). */
  async inCockpit(args: readonly string[]): Promise<TaiRun> {
    return runTai([...args, '--socket', this.socket], this.env, this.place.project).done;
  }

  #argv: readonly string[] = [];
  #kind = '';

  /**
   * Sets up the server and the CLI without running tai; returns the kind and
   * the CLI's argv run under `env -i` with the run's environment only, for a
   * test that drives a runner itself (resume.test.ts).
   */
  async setUp(cli: RealCli, model: FakeModelOptions): Promise<{ kind: string; argv: readonly string[] }> {
    const kind = await this.#prepare(cli, model, {}, {});
    const env = Object.entries({ PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, ...this.env }).map(([k, v]) => `${k}=${v}`);
    return { kind, argv: ['env', '-i', ...env, ...this.#argv] };
  }

  /** `tai spawn` again with the same CLI, server and scratch folder (a resume, say). */
  spawnAgain(args: readonly string[], prompt: string): void {
    this.tai = runTai(['spawn', '--kind', this.#kind, '--json', '--prompt', prompt, ...args, '--', ...this.#argv], this.env, this.place.project);
  }

  async #prepare(cli: RealCli, model: FakeModelOptions, extraEnv: Record<string, string>, tuning: CliTuning): Promise<string> {
    this.server = await startFakeModelServer(model);
    const setup = setupCli(cli, this.server.url, this.place.home, tuning);
    this.env = {
      HOME: this.place.home,
      XDG_STATE_HOME: join(this.place.dir, 'state'),
      TAI_REAL_AGENT_RUN: this.place.dir,
      ...probeEnv(this.server.url),
      ...setup.env,
      ...extraEnv,
    };
    this.#argv = setup.argv;
    this.#kind = setup.kind;
    return setup.kind;
  }

  async finish(): Promise<{ run: TaiRun; result: SpawnJson; row: StatusRow | undefined }> {
    const run = await this.tai.done;
    const line = run.stdout.trim().split('\n').at(-1) ?? '';
    let result: SpawnJson;
    try {
      result = JSON.parse(line) as SpawnJson;
    } catch {
      throw new Error(`tai spawn printed no result (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
    }
    const status = runTai(['status', '--json', '--socket', join(this.place.dir, 'no-cockpit.sock')], this.env, this.place.project);
    const stored = JSON.parse((await status.done).stdout) as { agents: StatusRow[] };
    return { run, result, row: stored.agents.at(-1) };
  }

  async close(): Promise<void> {
    this.tai?.signal('SIGKILL');
    if (this.cockpit) {
      // Its main program ends on SIGTERM, and the cockpit stops its agents on the way out.
      this.cockpit.signal('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([this.cockpit.done.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 15_000)))]);
      clearTimeout(timer);
      if (!ended) this.cockpit.signal('SIGKILL');
    }
    await this.server?.close();
    // The CLIs cache hundreds of MB in their homes (opencode, Gemini): nothing of a run is kept.
    rmSync(this.place.dir, { recursive: true, force: true });
  }
}
