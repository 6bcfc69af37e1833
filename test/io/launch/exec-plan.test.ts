/**
 * The launcher's plan pipe (src/io/launch/exec-plan.ts) in a real node
 * process started as src/bin/tai starts it: fd 3 a pipe, TAI_EXEC_FD=3. What it
 * starts never sees the variable nor the pipe, the plan arrives one argument
 * a line, and an argument that cannot be one line is refused (the caller then
 * runs the client itself).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testEnv } from '../../helpers/test-env.js';

const PLAN = fileURLToPath(new URL('../../../dist/src/io/launch/exec-plan.js', import.meta.url));

/** Runs `body` in a node started by sh with the launcher's pipe on fd 3; returns what came on the pipe and on stdout. */
function launched(body: string): { plan: string; out: string } {
  const script = `import { takeExecFd, handOver } from ${JSON.stringify(PLAN)}; import { execFileSync } from 'node:child_process'; takeExecFd(); ${body}`;
  // The plan is caught as src/bin/tai catches it; stdout goes to a file of its own (fd 4), not into the plan.
  const sh = `exec 4>&1; plan=$(TAI_EXEC_FD=3 "$NODE" --input-type=module -e "$SCRIPT" 3>&1 1>&4 4>&-); printf 'PLAN<%s>' "$plan"`;
  const r = spawnSync('sh', ['-c', sh], { encoding: 'utf8', env: testEnv({ NODE: process.execPath, SCRIPT: script }) });
  const at = r.stdout.lastIndexOf('PLAN<');
  return { plan: r.stdout.slice(at + 5, -1), out: r.stdout.slice(0, at) };
}

describe('the launcher plan', () => {
  it("is hidden from the programs node starts: no TAI_EXEC_FD, nothing on their fd 3", () => {
    const { out, plan } = launched(
      `process.stdout.write(execFileSync('sh', ['-c', 'echo "VAR=[$TAI_EXEC_FD]"; readlink /proc/$$/fd/3 || echo FD3-CLOSED'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));`,
    );
    expect(out).toBe('VAR=[]\nFD3-CLOSED\n');
    expect(plan).toBe('');
  });

  it('arrives one argument a line, spaces and quotes kept', () => {
    const { plan } = launched(`process.stdout.write(String(handOver(['/bin/client', '--link', "/tmp/a b/it's", '$HOME'])));`);
    expect(plan).toBe("/bin/client\n--link\n/tmp/a b/it's\n$HOME");
  });

  it('is refused for an argument with a newline or an empty one, and nothing reaches the launcher', () => {
    const { out, plan } = launched(`process.stdout.write(String(handOver(['/bin/client', 'a\\nb'])) + ' ' + String(handOver(['/bin/client', ''])));`);
    expect(out).toBe('false false');
    expect(plan).toBe('');
  });
});
