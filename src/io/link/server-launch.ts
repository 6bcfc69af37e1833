/**
 * Starting a cockpit's server: this very tai again as `tai __server CONFIG` in a session of its own (setsid: the
 * terminal's SIGHUP never reaches it), no terminal, output appended to tai's log, and a pipe on fd 3 where it says it is
 * ready (name and link socket) or why it cannot start; the client attaches once it is ready.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverFlags } from '../cockpit/server-flags.js';

/** What the server is asked to run. */
export interface ServerConfig {
  /** The subcommand whose cockpit it runs: plain `tai`, or `tai demo`. */
  readonly command: 'cockpit' | 'demo';
  /** Its arguments, as the user gave them. */
  readonly args: readonly string[];
  /** The main program it runs (empty: $SHELL). */
  readonly argv: readonly string[];
  /** The name asked for with -s; omitted: one made from the main program's. */
  readonly name?: string;
  /** --wake: the cockpit wakes the lead in its main pane. */
  readonly wake?: boolean;
  /** --no-restore (docs/restore.md). */
  readonly noRestore?: boolean;
  readonly cols: number;
  readonly rows: number;
}

/** What the server says on fd 3. */
export type ServerReady = { readonly ok: true; readonly name: string; readonly link: string } | { readonly ok: false; readonly error: string; readonly code: number };

/** The file descriptor the server's readiness goes to. */
export const READY_FD = 3;

/** How long a server may take to be ready (it opens the database, the sockets and the main program). */
const READY_WAIT_MS = 20_000;

const CLI = fileURLToPath(new URL('../../cli.js', import.meta.url));

/** The server as one bundle (src/build/bundle-server.mjs, run by `npm run build`) and what it is built from. */
export const SERVER_SCRIPTS = { bundle: fileURLToPath(new URL('../../../server/cli.js', import.meta.url)), cli: CLI } as const;

/**
 * The script the server runs: the bundle, unless TAI_SERVER_BUNDLE=0 (the
 * benchmark's comparison) or it is missing or older than what tsc built last
 * (`tsc` alone does not bundle): then cli.js itself, with why in the log.
 */
export function serverScript(env: NodeJS.ProcessEnv, log: (line: string) => void, scripts: { readonly bundle: string; readonly cli: string } = SERVER_SCRIPTS): string {
  if (env.TAI_SERVER_BUNDLE === '0') return scripts.cli;
  const built = statSync(scripts.cli, { throwIfNoEntry: false });
  const bundle = statSync(scripts.bundle, { throwIfNoEntry: false });
  if (bundle !== undefined && (built === undefined || bundle.mtimeMs >= built.mtimeMs)) return scripts.bundle;
  log(`tai: the server's bundle ${bundle === undefined ? 'is missing' : 'is older than dist/src'}; running ${scripts.cli} instead (npm run build makes it)`);
  return scripts.cli;
}

/** Node's exit code for an option it does not know ("bad option"). */
const BAD_OPTION_EXIT = 9;

/**
 * Starts a server for `config`; resolves when it is ready, or with why it is
 * not. A Node that refuses one of SERVER_NODE_FLAGS (they were measured on
 * Node 20) gets the server started again without them.
 */
export async function launchServer(config: ServerConfig, env: NodeJS.ProcessEnv, logFile: string): Promise<ServerReady> {
  const flags = serverFlags(env);
  const first = await launchWith(flags, config, env, logFile);
  if (first.ok || first.code !== BAD_OPTION_EXIT || flags.length === 0) return first;
  return launchWith([], config, env, logFile);
}

function launchWith(flags: readonly string[], config: ServerConfig, env: NodeJS.ProcessEnv, logFile: string): Promise<ServerReady> {
  mkdirSync(dirname(logFile), { recursive: true, mode: 0o700 });
  const script = serverScript(env, (line) => appendFileSync(logFile, `${line}\n`, { mode: 0o600 }));
  const log = openSync(logFile, 'a', 0o600);
  const child = spawn(process.execPath, [...flags, script, '__server', JSON.stringify(config)], {
    detached: true,
    stdio: ['ignore', log, log, 'pipe'],
    env,
    cwd: process.cwd(),
  });
  closeSync(log);
  const pipe = child.stdio[READY_FD];
  return new Promise<ServerReady>((resolve) => {
    let text = '';
    let settled = false;
    const settle = (ready: ServerReady): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      pipe?.destroy();
      child.unref();
      resolve(ready);
    };
    const timer = setTimeout(() => settle({ ok: false, error: `the cockpit's server did not start within ${READY_WAIT_MS / 1000}s; see ${logFile}`, code: 1 }), READY_WAIT_MS);
    pipe?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const line = text.split('\n')[0];
      if (text.includes('\n') && line !== undefined) settle(readReady(line, logFile));
    });
    pipe?.on('error', () => {});
    child.once('exit', (code, signal) =>
      settle({ ok: false, error: `the cockpit's server exited before it was ready (${signal ?? `code ${code}`}); see ${logFile}`, code: code ?? 1 }),
    );
    child.once('error', (err) => settle({ ok: false, error: `cannot start the cockpit's server: ${err.message}`, code: 1 }));
  });
}

function readReady(line: string, logFile: string): ServerReady {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v.ok === true && typeof v.name === 'string' && typeof v.link === 'string') return { ok: true, name: v.name, link: v.link };
    if (v.ok === false && typeof v.error === 'string') return { ok: false, error: v.error, code: typeof v.code === 'number' ? v.code : 1 };
  } catch {
    // Not JSON: said below.
  }
  return { ok: false, error: `the cockpit's server said something unexpected; see ${logFile}`, code: 1 };
}
