/**
 * The real Gemini CLI over ACP retrying a 500 by itself, silently (the
 * report: "Gemini CLI retries a 429 or a 500 silently over ACP for more than 5
 * minutes; tai cancels it at the 300 s heartbeat"). The heartbeat cannot be
 * shortened for a real CLI (no per-job idle setting, no fake clock in another
 * process), so this proves what tai does at the first mark, ORCH_IDLE_WARN
 * (60 s of silence): it runs the network probe, then the model probe (the
 * fake server records both asks), holds the agent for the model service
 * instead of letting the silence run on to the idle stop, and lets the same
 * agent carry on once the model probe passes; Gemini's own next retry then
 * succeeds and the turn is done. It does not wait out the 300 s idle stop
 * itself (test/io/agents/agent-service.test.ts does, on a fake clock), and
 * a 429 is not held (the model probe passes), so it is not run here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FINAL_TEXT } from '../helpers/fake-model-server.js';
import { notInstalled } from '../helpers/real-agents.js';
import { Run, until } from './real-run.js';

const missing = notInstalled();
let run: Run | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

describe.skipIf(missing !== undefined)(`gemini-acp retrying a 500 silently under tai${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('checks the model probe after 60 s of silence, holds the agent for the model service, and lets it carry on to done once the probe passes', async () => {
    run = new Run();
    const current = run;
    // Ten attempts: Gemini's backoff (5 s doubling, 30 s at most) keeps it silent well past 60 s.
    await current.start('gemini-acp', { mode: 'server-error' }, ['--timeout', '300'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: '0.05' }, { geminiMaxAttempts: 10 });
    await until(() => current.server.requests.some((r) => r.provider === 'gemini'), 60_000);
    const firstModelRequest = Date.now();
    await until(() => current.tai.stderr().includes('held: waiting for the model service'), 150_000);
    const held = Date.now();
    // Silent all along: Gemini asked again and again by itself, tai heard nothing from it for the idle limit.
    expect(current.server.requests.filter((r) => r.provider === 'gemini' && r.mode === 'server-error').length).toBeGreaterThan(1);
    expect(held - firstModelRequest).toBeGreaterThanOrEqual(55_000);
    expect(current.tai.stderr()).toContain('silent past the idle limit; the network probe succeeded; the model probe failed');
    // The probes tai ran, as the server saw them: the network one got an answer (any answer passes it), then the model one a 500.
    const network = current.server.probes.findIndex((p) => p.probe === 'network');
    const model = current.server.probes.findIndex((p) => p.probe === 'model' && p.status === 500);
    expect(network, JSON.stringify(current.server.probes)).toBeGreaterThanOrEqual(0);
    expect(model).toBeGreaterThan(network);
    // The service comes back to the probe first: Gemini's own retries still get a 500 (a mode chosen per
    // request leaves the health check at 200) until tai has said so. Turned 'ok' at once, Gemini's next
    // retry could win the race, end the turn while held, and tai would never need to say the service is back.
    current.server.setMode(() => 'server-error');
    await until(() => current.tai.stderr().includes('the model service is back'), 60_000);
    expect(current.server.requests.filter((r) => r.provider === 'gemini').every((r) => r.mode === 'server-error')).toBe(true);
    current.server.setMode('ok');
    const { run: tai, result } = await current.finish();
    expect(tai.code, tai.stderr).toBe(0);
    expect(result.state).toBe('done');
    expect(result.text).toContain(FINAL_TEXT);
    expect(tai.stderr).toContain('the model service is back');
    expect(tai.stderr).toContain('the agent carries on');
    // The same agent carried on: never cancelled by the silence, never restarted.
    expect(tai.stderr).not.toMatch(/restarted:|cancelled:/);
    expect(current.server.probes.some((p) => p.probe === 'model' && p.status === 200)).toBe(true);
  }, 320_000);
});
