import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentsFullError } from '../../../src/core/errors.js';
import { CLAIM_HEAD, CLAIM_TAIL } from '../../../src/core/agents/claim-check.js';
import { RESULT_MAX } from '../../../src/io/agents/runners/result-text.js';
import { CONCLUDED_JOBS_MAX } from '../../../src/io/agents/service-state.js';
import { idleCollection } from '../../../src/io/idle-collect.js';
import { fixture, groupExists, harness, liveMembers, pidLive } from '../../helpers/agents.js';
// @ts-expect-error a plain .mjs fixture without types
import { flood } from '../../fixtures/flooder.mjs';
import { until } from '../../helpers/until.js';

const node = process.execPath;
const agent = (...args: string[]): string[] => [node, fixture('command-agent.mjs'), ...args];

let h: ReturnType<typeof harness>;
afterEach(() => h?.close());

describe('the agent service with command agents', () => {
  it('runs a command to done, shows its output in the panel and hands back its stdout', async () => {
    h = harness();
    const { id, shown } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--say', 'hello from the agent', '--stderr', 'a warning'), label: 'greeter' }, h.clock.t);
    expect(shown).toBe(true);
    const result = await h.service.poll(id, 10_000);
    expect(result).toMatchObject({ id, state: 'done', finished: true, text: 'hello from the agent\n', exitCode: 0 });
    const text = await h.screen(id);
    expect(text).toContain('hello from the agent');
    expect(text).toContain('stderr│ a warning');
    expect(text).toContain('✓ done');
    expect(text).toContain('exit 0 · 21 chars');
    // The row outlives this process: status and poll can answer after a restart.
    expect(h.agents.get('test-run', id)).toMatchObject({ state: 'done', exitCode: 0, text: 'hello from the agent\n', chars: 21, label: 'greeter' });
  });

  it('reports a non-zero exit as failed with exit code 1', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--say', 'oops', '--exit', '3') }, h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result).toMatchObject({ state: 'failed', exitCode: 1, text: 'oops\n' });
    expect(result?.reason).toContain('exit 3');
    expect(await h.screen(id)).toContain('✗ failed');
  });

  it('stops softly: the agent honours SIGINT and hands back its partial result marked cancelled', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--linger') }, h.clock.t);
    await until(() => String(resultText(h, id)).includes('waiting'));
    expect(h.board.getState().cancel(id, 'cancelled by the caller', h.clock.t)).toBe(true);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.exitCode).toBe(130);
    expect(result?.text).toBe('[cancelled (cancelled by the caller); partial result]\nwaiting\ninterrupted\n');
  });

  it('calls an agent that answers the soft stop by exiting 0 cancelled (130), and one stopped by its wall clock timeout (124)', async () => {
    h = harness();
    const trap = ['/bin/bash', '-c', 'trap "exit 0" INT; echo waiting; while :; do sleep 0.05; done'];
    const cancelled = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: trap }, h.clock.t);
    const timed = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: trap, timeout: 30 }, h.clock.t);
    await until(() => String(resultText(h, cancelled.id)).includes('waiting') && String(resultText(h, timed.id)).includes('waiting'));
    h.board.getState().cancel(cancelled.id, 'interrupted (Ctrl-C)', h.clock.t, 'user');
    h.tick(30_000);
    expect(await h.service.poll(cancelled.id, 10_000)).toMatchObject({ state: 'cancelled', exitCode: 130, reason: expect.stringContaining('interrupted (Ctrl-C)') });
    expect(await h.service.poll(timed.id, 10_000)).toMatchObject({ state: 'timeout', exitCode: 124, reason: expect.stringContaining('time limit reached (30s)') });
  });

  it('keeps a failure summary on one line, whatever newlines the agent put in it', async () => {
    const twoLines = () => ({ pgid: undefined, ended: Promise.resolve({ state: 'failed' as const, summary: '[API Error: quota]\nPlease wait and try again later.' }), result: () => '', soft() {}, hard() {} });
    h = harness({ runners: { acp: twoLines } });
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: [process.execPath] }, h.clock.t);
    expect((await h.service.poll(id, 10_000))?.reason).toBe('[API Error: quota] Please wait and try again later. · 0 chars');
  });

  it('stops hard after the grace when the agent ignores the soft stop, and its whole process group is gone', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--child', '--ignore-int') }, h.clock.t);
    let grandchild = 0;
    await until(() => {
      const m = /child (\d+)/.exec(String(resultText(h, id)));
      if (m) grandchild = Number(m[1]);
      return grandchild > 0 && h.service.pgidOf(id) !== undefined;
    });
    const pgid = h.service.pgidOf(id) as number;
    expect(liveMembers(pgid).length).toBe(2);
    h.board.getState().cancel(id, 'stop now', h.clock.t);
    await until(() => String(resultText(h, id)).includes('ignoring SIGINT'));
    h.tick(4_999);
    expect(h.board.getState().status(h.clock.t).agents[0]?.state).toBe('running');
    h.tick(1);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.text).toContain('partial result]\nchild ');
    // The agent, reaped by its reaper, is gone; the grandchild it started was killed with the group.
    await until(() => liveMembers(pgid).length === 0 && !pidLive(grandchild));
    await until(() => !groupExists(pgid) || liveMembers(pgid).length === 0);
  });

  it('ends an agent past its wall clock as a timeout with exit code 124', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--linger'), timeout: 30 }, h.clock.t);
    await until(() => String(resultText(h, id)).includes('waiting'));
    h.tick(29_999);
    expect((await h.service.poll(id))?.state).toBe('running');
    h.tick(1);
    const result = await h.service.poll(id, 10_000);
    expect(result).toMatchObject({ state: 'timeout', exitCode: 124 });
    expect(result?.text).toBe('[timeout (time limit reached (30s)); partial result]\nwaiting\ninterrupted\n');
    expect(await h.screen(id)).toContain('⏱ timeout');
  });

  it('cancels an agent that is silent for 300 s', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--linger') }, h.clock.t);
    await until(() => String(resultText(h, id)).includes('waiting'));
    h.tick(60_000);
    expect((await h.service.poll(id))?.state).toBe('idle');
    h.tick(240_000);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.reason).toBe('no event for 300s');
  });

  it('leaves no panel for an agent that cannot start: twenty refusals later a real agent still gets a panel on screen', async () => {
    h = harness();
    for (let i = 0; i < 20; i++) {
      await expect(h.service.spawn({ cmd: 'spawn', kind: 'command', argv: [node, 'a\u0000b'] }, h.clock.t)).rejects.toThrow(/^cannot start command .*: /);
    }
    expect(h.board.getState().panels).toEqual([]);
    const { id, shown } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--say', 'still here') }, h.clock.t);
    expect({ shown, panels: h.board.getState().panels.map((p) => p.id) }).toEqual({ shown: true, panels: [id] });
    expect(await h.service.poll(id, 10_000)).toMatchObject({ state: 'done', text: 'still here\n' });
  });

  it('refuses a timeout outside 30..3600 s and the ninth live agent', async () => {
    h = harness({ maxLive: 1 });
    await expect(h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent(), timeout: 29 }, h.clock.t)).rejects.toThrow('timeout must be from 30 to 3600 seconds');
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--linger') }, h.clock.t);
    await expect(h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent() }, h.clock.t)).rejects.toBeInstanceOf(AgentsFullError);
    h.board.getState().cancel(id, 'done with it', h.clock.t);
    expect((await h.service.poll(id, 10_000))?.state).toBe('cancelled');
  });

  it('starts a quiet spell of the idle collection at each spawn, refused or not, so that its garbage is given back at rest', async () => {
    h = harness({ maxLive: 1 });
    const activity = vi.spyOn(idleCollection, 'activity');
    try {
      // Silent agents: no output, so no pacer tick is activity too.
      const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sleep', '30'] }, h.clock.t);
      expect(activity).toHaveBeenCalledTimes(1);
      await expect(h.service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sleep', '30'] }, h.clock.t)).rejects.toBeInstanceOf(AgentsFullError);
      expect(activity).toHaveBeenCalledTimes(2);
      h.board.getState().cancel(id, 'done with it', h.clock.t);
      expect((await h.service.poll(id, 10_000))?.state).toBe('cancelled');
    } finally {
      activity.mockRestore();
    }
  });

  it('stores a long result as a record first and hands back the exact head, the tail and the record id', async () => {
    h = harness();
    const n = 100_000;
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: [node, fixture('flooder.mjs'), String(n)], label: 'flood' }, h.clock.t);
    const result = await h.service.poll(id, 20_000);
    const whole = flood(n) as string;
    expect(result?.state).toBe('done');
    expect(result?.chars).toBe(n);
    const rid = result?.recordId as string;
    expect(rid).toMatch(/^r[0-9a-z]+$/);
    const text = result?.text as string;
    // Lines of 64 characters: the head ends at the line end before CLAIM_HEAD (2496), the tail starts at the line after n - CLAIM_TAIL (97536).
    expect(CLAIM_HEAD - 2496 + (97_536 - (n - CLAIM_TAIL))).toBeLessThan(100);
    expect(text.startsWith(whole.slice(0, 2496) + '\n\n[... ')).toBe(true);
    expect(text.endsWith(']\n\n' + whole.slice(97_536))).toBe(true);
    expect(text).toContain(`is record ${rid}: tai record read ${rid} --all (the omitted part: --offset 2496 --limit ${97_536 - 2496})`);
    const page = await h.service.readRecord(rid, 64_000, 640);
    expect(page).toEqual({ id: rid, offset: 64_000, text: whole.slice(64_000, 64_640), total: n, next: 64_640 });
    const last = await h.service.readRecord(rid, n - 10, 100);
    expect(last?.next).toBeNull();
    expect(h.records.search('0001000')[0]?.id).toBe(rid);
    expect(await h.screen(id)).toContain(`record ${rid}`);
  });

  it('keeps a flooder bounded: the result keeps the first and last halves of RESULT_MAX, the middle dropped and said so', async () => {
    h = harness();
    const n = RESULT_MAX + 1_000_000;
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: [node, fixture('flooder.mjs'), String(n)] }, h.clock.t);
    const result = await h.service.poll(id, 30_000);
    const whole = flood(n) as string;
    expect(result?.state).toBe('done');
    const page = await h.service.readRecord(result?.recordId as string, 0, 100);
    expect(page?.text).toBe(whole.slice(0, 100));
    const stored = (await h.service.readRecord(result?.recordId as string, RESULT_MAX / 2, 200))?.text ?? '';
    expect(stored).toContain('[... 1000000 characters dropped: the result was longer than 4000000 ...]');
    // The tail starts at the first line start after n - CLAIM_TAIL (lines of 64 characters).
    expect(result?.text.endsWith(`]\n\n${whole.slice(4_997_504)}`)).toBe(true);
    expect(4_997_504 - (n - CLAIM_TAIL)).toBeLessThan(64);
    expect(h.board.getState().status(h.clock.t).agents[0]?.droppedBytes).toBeGreaterThan(0);
  });

  it('retries a failed attempt in a new panel when asked, with a line per attempt in the result', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--say', 'try', '--exit', '2'), retries: 1, label: 'flaky' }, h.clock.t);
    const result = await h.service.poll(id, 20_000);
    expect(result?.state).toBe('failed');
    const second = h.service.currentAttempt(id) as number;
    expect(second).not.toBe(id);
    expect(result?.text).toBe(`attempt 1 (#${id}): failed: exit 2 · 4 chars\nattempt 2 (#${second}): failed: exit 2 · 4 chars\ntry\n`);
    expect(h.board.getState().panels.map((p) => p.label)).toEqual(['flaky', 'flaky (attempt 2)']);
  });
});

describe('the agent service over a day of agents', () => {
  it('holds a bounded number of jobs however many agents ran, and a forgotten one still answers a poll from its row', async () => {
    h = harness();
    const ids: number[] = [];
    for (let n = 0; n < CONCLUDED_JOBS_MAX + 40; n++) {
      const { id } = h.service.spawnWorker({ label: `w${n}` }, async (_signal, emit) => {
        emit({ type: 'text', text: `worker ${n} says hi` });
        return `result ${n}`;
      }, h.clock.t);
      ids.push(id);
      expect(await h.service.poll(id, 5_000)).toMatchObject({ state: 'done', text: `result ${n}` });
      h.tick(10_000); // its panel lingers, then leaves the board
    }
    // Before: every job ever run stayed in the service's map (and with it its runner, its process, its panel's closures).
    expect(h.service.jobsHeld).toBeLessThanOrEqual(CONCLUDED_JOBS_MAX);
    expect(await h.service.poll(ids[0] ?? 0)).toMatchObject({ state: 'done', finished: true, text: 'result 0', exitCode: 0 });
  });
});

function resultText(hh: ReturnType<typeof harness>, id: number): string {
  return hh.service.peek(id)?.text ?? '';
}

describe('the agent service and secrets (docs/spec.md, "Event sources")', () => {
  const bearer = 'Authorization: Bearer sk-proj-abcdefghijklmnopqrstuvwx';

  it("masks a tool's result on the panel, and the task on the panel's first line and in the agents table", async () => {
    h = harness();
    const prompt = `call the API with ${bearer}`;
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'codex', argv: [node, fixture('codex-emitter.mjs'), 'env'], prompt, label: `key=sk-proj-abcdefghijklmnopqrstuvwx` }, h.clock.t);
    expect(await h.service.poll(id, 10_000)).toMatchObject({ state: 'done', text: 'listed' });
    const rows = (await h.screen(id)).split('\n');
    expect(rows[0]).toBe('▸ call the API with Authorization: Bearer [hidden]');
    expect(rows).toContain('⎿ HOME=/home/me');
    expect(rows).toContain('  OPENAI_API_KEY=[hidden]');
    expect(rows.join('\n')).not.toContain('sk-proj-');
    expect(h.board.getState().status(h.clock.t).agents[0]).toMatchObject({ task: 'call the API with Authorization: Bearer [hidden]', label: 'key=[hidden]' });
    // The real SQLite file, read by another connection as `tai status` would.
    const file = new Database(join(h.dir, 'tai.db'), { readonly: true });
    try {
      expect(file.prepare('SELECT label, task FROM agents').all()).toEqual([{ label: 'key=[hidden]', task: 'call the API with Authorization: Bearer [hidden]' }]);
    } finally {
      file.close();
    }
  });

  it("masks a command agent's argv as its task, and the header of a panel a library opens", async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sh', '-c', 'echo ok', 'sh', bearer] }, h.clock.t);
    await h.service.poll(id, 10_000);
    expect((await h.screen(id)).split('\n')[0]).toBe('▸ sh -c echo ok sh Authorization: Bearer [hidden]');
    expect(h.agents.get('test-run', id)?.task).toBe('sh -c echo ok sh Authorization: Bearer [hidden]');
    const opened = h.board.getState().open({ label: 'token=abcdef123456', task: bearer }, h.clock.t);
    expect(h.board.getState().status(h.clock.t).agents.find((a) => a.id === opened)).toMatchObject({ label: 'token=[hidden]', task: 'Authorization: Bearer [hidden]' });
    expect(h.board.getState().panels.find((p) => p.id === opened)?.header).toBe(' ● token=[hidden] · running · 0s');
  });
});
