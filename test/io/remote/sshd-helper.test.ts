import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshRun, startSshd, type TestSshd } from '../../helpers/sshd.js';

// No skip: .ci/run installs openssh-server; a machine without it fails here with what to install.
describe('the private sshd of the tests', () => {
  let server: TestSshd;
  beforeAll(async () => {
    server = await startSshd();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers a command with the generated user key through its own config file', () => {
    const run = sshRun(server, 'echo hello-from-the-host');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('hello-from-the-host\n');
    expect(run.status).toBe(0);
  });
});
