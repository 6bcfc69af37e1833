/**
 * The real @agentclientprotocol/codex-acp adapter (the outages reported came
 * from it; test/real-agents/codex-acp.test.ts runs zed's older one) through
 * outages under tai, against the fake model server. With nothing listening
 * it says "Reconnecting... waiting for network" as an error event and goes
 * on waiting by itself: tai takes those words as a lost connection (before,
 * they counted as activity and only a minute's silence held it). Answered
 * 500 it fails the turn with "Reconnecting... 1/1: responseStreamDisconnected":
 * the network probe succeeds, so the model service is what failed (before,
 * tai held it for the network and restarted it ten times in under a minute,
 * then failed it). An agent that fails again as soon as the service is back
 * waits on the widening schedule. The lab time scale shortens tai's
 * schedule, not the adapter's own retries.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FINAL_TEXT } from '../helpers/fake-model-server.js';
import { notInstalled } from '../helpers/real-agents.js';
import { leftovers, Run, until } from './real-run.js';

const missing = notInstalled();
let run: Run | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

/** tai's lines that say so. */
const lines = (stderr: string, word: string): string[] => stderr.split('\n').filter((line) => line.includes(word));
/** How often tai said it restarted the agent. */
const restarts = (stderr: string): number => lines(stderr, 'restarted:').length;
/** The lab time scale: tai's one-minute probe comes after 3 s, a five-minute wait is 15 s. */
const SCALE = 0.05;

describe.skipIf(missing !== undefined)(`@agentclientprotocol/codex-acp through an outage under tai${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('with nothing listening is held for the network (its probe fails), never for the model, and is done once the server is back', async () => {
    run = new Run();
    const current = run;
    await current.start('codex-acp-2', { mode: 'ok' }, ['--timeout', '300'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: String(SCALE) });
    await current.server.stop();
    await until(() => current.tai.stderr().includes('held: waiting for the network'), 200_000);
    // Taken as a lost connection from the adapter's own words, not after a minute of silence.
    const [held] = lines(current.tai.stderr(), 'held:');
    expect(held).toContain('Reconnecting... waiting for network');
    expect(held).not.toContain('silent past the idle limit');
    // Held through at least one failed probe (the server is still down): no restart meanwhile.
    await until(() => current.tai.stderr().includes('stage five-minutes'), 60_000);
    expect(restarts(current.tai.stderr())).toBe(0);
    await current.server.start();
    const { run: tai, result } = await current.finish();
    expect(tai.code, tai.stderr).toBe(0);
    expect(result.state).toBe('done');
    expect(result.text).toContain(FINAL_TEXT);
    expect(tai.stderr).not.toContain('waiting for the model service');
    expect(restarts(tai.stderr)).toBeLessThanOrEqual(1);
    await until(() => leftovers(current.place.dir).length === 0, 10_000);
  }, 330_000);

  it('answered 500 is held for the model service (the model probe fails), not restarted while it lasts, and is done once it answers', async () => {
    run = new Run();
    const current = run;
    await current.start('codex-acp-2', { mode: 'server-error' }, ['--timeout', '300'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: String(SCALE) });
    await until(() => current.tai.stderr().includes('held: waiting for the model service'), 200_000);
    await until(() => current.server.probes.some((p) => p.probe === 'model' && p.status === 500), 60_000);
    expect(restarts(current.tai.stderr())).toBe(0);
    expect(current.tai.stderr()).not.toContain('held: waiting for the network');
    current.server.setMode('ok');
    const { run: tai, result } = await current.finish();
    expect(tai.code, tai.stderr).toBe(0);
    expect(result.state).toBe('done');
    expect(result.text).toContain(FINAL_TEXT);
    expect(tai.stderr).toContain('the model service is back');
    expect(tai.stderr).not.toContain('waiting for the network');
    expect(restarts(tai.stderr)).toBeLessThanOrEqual(1);
    await until(() => leftovers(current.place.dir).length === 0, 10_000);
  }, 330_000);

  it('failing again at once after the model service is back is restarted on the widening schedule, not every few seconds, and is done once it answers', async () => {
    run = new Run();
    const current = run;
    // Every model request is answered 500 while the health check says 200: the model probe passes at once each time.
    await current.start('codex-acp-2', { mode: () => 'server-error' }, ['--timeout', '300'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: String(SCALE) });
    await until(() => restarts(current.tai.stderr()) === 1, 200_000);
    await until(() => lines(current.tai.stderr(), 'held:').length === 2, 200_000);
    const heldAgain = Date.now();
    await until(() => restarts(current.tai.stderr()) === 2, 200_000);
    // The repeat waits as if the five-minute probe had come (15 s at this scale): a lower bound, never an upper one.
    expect(Date.now() - heldAgain).toBeGreaterThanOrEqual(5 * 60_000 * SCALE * 0.7);
    expect(lines(current.tai.stderr(), 'held: waiting for the model service').length).toBe(2);
    current.server.setMode('ok');
    const { run: tai, result } = await current.finish();
    expect(tai.code, tai.stderr).toBe(0);
    expect(result.state).toBe('done');
    expect(result.text).toContain(FINAL_TEXT);
    expect(tai.stderr).not.toContain('waiting for the network');
    await until(() => leftovers(current.place.dir).length === 0, 10_000);
  }, 330_000);
});
