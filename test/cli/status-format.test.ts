import { describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/results/status.js';
import { statusOf, type AgentRow } from '../../store/status.js';

const row = (over: Partial<AgentRow>): AgentRow => ({
  id: 1,
  kind: 'agent',
  label: 'quiet job',
  task: 'wait',
  state: 'running',
  startedAt: 0,
  lastEventAt: 0,
  elapsedMs: 2_000,
  tools: 0,
  tokens: 0,
  droppedBytes: 0,
  reason: '',
  ...over,
});

describe('tai status', () => {
  it("says a live agent's own silence limit as a rule, not as something that happened", () => {
    const text = formatStatus(statusOf([row({ idleCancelMs: 60_000 })], [], new Map()));
    expect(text).toMatch(/quiet job +· 0 tools · 0 tokens +· cancelled if silent for 60s\n/);
    expect(text).not.toContain('cancelled after');
  });

  it('says nothing of the limit once the agent has ended', () => {
    const text = formatStatus(statusOf([], [row({ state: 'done', idleCancelMs: 60_000, finishedAt: 2_000 })], new Map()));
    expect(text).not.toContain('silent');
  });
});
