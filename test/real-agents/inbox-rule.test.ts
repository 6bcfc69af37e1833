/**
 * The inbox's rule answering a real agent's permission question
 * (docs/agents.md, "The inbox"): the real claude CLI in a cockpit under the
 * ask policy, against the fake model server, asks before `touch`; a rule
 * `allow Bash --prefix touch` made while it waits answers it at once, the
 * tool runs, and `tai ask log` says the rule answered. One CLI is enough:
 * the rule is the board's, whichever runner asked.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { notInstalled } from '../helpers/real-agents.js';
import { Run, type QuestionRow } from './real-run.js';

const runs: Run[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
});

const missing = notInstalled();

describe.skipIf(missing !== undefined)(`an inbox rule and the real claude CLI${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('a rule allowing Bash commands that start with touch answers its waiting question; the tool runs and the log names the rule', async () => {
    const run = new Run();
    runs.push(run);
    await run.startInCockpit('claude', { mode: 'ok', shellCommand: 'touch tai-touched.txt' }, ['--timeout', '120', '--permissions', 'ask'], 'touch a file');
    let question: QuestionRow | undefined;
    await vi.waitFor(async () => {
      const listed = await run.inCockpit(['ask', '--json']);
      question = (JSON.parse(listed.stdout || '[]') as QuestionRow[]).find((q) => q.open);
      if (question === undefined) throw new Error(`no question yet: ${listed.stdout}${listed.stderr}`);
    }, { timeout: 90_000, interval: 500 });
    expect(question?.tool).toBe('Bash');
    expect(existsSync(join(run.place.project, 'tai-touched.txt'))).toBe(false);

    // Another command is not `touch`: a rule for it answers nothing.
    const other = await run.inCockpit(['ask', 'rule', 'add', 'allow', 'Bash', '--prefix', 'rm', '--all', '--for', '10m']);
    expect(other.stdout).toBe('R1 allow Bash `rm` for all agents · 10 min left\n');
    const rule = await run.inCockpit(['ask', 'rule', 'add', 'allow', 'Bash', '--prefix', 'touch', '--all', '--for', '10m']);
    expect(rule.code, rule.stderr).toBe(0);
    expect(rule.stdout).toBe('R2 allow Bash `touch` for all agents · 10 min left · answered 1 waiting question\n');

    const { result } = await run.finish();
    expect(result.state, result.reason).toBe('done');
    expect(existsSync(join(run.place.project, 'tai-touched.txt'))).toBe(true);
    let entries: { qid: string; event: string; tool: string; args: string; by?: string }[] = [];
    // The cockpit writes the log a moment after the answer (one transaction per turn of its event loop).
    await vi.waitFor(async () => {
      entries = JSON.parse((await run.inCockpit(['ask', 'log', '--json'])).stdout) as typeof entries;
      expect(entries.filter((e) => e.event === 'answered')).toHaveLength(1);
    }, { timeout: 20_000, interval: 200 });
    expect(entries.filter((e) => e.qid === question?.qid).map((e) => [e.event, e.tool, e.by ?? ''])).toEqual([
      ['asked', 'Bash', ''],
      ['answered', 'Bash', 'rule R2'],
    ]);
    expect(entries.find((e) => e.event === 'asked')?.args).toContain('command: touch tai-touched.txt');
  }, 300_000);
});
