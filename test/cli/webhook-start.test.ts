/**
 * A webhook that cannot be used refuses the cockpit before anything starts:
 * the built CLI, run as a user runs it, exits 64 with the message.
 */
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
});
