/**
 * Real agent CLIs on a host (docs/remote.md, "Every kind on a host"): the
 * Codex CLI (`--kind codex`) and claude-agent-acp (`--kind acp`) run by
 * `tai spawn --host` through the private sshd of test/helpers/sshd.ts on
 * 127.0.0.1 (the host is this machine, so the CLIs' paths are the same
 * there), in an undrawn cockpit, against the fake model server: the turn
 * streams into the panel labelled with the host and ends done, the model
 * hears of the host's folder (not the cockpit's), and nothing of the run is
 * left on the host. The agent gets the host's login
 * environment, not tai's: its settings (the fake server's address, its
 * config folder) go in its command line as `env -i K=V ... CLI`, as a user
 * would give a host what it lacks.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FINAL_TEXT } from '../helpers/fake-model-server.js';
import { notInstalled, runTai, type RealCli } from '../helpers/real-agents.js';
import { sshdMissing, startSshd, TEST_HOST, type TestSshd } from '../helpers/sshd.js';
import { isSleep, leftovers, Run, until, type SpawnJson } from './real-run.js';

const missing = notInstalled() ?? sshdMissing();
let server: TestSshd | undefined;
let run: Run | undefined;

beforeAll(async () => {
  if (missing === undefined) server = await startSshd();
});
afterEach(async () => {
  await run?.close();
  run = undefined;
});
afterAll(async () => {
  await server?.stop();
});

/** Runs `cli` on the host from a cockpit: the spawn's result, the panel's transcript and its label. */
async function onHost(cli: RealCli): Promise<{ result: SpawnJson; code: number | null; stderr: string; logs: string; label: string; current: Run; folder: string }> {
  if (server === undefined) throw new Error('no sshd');
  run = new Run();
  const current = run;
  const { kind, argv } = await current.setUp(cli, { mode: 'ok' });
  const runtime = join(current.place.dir, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const env = { ...current.env, XDG_RUNTIME_DIR: runtime, TAI_SSH_CONFIG: server.config };
  current.cockpit = runTai(['--', 'sleep', '100000'], env, current.place.project);
  current.socket = join(runtime, 'tai', `tai-${current.cockpit.pid}.sock`);
  await until(() => existsSync(current.socket), 30_000);
  // The folder on the host is not the one the cockpit runs in: the agent must be told the host's.
  const folder = join(current.place.dir, 'on-host');
  mkdirSync(folder);
  const spawned = await runTai(
    ['spawn', '--socket', current.socket, '--host', TEST_HOST, '--cwd', folder, '--kind', kind, '--json', '--timeout', '120', '--prompt', 'run echo tai-tool-ok', '--', ...argv],
    env,
    current.place.project,
  ).done;
  const line = spawned.stdout.trim().split('\n').at(-1) ?? '';
  let result: SpawnJson;
  try {
    result = JSON.parse(line) as SpawnJson;
  } catch {
    throw new Error(`tai spawn printed no result (exit ${spawned.code}):\n${spawned.stdout}\n${spawned.stderr}`);
  }
  const status = JSON.parse((await current.inCockpit(['status', '--json'])).stdout) as { agents: { id: number; label: string }[] };
  const agent = status.agents.at(-1);
  const logs = (await runTai(['logs', String(agent?.id ?? 0)], env, current.place.project).done).stdout;
  return { result, code: spawned.code, stderr: spawned.stderr, logs, label: agent?.label ?? '', current, folder };
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** What the run left in the host's folders: the reaper's job folders and the host's agent slots. */
function onHostStill(): string[] {
  if (server === undefined) return [];
  const slots = join(server.hostCache, 'tai', 'slots');
  return [...readdirSync(server.hostTmp).map((f) => `job ${f}`), ...(existsSync(slots) ? readdirSync(slots).map((f) => `slot ${f}`) : [])];
}

describe.skipIf(missing !== undefined)(`real agent CLIs on a host over ssh${missing === undefined ? '' : ` (skipped: ${missing})`}`, () => {
  for (const cli of ['codex', 'claude-agent-acp'] as const) {
    it(`${cli} on the host streams a turn with a tool call into its panel labelled with the host, ends done, and leaves nothing there`, { timeout: 180_000 }, async () => {
      const { result, code, stderr, logs, label, current, folder } = await onHost(cli);
      expect(code, stderr).toBe(0);
      expect(result.state, result.reason).toBe('done');
      expect(result.text).toContain(FINAL_TEXT);
      expect(label).toMatch(new RegExp(` @${TEST_HOST}$`));
      expect(logs).toContain(FINAL_TEXT);
      expect(current.server.toolRoundTrips()).toBeGreaterThanOrEqual(1);
      // The model hears of the host's folder (the CLI's working directory in its context), never the cockpit's.
      const asked = current.server.requests.filter((r) => r.provider !== 'other').map((r) => JSON.stringify(r.body)).join('\n');
      expect(asked.includes(folder), `the model's requests name ${folder}`).toBe(true);
      expect(asked.includes(current.place.project), `the model's requests name the cockpit's folder ${current.place.project}`).toBe(false);
      // Left running: the cockpit, its main program, and the host's shared connection (it outlives its sessions by ControlPersist).
      const kept = (pid: number): boolean => pid === current.cockpit?.pid || isSleep(pid) || commandOf(pid).includes(' -o ControlMaster=yes ');
      const left = (): string[] => leftovers(current.place.dir).filter((pid) => !kept(pid)).map(commandOf);
      await until(() => left().length === 0 && onHostStill().length === 0, 20_000).catch(() => expect([...left(), ...onHostStill()]).toEqual([]));
    });
  }
});
