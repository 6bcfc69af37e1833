/**
 * `tai hosts check NAME` with registry entries that name the host
 * (docs/remote.md, "Every kind on a host"): each entry's program looked for
 * on the host, and the reaper the host's agents get. Against the private
 * sshd of test/helpers/sshd.ts, through the built CLI (npm run build first).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai } from '../../helpers/tai-cli.js';

let server: TestSshd;
let home: string;

beforeAll(async () => {
  server = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'tai-remote-hosts-'));
});
afterAll(async () => {
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

function envWith(agents: Record<string, unknown>): NodeJS.ProcessEnv {
  const config = mkdtempSync(join(home, 'config-'));
  mkdirSync(join(config, 'tai'));
  writeFileSync(join(config, 'tai', 'agents.json'), JSON.stringify({ agents }));
  return { XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: config, TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb' };
}

describe('tai hosts check with the registry', () => {
  it("says which entries of the host have their program there, which reaper it uses, and exits 1 when one lacks it", async () => {
    const env = envWith({
      'shell-far': { kind: 'command', host: TEST_HOST, command: ['sh', '-c', 'true'] },
      'ghost-far': { kind: 'acp', host: TEST_HOST, command: ['no-such-agent-cli-4711', '--acp'] },
      'elsewhere': { kind: 'acp', host: 'other.example', command: ['gemini', '--acp'] },
    });
    const run = await runTai(['hosts', 'check', TEST_HOST], env);
    expect(run.out).toContain('ok   @shell-far: sh found\n');
    expect(run.out).toContain("NO   @ghost-far: no no-such-agent-cli-4711 on its PATH: install it there, or change the entry's command (tai agents)\n");
    expect(run.out).not.toContain('@elsewhere');
    // The host is this machine, so it gets this install's native reaper, copied (docs/remote.md, "The reaper on a host").
    expect(run.out).toMatch(/\nok {3}reaper: native, copied to \S+\/tai-reaper-[0-9a-f]{16} \(Linux \S+ as here(; in the host's cache already)?\)\n/);
    expect(run.code).toBe(1);
  });

  it('exits 0 when every entry of the host has its program there', async () => {
    const run = await runTai(['hosts', 'check', TEST_HOST], envWith({ 'shell-far': { kind: 'command', host: TEST_HOST, command: ['sh'] } }));
    expect(run.out).toContain('ok   @shell-far: sh found\n');
    expect(run.code).toBe(0);
  });
});
