/**
 * An ACP agent on a host gets the host's folder in session/new (docs/remote.md,
 * "Every kind on a host"): `--cwd` as given when absolute, the host's path of
 * `~/x`, the host's login folder without `--cwd`; the folder it runs in is the
 * same. The ACP fixture (its `cwd` mode says both) through the private sshd of
 * test/helpers/sshd.ts and the built CLI (npm run build first), outside a cockpit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../../helpers/agents.js';
import { startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai } from '../../helpers/tai-cli.js';

let server: TestSshd;
let state: string;
let underHome: string;
let env: NodeJS.ProcessEnv;
const agent = [process.execPath, fixture('acp-agent.mjs'), 'cwd'];

beforeAll(async () => {
  server = await startSshd();
  state = mkdtempSync(join(tmpdir(), 'tai-remote-cwd-'));
  // ssh logs in to the passwd entry's home: a folder of the test's own there, for `~/x`.
  underHome = mkdtempSync(join(userInfo().homedir, 'tai-remote-cwd-'));
  env = { XDG_STATE_HOME: state, XDG_RUNTIME_DIR: join(state, 'run'), TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb' };
});
afterAll(async () => {
  await server?.stop();
  rmSync(state, { recursive: true, force: true });
  rmSync(underHome, { recursive: true, force: true });
});

async function saidBy(cwd: string[]): Promise<string> {
  const run = await runTai(['spawn', '--allow', '--host', TEST_HOST, '--kind', 'acp', '--prompt', 'where', ...cwd, '--', ...agent], env);
  expect(run.code, run.err).toBe(0);
  return run.out.trim();
}

describe('an ACP agent on a host', () => {
  it("names the host's folder given with --cwd in session/new", async () => {
    expect(await saidBy(['--cwd', server.dir])).toBe(`session/new cwd: ${server.dir}; runs in: ${server.dir}`);
  });

  it("names the host's path of ~/x in session/new", async () => {
    expect(await saidBy(['--cwd', `~/${basename(underHome)}`])).toBe(`session/new cwd: ${underHome}; runs in: ${underHome}`);
  });

  it("names the host's login folder in session/new without --cwd", async () => {
    const home = userInfo().homedir;
    expect(await saidBy([])).toBe(`session/new cwd: ${home}; runs in: ${home}`);
  });

  it('refuses a --cwd that is no folder on the host, before the agent starts', async () => {
    const run = await runTai(['spawn', '--allow', '--host', TEST_HOST, '--kind', 'acp', '--prompt', 'where', '--cwd', 'no-such-folder-here', '--', ...agent], env);
    expect(run.err).toBe('tai spawn: no folder no-such-folder-here on taitest for the ACP agent: give --cwd a folder that exists there\n');
    expect(run.code).toBe(64);
  });
});
