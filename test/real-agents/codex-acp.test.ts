/** The real codex-acp CLI under tai (test/real-agents/scenarios.ts), and through both outages: the network gone, then the model service failing. */
import { afterEach, describe, expect, it } from 'vitest';
import { FINAL_TEXT } from '../helpers/fake-model-server.js';
import { notInstalled } from '../helpers/real-agents.js';
import { Run, until } from './real-run.js';
import { NEVER_ASKS, realAgentSuite } from './scenarios.js';

realAgentSuite('codex-acp', { permission: NEVER_ASKS, ask: 'codex-acp 0.16 never asks (no session/request_permission seen)' });

const missing = notInstalled();
let run: Run | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

/** How often tai said it restarted the agent. */
const restarts = (stderr: string): number => stderr.split('\n').filter((line) => line.includes('restarted:')).length;

describe.skipIf(missing !== undefined)(`codex-acp through an outage under tai${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('with nothing listening is held for the network (its probe fails), never for the model, and is done after one restart once the server is back', async () => {
    run = new Run();
    const current = run;
    await current.start('codex-acp', { mode: 'ok' }, ['--timeout', '240'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: '0.05' });
    await current.server.stop();
    await until(() => current.tai.stderr().includes('held: waiting for the network'), 150_000);
    // Held through at least one failed probe (the server is still down): no restart meanwhile.
    await until(() => current.tai.stderr().includes('stage five-minutes'), 60_000);
    expect(restarts(current.tai.stderr())).toBe(0);
    await current.server.start();
    const { run: tai, result } = await current.finish();
    expect(tai.code, tai.stderr).toBe(0);
    expect(result.state).toBe('done');
    expect(result.text).toContain(FINAL_TEXT);
    expect(tai.stderr).not.toContain('waiting for the model service');
    expect(restarts(tai.stderr)).toBe(1);
  }, 300_000);

  it('answered 500 is held for the model service (the model probe fails), not restarted while it lasts, and is done after one restart once it answers', async () => {
    run = new Run();
    const current = run;
    await current.start('codex-acp', { mode: 'server-error' }, ['--timeout', '240'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: '0.05' });
    await until(() => current.tai.stderr().includes('held: waiting for the model service'), 150_000);
    await until(() => current.server.probes.some((p) => p.probe === 'model' && p.status === 500), 60_000);
    expect(restarts(current.tai.stderr())).toBe(0);
    expect(current.tai.stderr()).not.toContain('held: waiting for the network');
    current.server.setMode('ok');
    const { run: tai, result } = await current.finish();
    expect(tai.code, tai.stderr).toBe(0);
    expect(result.state).toBe('done');
    expect(result.text).toContain(FINAL_TEXT);
    expect(tai.stderr).toContain('the model service is back');
    expect(restarts(tai.stderr)).toBe(1);
  }, 300_000);
});
