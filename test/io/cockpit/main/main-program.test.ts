import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { describe, expect, it } from 'vitest';
import { checkMainProgram, lastLines, MainProgramError } from '../../../../src/io/cockpit/main/main-program.js';
import { XtermScreen } from '../../../../src/io/terminal/screen.js';
import { testEnv } from '../../../helpers/test-env.js';

const CLI = fileURLToPath(new URL('../../../../dist/src/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tai-main-'));

describe.runIf(existsSync(CLI))('the main program', () => {
  it('is refused with its name when it is not on PATH, or not an executable file at its path', () => {
    const env = { PATH: '/usr/bin:/bin' };
    expect(() => checkMainProgram(['nosuchprog'], env)).toThrow(new MainProgramError('tai: cannot start nosuchprog: not found on PATH'));
    expect(() => checkMainProgram(['/nonexistent/prog'], env)).toThrow('tai: cannot start /nonexistent/prog: no such executable file');
    writeFileSync(join(dir, 'plain'), 'not executable');
    expect(() => checkMainProgram([join(dir, 'plain')], env)).toThrow('no such executable file');
    expect(() => checkMainProgram(['sh', '-c', 'true'], env)).not.toThrow();
    expect(() => checkMainProgram([], { ...env, SHELL: 'nosuchshell' })).toThrow('tai: cannot start nosuchshell: not found on PATH');
  });

  it('leaves its last non-empty lines on its screen for the normal screen after', async () => {
    const screen = new XtermScreen(40, 6, 100);
    screen.write('one\r\ntwo\r\nthree\r\n\r\n');
    await screen.parsed();
    expect(lastLines(screen.term, 2)).toEqual(['two', 'three']);
  });

  it('tai -- nosuchprog says why and exits 127, with stdout a pipe', () => {
    const r = spawnSync(process.execPath, [CLI, '--', 'nosuchprog'], { encoding: 'utf8', env: testEnv({ XDG_STATE_HOME: dir }) });
    expect(r.status).toBe(127);
    expect(r.stderr).toBe('tai: cannot start nosuchprog: not found on PATH\n');
  });

  it('tai -- nosuchprog in a terminal never takes the screen over', async () => {
    const p = pty.spawn(process.execPath, [CLI, '--', 'nosuchprog'], { cols: 100, rows: 30, env: testEnv({ XDG_STATE_HOME: dir }) });
    let out = '';
    p.onData((d) => (out += d));
    const code = await new Promise<number>((resolve) => p.onExit((e) => resolve(e.exitCode)));
    expect(code).toBe(127);
    expect(out).toContain('tai: cannot start nosuchprog: not found on PATH');
    expect(out).not.toContain('\x1b[?1049h');
  });

  it('shows the last lines of a main program that fails at once after the screen is restored', async () => {
    const script = join(dir, 'fails.sh');
    writeFileSync(script, '#!/bin/sh\necho "config file missing: ~/.nosuch"\nexit 3\n');
    chmodSync(script, 0o755);
    const p = pty.spawn(process.execPath, [CLI, '--', script], { cols: 100, rows: 30, env: testEnv({ XDG_STATE_HOME: dir }) });
    let out = '';
    p.onData((d) => (out += d));
    const code = await new Promise<number>((resolve) => p.onExit((e) => resolve(e.exitCode)));
    expect(code).toBe(3);
    const after = out.slice(out.lastIndexOf('\x1b[?1049l'));
    expect(after).toContain('config file missing: ~/.nosuch');
    expect(after).toContain(`tai: ${script} exited with code 3 at once`);
  });
});
