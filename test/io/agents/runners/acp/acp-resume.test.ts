/**
 * The resume of an ACP agent's earlier session (docs/restore.md) through the
 * real runner and a fixture agent built on the real SDK that keeps its
 * sessions' history in a file (test/fixtures/acp-load-agent.mjs): each run is
 * a new process, so only a real session/load or session/resume finds the
 * history again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../../../src/core/events.js';
import { runAcp } from '../../../../../src/io/agents/runners/acp/acp.js';
import { fixture, harness, type Harness } from '../../../../helpers/agents.js';

const agent = (mode: string, history: string): string[] => [process.execPath, fixture('acp-load-agent.mjs'), mode, history];
const historyFile = (): string => join(mkdtempSync(join(tmpdir(), 'tai-acp-load-')), 'sessions.json');

/** Runs one turn with the runner itself; returns its events, result and outcome. */
async function turn(argv: string[], prompt: string, resume?: string): Promise<{ events: AgentEvent[]; text: string; state: string; summary: string }> {
  const events: AgentEvent[] = [];
  const running = runAcp({ argv, prompt, ...(resume === undefined ? {} : { resume }) }, (e) => events.push(e));
  const outcome = await running.ended;
  return { events, text: running.result(), state: outcome.state, summary: outcome.summary };
}

const sessionOf = (events: readonly AgentEvent[]): string | undefined => events.find((e): e is Extract<AgentEvent, { type: 'session' }> => e.type === 'session')?.id;

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

describe('the acp runner resuming a session', () => {
  it('reports the sessionId of session/new as a session event, and a second run with resume loads it: the agent answers from the earlier history', async () => {
    const history = historyFile();
    const first = await turn(agent('load', history), 'remember the word heron');
    expect(first.state, first.summary).toBe('done');
    const id = sessionOf(first.events);
    expect(id).toMatch(/^load-/);
    expect(first.text).toBe(`turn 1 of ${id}; earlier prompts: none`);
    const second = await turn(agent('load', history), 'you were interrupted: go on', id);
    expect(second.state, second.summary).toBe('done');
    expect(second.text).toBe(`turn 2 of ${id}; earlier prompts: remember the word heron`);
    expect(sessionOf(second.events)).toBe(id);
  });

  it('drops the history session/load replays: the panel shows one note with the count, not the earlier turn again', async () => {
    const history = historyFile();
    const id = sessionOf((await turn(agent('load', history), 'remember the word heron')).events);
    const second = await turn(agent('load', history), 'go on', id);
    const texts = second.events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
    expect(texts).toEqual([`turn 2 of ${id}; earlier prompts: remember the word heron`]);
    expect(second.events).toContainEqual({ type: 'note', text: `resumed session ${id?.slice(0, 8)} (session/load; 2 replayed updates not shown again)` });
    // And in a real panel: the earlier answer is not drawn again.
    h = harness();
    const { id: panel } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: agent('load', history), prompt: 'once more', resume: id ?? '' }, h.clock.t);
    expect((await h.service.poll(panel, 15_000))?.text).toBe(`turn 3 of ${id}; earlier prompts: remember the word heron | go on`);
    const screen = await h.screen(panel);
    expect(screen).toContain('turn 3 of');
    expect(screen).not.toMatch(/turn [12] of|remember the word heron\n/);
    expect(screen).toContain('(session/load; 4 replayed updates not');
  });

  it('uses session/load when the agent offers both load and resume', async () => {
    const history = historyFile();
    const id = sessionOf((await turn(agent('both', history), 'remember the word heron')).events);
    const second = await turn(agent('both', history), 'go on', id);
    expect(second.text).toBe(`turn 2 of ${id}; earlier prompts: remember the word heron`);
    expect(second.events).toContainEqual({ type: 'note', text: `resumed session ${id?.slice(0, 8)} (session/load; 2 replayed updates not shown again)` });
  });

  it('uses session/resume when the agent offers only that (no replay)', async () => {
    const history = historyFile();
    const id = sessionOf((await turn(agent('resume', history), 'remember the word heron')).events);
    const second = await turn(agent('resume', history), 'go on', id);
    expect(second.state, second.summary).toBe('done');
    expect(second.text).toBe(`turn 2 of ${id}; earlier prompts: remember the word heron`);
    expect(second.events).toContainEqual({ type: 'note', text: `resumed session ${id?.slice(0, 8)} (session/resume)` });
  });

  it('refuses to resume with an agent that offers neither session/load nor session/resume, saying so in the panel', async () => {
    const history = historyFile();
    const id = sessionOf((await turn(agent('none', history), 'remember the word heron')).events);
    expect(id).toBeDefined();
    const second = await turn(agent('none', history), 'go on', id);
    const said = 'acp acp-load-agent.mjs cannot resume a session: its agent offers neither session/load nor session/resume; start it again with tai restart ID';
    expect(second).toMatchObject({ state: 'failed', summary: said, text: '' });
    expect(second.events).toContainEqual({ type: 'error', text: said });
  });

  it('fails with a clear message when the agent refuses the session id', async () => {
    const second = await turn(agent('load', historyFile()), 'go on', 'no-such-session');
    expect(second.state).toBe('failed');
    expect(second.summary).toBe(
      'acp acp-load-agent.mjs cannot resume session no-such-session: Resource not found: no session no-such-session; start it again with tai restart ID',
    );
    expect(second.events.filter((e) => e.type === 'error')).toHaveLength(1);
  });
});
