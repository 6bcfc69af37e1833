/**
 * The scenarios every real agent CLI goes through tai with (the built CLI,
 * `tai spawn --kind K --json -- ARGV`, outside a cockpit unless said),
 * against the fake model server: a turn with a tool call, a long answer, a
 * stall under --timeout, Ctrl-C, `tai cancel ID` (in a cockpit), a 429,
 * connection refused, a 500, a permission request under the default policy,
 * and the `ask` policy answered through `tai ask` (in a cockpit). Each CLI's
 * test file says which apply to it and why the others do not (`skip`
 * below, shown in the test's name). One run is real-run.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FINAL_TEXT } from '../helpers/fake-model-server.js';
import { notInstalled, type RealCli } from '../helpers/real-agents.js';
import { isSleep, leftovers, Run, until, type QuestionRow, type SpawnJson } from './real-run.js';

/** The scenarios of the suite. */
export type Scenario = 'tool' | 'long' | 'stall' | 'interrupt' | 'cancel' | 'rate-limit' | 'refused' | 'server-error' | 'permission' | 'ask';

/**
 * A scenario that does not apply to a CLI, with why. For `permission`,
 * `never-asks` instead runs the scenario's other half: the agent writes
 * under the default reject policy, since it sends no request to reject.
 */
export type NotApplicable = Partial<Readonly<Record<Scenario | 'tokens', string>>>;

/** The `permission` entry of an agent that never asks before it writes. */
export const NEVER_ASKS = 'never-asks';

/** The wall clock of the stall scenario: the shortest tai allows (FORK_TIMEOUT_MIN). */
const STALL_TIMEOUT_S = 30;

/** The suite of one CLI: every scenario, those in `na` skipped with their reason. */
export function realAgentSuite(cli: RealCli, na: NotApplicable = {}): void {
  const missing = notInstalled();
  const runs: Run[] = [];
  const fresh = (): Run => {
    const run = new Run();
    runs.push(run);
    return run;
  };
  afterEach(async () => {
    for (const run of runs.splice(0)) await run.close();
  });
  const scenario = (name: Scenario, title: string, timeout: number, body: () => Promise<void>): void => {
    const why = na[name];
    // Skipped, not dropped: a scenario a CLI cannot have (its reason in the name) stays visible in the report.
    if (why !== undefined) it.skip(`${title}: not applicable, ${why}`, () => {});
    else it(title, body, timeout);
  };

  describe.skipIf(missing !== undefined)(`${cli} under tai${missing ? ` (skipped: ${missing})` : ''}`, () => {
    const tokens = na.tokens === undefined ? 'tokens' : `no tokens (${na.tokens})`;
    scenario('tool', `a turn with a tool call ends done with the answer, a tool per round trip, ${tokens} and no process left`, 120_000, async () => {
      const run = fresh();
      await run.start(cli, { mode: 'ok' }, ['--timeout', '120'], 'run echo tai-tool-ok');
      const { run: tai, result, row } = await run.finish();
      expect(tai.code, tai.stderr).toBe(0);
      expect(result.state).toBe('done');
      expect(result.text).toContain(FINAL_TEXT);
      expect(run.server.toolRoundTrips()).toBeGreaterThanOrEqual(1);
      // One tool per call the server asked for (claude-agent-acp resends the history, so results come back more often).
      expect(row?.tools, JSON.stringify(row)).toBe(run.server.toolCalls());
      if (na.tokens === undefined) expect(row?.tokens).toBeGreaterThan(0);
      else expect(row?.tokens).toBe(0);
      expect(leftovers(run.place.dir)).toEqual([]);
    });

    scenario('long', 'a long answer is handed back by the claim check, its record id in the output', 120_000, async () => {
      const run = fresh();
      await run.start(cli, { mode: 'long' }, ['--timeout', '120'], 'write a long answer');
      const { run: tai, result } = await run.finish();
      expect(tai.code, tai.stderr).toBe(0);
      expect(result.recordId).toBeDefined();
      expect(result.text).toContain(result.recordId ?? 'no record');
      expect(result.text).toContain('line number 1.');
    });

    scenario('stall', `a model that never answers is stopped by --timeout ${STALL_TIMEOUT_S} as a timeout (124)`, 120_000, async () => {
      const run = fresh();
      await run.start(cli, { mode: 'hang' }, ['--timeout', String(STALL_TIMEOUT_S)], 'run echo tai-tool-ok');
      const { run: tai, result } = await run.finish();
      expect(tai.code, tai.stderr).toBe(124);
      expect(result.state).toBe('timeout');
      expect(result.reason).toContain(`time limit reached (${STALL_TIMEOUT_S}s)`);
      await until(() => leftovers(run.place.dir).length === 0, 10_000);
    });

    scenario('interrupt', 'Ctrl-C during the answer stops the agent softly: cancelled (130) within the grace', 120_000, async () => {
      const run = fresh();
      await run.start(cli, { mode: 'slow', slowMs: 500 }, ['--timeout', '120'], 'run echo tai-tool-ok');
      await until(() => run.server.requests.some((r) => r.step !== undefined), 60_000);
      const asked = Date.now();
      run.tai.signal('SIGINT');
      const { run: tai, result } = await run.finish();
      expect(tai.code, tai.stderr).toBe(130);
      expect(result.state).toBe('cancelled');
      expect(result.reason).toContain('interrupted (Ctrl-C)');
      // The soft stop, or the hard one after ORCH_CANCEL_GRACE (5 s): never the board's own finish.
      expect(Date.now() - asked).toBeLessThan(10_000);
      expect(result.reason).not.toContain('did not stop');
      expect(result.reason).not.toMatch(/✗|error_during_execution|Reading prompt/);
    });

    scenario('cancel', 'tai cancel ID during the answer stops the agent softly: cancelled (130) within the grace, no process left', 120_000, async () => {
      const run = fresh();
      await run.startInCockpit(cli, { mode: 'slow', slowMs: 500 }, ['--timeout', '120'], 'run echo tai-tool-ok');
      await until(() => run.server.requests.some((r) => r.step !== undefined), 60_000);
      const status = JSON.parse((await run.inCockpit(['status', '--json'])).stdout) as { agents: { id: number; state: string }[] };
      const id = status.agents.at(-1)?.id;
      expect(id, JSON.stringify(status)).toBeDefined();
      const asked = Date.now();
      const cancel = await run.inCockpit(['cancel', String(id)]);
      expect(cancel.code, cancel.stderr).toBe(0);
      const { run: tai, result } = await run.finish();
      expect(tai.code, tai.stderr).toBe(130);
      expect(result.state).toBe('cancelled');
      expect(result.reason).toContain('tai cancel');
      // The soft stop, or the hard one after ORCH_CANCEL_GRACE (5 s): never the board's own finish.
      expect(Date.now() - asked).toBeLessThan(10_000);
      expect(result.reason).not.toContain('did not stop');
      expect(result.reason).not.toMatch(/✗|error_during_execution|Reading prompt/);
      await until(() => leftovers(run.place.dir).filter((pid) => pid !== run.cockpit?.pid && !isSleep(pid)).length === 0, 10_000);
    });

    scenario('rate-limit', 'a 429 is reported rate limited, never waited out as an outage', 120_000, async () => {
      const run = fresh();
      await run.start(cli, { mode: 'rate-limit' }, ['--timeout', '120'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: '0.05' });
      const { run: tai, result } = await run.finish();
      expect(tai.code, tai.stderr).toBe(1);
      expect(result.state).toBe('failed');
      expect(result.reason).toMatch(/^rate limited/);
      expect(result.reason).not.toContain('\n');
      expect(result.reason).not.toMatch(/success/);
      expect(tai.stderr).not.toContain('held: waiting');
    });

    scenario('refused', 'connection refused holds the agent for the network; it is done once the server is back', 180_000, async () => {
      const run = fresh();
      await run.start(cli, { mode: 'ok' }, ['--timeout', '180'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: '0.05' });
      await run.server.stop();
      await until(() => run.tai.stderr().includes('held: waiting for the network'), 150_000);
      await run.server.start();
      const { run: tai, result } = await run.finish();
      expect(tai.code, tai.stderr).toBe(0);
      expect(result.state).toBe('done');
      expect(tai.stderr).toMatch(/restarted: the network is back|the network is back/);
    });

    scenario('server-error', 'a 500 holds the agent for the model service; the model probe proves it back and it is done', 320_000, async () => {
      const run = fresh();
      await run.start(cli, { mode: 'server-error' }, ['--timeout', '300'], 'run echo tai-tool-ok', { TAI_OUTAGE_TIME_SCALE: '0.05' });
      await until(() => run.tai.stderr().includes('held: waiting for the model service'), 200_000);
      run.server.setMode('ok');
      const { run: tai, result } = await run.finish();
      expect(tai.code, tai.stderr).toBe(0);
      expect(result.state).toBe('done');
      expect(tai.stderr).toContain('the model service is back');
    });

    const touched = (run: Run): boolean => existsSync(join(run.place.project, 'tai-touched.txt'));
    /** Runs a turn that asks under the ask policy, answers its question with `tai ask answer QID ANSWER`, and returns the run. */
    const answered = async (answer: 'y' | 'n'): Promise<{ run: Run; result: SpawnJson; question: QuestionRow }> => {
      const run = fresh();
      await run.startInCockpit(cli, { mode: 'ok', shellCommand: 'touch tai-touched.txt' }, ['--timeout', '120', '--permissions', 'ask'], 'touch a file');
      let question: QuestionRow | undefined;
      await vi.waitFor(async () => {
        const listed = await run.inCockpit(['ask', '--json']);
        question = (JSON.parse(listed.stdout || '[]') as QuestionRow[]).find((q) => q.open);
        if (question === undefined) throw new Error(`no question yet: ${listed.stdout}${listed.stderr}`);
      }, { timeout: 90_000, interval: 500 });
      if (question === undefined) throw new Error('no question');
      // Asked, nothing ran yet: the tool waits for the answer.
      expect(touched(run)).toBe(false);
      const reply = await run.inCockpit(['ask', 'answer', question.qid, answer]);
      expect(reply.code, reply.stderr).toBe(0);
      const { result } = await run.finish();
      return { run, result, question };
    };
    scenario('ask', 'under the ask policy the question is listed by tai ask; answered y the tool runs, answered n it does not', 300_000, async () => {
      const yes = await answered('y');
      expect(yes.question.options.length).toBeGreaterThanOrEqual(2);
      expect(yes.result.state, yes.result.reason).toBe('done');
      expect(touched(yes.run)).toBe(true);
      const no = await answered('n');
      expect(no.result.state, no.result.reason).toBe('done');
      expect(touched(no.run)).toBe(false);
    });

    if (na.permission === NEVER_ASKS) {
      it('never asks before it writes: the default reject policy does not stop it (tai agents says so)', async () => {
        const run = fresh();
        await run.start(cli, { mode: 'ok', shellCommand: 'touch tai-touched.txt' }, ['--timeout', '120'], 'touch a file');
        const { result } = await run.finish();
        expect(result.state).toBe('done');
        expect(touched(run)).toBe(true);
      }, 180_000);
      return;
    }
    scenario('permission', 'a permission request is rejected by default and accepted with --allow', 180_000, async () => {
      const rejected = fresh();
      await rejected.start(cli, { mode: 'ok', shellCommand: 'touch tai-touched.txt' }, ['--timeout', '120'], 'touch a file');
      const first = await rejected.finish();
      expect(touched(rejected), first.run.stderr).toBe(false);
      const allowed = fresh();
      await allowed.start(cli, { mode: 'ok', shellCommand: 'touch tai-touched.txt' }, ['--timeout', '120', '--allow'], 'touch a file');
      const second = await allowed.finish();
      expect(second.result.state, second.run.stderr).toBe('done');
      expect(touched(allowed)).toBe(true);
    });
  });
}
