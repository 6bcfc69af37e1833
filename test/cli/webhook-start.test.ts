/**
 * A webhook that cannot be used refuses the cockpit before anything starts:
 * the built CLI, run as a user runs it, exits 64 with the message. One that
 * can is pushed to by a cockpit that draws nothing, too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTai } from '../helpers/tai-cli.js';

describe('tai with a bad TAI_WEBHOOK_URL', () => {
  it('refuses to start, saying the URL must be http(s), and exits 64', async () => {
    const run = await runTai(['--', 'true'], { TAI_ORCH_PANELS: '0', TAI_WEBHOOK_URL: 'file:///etc/passwd' });
    expect(run.code).toBe(64);
    expect(run.err).toBe('tai: TAI_WEBHOOK_URL must be an http:// or https:// address, got "file:" in "file:///etc/passwd"; set it to an http(s) URL, or unset it\n');
  });

  it('starts with an http one', async () => {
    const run = await runTai(['--', 'true'], { TAI_ORCH_PANELS: '0', TAI_WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
  });

  it("pushes an agent's end from a cockpit that draws nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-hook-'));
    const got: string[] = [];
    const heard = join(dir, 'heard');
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        got.push(body);
        res.end('ok');
        writeFileSync(heard, body); // the main program waits for it before it exits
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const main = `tai spawn --label quick -- true >/dev/null && until [ -e '${heard}' ]; do sleep 0.1; done`;
      const run = await runTai(['--', 'sh', '-c', main], { TAI_ORCH_PANELS: '0', TAI_WEBHOOK_URL: url });
      expect(run.code).toBe(0);
      expect(got).toHaveLength(1);
      expect(JSON.parse(got[0] ?? '{}')).toMatchObject({ text: 'tai: quick finished', event: 'done', agent: { id: 1, label: 'quick' } });
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
