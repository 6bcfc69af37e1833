/**
 * A real cockpit as a child process of the built CLI (`npm run build` first),
 * drawing nothing (TAI_ORCH_PANELS=0, stdout a pipe) with `sleep` as its main
 * program: its board, agent service and control socket are the real ones, in
 * a private runtime folder, so `tai spawn`, `tai cancel` and `tai lane` find it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { socketLive } from '../../src/io/socket/socket-path.js';
import { TAI_CLI } from './tai-cli.js';
import { testEnv } from './test-env.js';
import { until } from './until.js';

/** A cockpit running. */
export interface CockpitProcess {
  readonly child: ChildProcess;
  /** Its control socket. */
  readonly socket: string;
  /** What it printed on stderr so far. */
  err(): string;
  /** Ends it (its main program gets SIGTERM) and waits for its exit. */
  stop(): Promise<void>;
}

/** Starts a cockpit with `env` (XDG_RUNTIME_DIR and XDG_STATE_HOME should be the test's own); resolves once its socket answers. */
export async function startCockpit(env: NodeJS.ProcessEnv): Promise<CockpitProcess> {
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime === undefined) throw new Error('startCockpit needs XDG_RUNTIME_DIR in env');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const child = spawn(process.execPath, [TAI_CLI, '--', 'sleep', '600'], {
    env: testEnv({ TAI_ORCH_PANELS: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdout?.resume();
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const socket = join(runtime, 'tai', `tai-${child.pid}.sock`);
  await until(() => existsSync(socket), { what: `the cockpit's socket ${socket}`, explain: () => err });
  if (!(await socketLive(socket))) throw new Error(`the cockpit's socket ${socket} does not answer: ${err}`);
  return {
    child,
    socket,
    err: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
